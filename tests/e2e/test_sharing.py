"""What members share reaches the model: replied-to messages, thread starts, files, images."""

from __future__ import annotations

import base64
import io
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.i18n import answers
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, TARO_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

MEETING = "明日の定例は10時から3階の会議室です。資料は各自印刷してきてください。"
# Not a real PNG: nothing between Discord and the model decodes the picture.
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def notices(otomo_messages: list[dict[str, Any]]) -> str:
    """The bot's small-print notes (lines starting with -#) among its messages."""
    return "\n".join(m["content"] for m in otomo_messages if m["content"].startswith("-# "))


async def test_a_mention_replying_to_another_members_message_gives_the_model_that_message(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("10時・3階・資料は各自印刷、です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        original = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, MEETING)
        await otomo.ask("これまとめて", reply_to=int(original["id"]))

        content = llm.last_request.last_message["content"]
        assert '<replied_to by="Taro">' in content
        assert MEETING in content
        assert content.endswith("Hana: これまとめて")


async def test_a_reply_to_a_message_discord_left_out_is_fetched(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # Posted before the bot connected, so it is in no cache.
    original = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, MEETING)
    llm.queue(text("会議は10時です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.ask("何時から？", reply_to=int(original["id"]), resolve_reply=False)

        fetched = [
            r
            for r in fake.requests
            if r.method == "GET"
            and r.path == f"/channels/{GENERAL_CHANNEL_ID}/messages/{original['id']}"
        ]
        assert len(fetched) == 1
        assert MEETING in llm.last_request.last_message["content"]


async def test_a_reply_to_a_deleted_message_says_so_and_still_answers(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("元のメッセージが見えないので、内容を教えてください。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        original = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, MEETING)
        await fake.delete_user_message(int(original["id"]))
        _, replies = await otomo.ask("これどういう意味？", reply_to=int(original["id"]))

        assert answers.REPLY_DELETED("ja") in notices(replies)
        content = llm.last_request.last_message["content"]
        assert "<replied_to>\n(that message was deleted" in content
        assert MEETING not in content
        assert any("内容を教えてください" in m["content"] for m in replies)


async def test_in_a_thread_the_model_reads_the_message_the_thread_started_from(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    plan = "週末のBBQ: 炭とトングは太郎、紙皿は花子、飲み物は各自。"
    llm.queue(text("紙皿担当です！"), text("飲み物は各自です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        starter = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, plan)
        thread_id = await fake.start_thread(int(starter["id"]), "BBQ", owner_id=TARO_ID)
        await otomo.ask("私は何を持っていけばいい？", channel_id=thread_id)
        first = llm.last_request.last_message["content"]
        await otomo.ask("飲み物は？", channel_id=thread_id)
        second = llm.last_request.last_message["content"]

        assert '<thread_starter by="Taro">' in first and plan in first
        # Quoted once per conversation: the follow-up does not repeat it.
        assert plan not in second
        assert plan in str(llm.last_request.messages)


async def test_text_files_in_utf8_and_shift_jis_reach_the_model_with_their_names(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    notes = "# 議事録\n- 予算は12万円\n- 次回は12月8日\n"
    scores = "名前,点数\n太郎,80\n花子,95\n"
    llm.queue(text("予算は12万円、花子さんが最高点です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        _, replies = await otomo.ask(
            "この2つを要約して",
            attachments=[
                ("議事録.md", notes.encode("utf-8")),
                ("scores.csv", scores.encode("shift_jis"), "text/csv"),
            ],
        )

        content = llm.last_request.last_message["content"]
        assert f'<file name="議事録.md">\n{notes}\n</file>' in content
        # A CSV is read as rows of cells, as a spreadsheet is.
        assert '<file name="scores.csv">\n名前\t点数\n太郎\t80\n花子\t95\n</file>' in content
        assert notices(replies) == ""


async def test_an_image_reaches_a_vision_model_as_an_image_part_and_history_keeps_a_placeholder(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("猫の写真ですね。"), text("さっきの猫の話ですね。"))
    async with running_bot(tmp_path, fake=fake, llm=llm, LLM_MODEL="openai/gpt-4o-mini") as otomo:
        await otomo.ask("これ何？", attachments=[("cat.png", PICTURE, "image/png")])
        content = llm.last_request.last_message["content"]
        await otomo.ask("さっきの写真の色は？")
        later = str(llm.last_request.messages)

        assert isinstance(content, list)
        assert content[0]["type"] == "text"
        assert '<file name="cat.png">\n(image 1 attached below)' in content[0]["text"]
        data_url = "data:image/png;base64," + base64.b64encode(PICTURE).decode()
        assert content[1] == {"type": "image_url", "image_url": {"url": data_url}}
        assert '<file name="cat.png">\\n(an image)' in later
        assert "base64" not in later
        stored = await otomo.app.core.store.all(f"c{GENERAL_CHANNEL_ID}:u{HANA_ID}")
        assert "base64" not in str([s.message for s in stored])


async def test_an_image_for_a_model_without_vision_gets_a_sentence_not_an_image_part(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("画像は見られませんが、説明してもらえれば答えます。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        _, replies = await otomo.ask("", attachments=[("cat.png", PICTURE, "image/png")])

        assert "画像を見られないので cat.png は読んでいません" in notices(replies)
        assert "/model" in notices(replies)
        content = llm.last_request.last_message["content"]
        assert isinstance(content, str)
        assert '<file name="cat.png">\n(not shown to you: the model openai/test-model' in content
        assert fake.cdn_downloads == []  # nothing was downloaded for nothing


async def test_too_large_binary_and_extra_files_are_refused_with_sentences(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("short.txt を読みました。"))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, MAX_TEXT_FILE_BYTES="1000", MAX_FILES_PER_MESSAGE="3"
    ) as otomo:
        _, replies = await otomo.ask(
            "読んで",
            attachments=[
                ("short.txt", "短いメモ".encode()),
                ("server.log", b"x" * 5000),
                ("archive.zip", b"PK\x03\x04" + bytes(100), "application/zip"),
                ("extra.txt", b"one too many"),
            ],
        )

        said = notices(replies)
        assert answers.FILE_TOO_LARGE("ja", name="server.log", size="5 KB", limit="1 KB") in said
        assert answers.NOT_TEXT_OR_IMAGE("ja", name="archive.zip") in said
        assert answers.FILES_SKIPPED("ja", limit=3, skipped=1) in said
        content = llm.last_request.last_message["content"]
        assert '<file name="short.txt">\n短いメモ\n</file>' in content
        assert '<file name="server.log">\n(not shown to you: larger than 1 KB)' in content
        assert len(fake.cdn_downloads) == 1 and fake.cdn_downloads[0].endswith("/short.txt")


async def test_a_large_photo_reaches_the_model_scaled_down(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    photo = io.BytesIO()
    Image.new("RGB", (4000, 3000), (30, 120, 200)).save(photo, "JPEG")
    llm.queue(text("青い空ですね。"))
    async with running_bot(tmp_path, fake=fake, llm=llm, LLM_MODEL="openai/gpt-4o-mini") as otomo:
        await otomo.ask("どう？", attachments=[("sky.jpg", photo.getvalue(), "image/jpeg")])

        url = llm.last_request.last_message["content"][1]["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        assert sent.size == (2048, 1536)


def declared_png(width: int, height: int) -> bytes:
    """A PNG of a few hundred bytes whose header declares width×height pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(4096)))
        + chunk(b"IEND", b"")
    )


async def test_pictures_declaring_too_many_pixels_are_refused_with_a_sentence_not_decoded(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    fine = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 120, 200)).save(fine, "PNG")
    llm.queue(text("小さい方の画像は青一色です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm, LLM_MODEL="openai/gpt-4o-mini") as otomo:
        _, replies = await otomo.ask(
            "これ見て",
            attachments=[
                ("huge.png", declared_png(12_000, 12_000), "image/png"),
                # Over twice Pillow's own limit: Pillow refuses to open it at all.
                ("bomb.png", declared_png(30_000, 30_000), "image/png"),
                ("fine.png", fine.getvalue(), "image/png"),
            ],
        )

        said = notices(replies)
        huge = answers.TOO_MANY_PIXELS("ja", name="huge.png", size="12000×12000、", limit=25)
        assert huge in said
        assert answers.TOO_MANY_PIXELS("ja", name="bomb.png", size="", limit=25) in said
        content = llm.last_request.last_message["content"]
        images = [part for part in content if part["type"] == "image_url"]
        assert len(images) == 1  # only fine.png reaches the model
        assert (
            '<file name="huge.png">\\n(not shown to you: more than 25 megapixels, not read)'
            in str(content)
        )
        assert (
            '<file name="bomb.png">\\n(not shown to you: more than 25 megapixels, not read)'
            in str(content)
        )
