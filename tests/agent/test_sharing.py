"""The agent gives the model what a member shared, within limits, and remembers no image bytes."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import select

from bot.agent import events as ev
from bot.agent.attachments import reading
from bot.agent.attachments.images import FittedImage
from bot.agent.attachments.reading import AttachmentLimits
from bot.agent.conversation import messages as m
from bot.agent.conversation.parts import Shared, SharedFile, SharedMessage
from bot.agent.llm.client import LLMClient
from bot.storage.agent import LLMCall
from tests.agent.conftest import Rig, collect
from tests.fakes.llm_server import text


def shared_file(name: str, data: bytes, content_type: str | None = None) -> SharedFile:
    """A file whose bytes are served at once."""

    async def read() -> bytes:
        return data

    return SharedFile(
        key=f"k-{name}", name=name, content_type=content_type, size=len(data), read=read
    )


async def test_a_replied_to_message_and_its_file_reach_the_model(rig: Rig) -> None:
    rig.llm.queue(text("まとめました"))
    quote = SharedMessage(
        relation="reply",
        message_id=42,
        author_name="Taro",
        text="議事録を貼ります",
        files=(shared_file("minutes.txt", "予算は12万円".encode()),),
    )

    await collect(rig.agent.run(rig.request(), "これまとめて", shared=Shared(quotes=(quote,))))

    content = rig.llm.last_request.messages_with_role("user")[-1]["content"]
    assert content == (
        '<replied_to by="Taro">\n議事録を貼ります\n</replied_to>\n'
        '<file name="minutes.txt">\n予算は12万円\n</file>\n\n'
        "user100: これまとめて"
    )


async def test_a_message_quoted_before_is_referred_to_not_repeated(rig: Rig) -> None:
    rig.llm.queue(text("一回目"), text("二回目"))
    quote = SharedMessage(relation="reply", message_id=42, author_name="Taro", text="長い説明")

    await collect(rig.agent.run(rig.request(), "要約して", shared=Shared(quotes=(quote,))))
    await collect(rig.agent.run(rig.request(), "もっと短く", shared=Shared(quotes=(quote,))))

    sent = [msg["content"] for msg in rig.llm.last_request.messages_with_role("user")]
    assert sum("長い説明" in content for content in sent) == 1
    assert "(the message quoted earlier in this conversation)" in sent[-1]


async def test_a_failed_download_is_a_sentence_and_the_answer_goes_on(rig: Rig) -> None:
    async def broken() -> bytes:
        raise ConnectionResetError("CDN went away")

    rig.llm.queue(text("ファイルが読めませんでした"))
    file = SharedFile(key="1", name="notes.txt", content_type="text/plain", size=10, read=broken)

    events = await collect(rig.agent.run(rig.request(), "読んで", shared=Shared(files=(file,))))

    notice = next(e for e in events if isinstance(e, ev.Notice))
    assert "notes.txt をダウンロードできませんでした。もう一度送ってください。" in notice.text
    assert isinstance(events[-1], ev.Done)
    assert '<file name="notes.txt">\\n(not shown to you: the download failed)' in str(
        rig.llm.last_request.messages
    )


async def test_a_vision_model_listed_by_the_operator_gets_image_parts(rig: Rig) -> None:
    settings = rig.settings.model_copy(update={"llm_vision_models": ["openai/test-model"]})
    rig.agent.settings = settings
    rig.agent.llm._settings = settings
    rig.llm.queue(text("青い四角です"))
    picture = shared_file("square.webp", b"RIFF....WEBP")

    await collect(rig.agent.run(rig.request(), "", shared=Shared(files=(picture,))))

    content = rig.llm.last_request.messages_with_role("user")[-1]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/webp;base64,")
    stored = await rig.store.all("c10:u100")
    user = next(s.message for s in stored if isinstance(s.message, m.UserMessage))
    assert user.files[0].image_key == "k-square.webp" and "base64" not in user.model_dump_json()


async def test_files_are_downloaded_concurrently(rig: Rig) -> None:
    started: list[str] = []
    both_started = asyncio.Event()

    def slow(name: str) -> SharedFile:
        async def read() -> bytes:
            started.append(name)
            if len(started) == 2:
                both_started.set()
            # Each download waits for the other: done one after the other, they would hang.
            await both_started.wait()
            return b"ok"

        return SharedFile(key=name, name=name, content_type="text/plain", size=2, read=read)

    rig.llm.queue(text("done"))
    async with asyncio.timeout(5):
        await collect(
            rig.agent.run(rig.request(), "x", shared=Shared(files=(slow("a"), slow("b"))))
        )

    assert sorted(started) == ["a", "b"]


async def test_logged_prompts_leave_the_image_data_out(rig: Rig) -> None:
    settings = rig.settings.model_copy(
        update={"llm_log_prompts": True, "llm_vision_models": ["openai/test-model"]}
    )
    rig.agent.settings = settings
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)
    rig.llm.queue(text("猫です"))
    picture = shared_file("cat.png", b"\x89PNG-not-really", "image/png")

    await collect(rig.agent.run(rig.request(), "何？", shared=Shared(files=(picture,))))

    asked = rig.llm.last_request.messages_with_role("user")[-1]
    assert asked["content"][1]["image_url"]["url"].startswith("data:")
    async with rig.database.sessions() as session:
        (call,) = (await session.scalars(select(LLMCall))).all()
    assert call.prompt is not None
    assert "(image data omitted)" in call.prompt and "base64" not in call.prompt


async def test_pictures_are_decoded_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    together = threading.Barrier(2)
    overlapped: list[str] = []

    def fit(data: bytes, media_type: str, max_pixels: int) -> FittedImage:
        try:
            # Passed only by two decodes running at once; alone, one gives up waiting.
            together.wait(timeout=0.5)
            overlapped.append(media_type)
        except threading.BrokenBarrierError:
            pass
        return FittedImage(data, media_type, resized=False)

    monkeypatch.setattr(reading, "fit_image", fit)
    pictures = tuple(shared_file(f"p{n}.png", b"\x89PNG", "image/png") for n in range(3))
    limits = AttachmentLimits(
        max_files=5, max_text_bytes=1000, max_image_bytes=10**6, max_image_pixels=10**6
    )

    prepared = await reading.prepare(Shared(files=pictures), limits, vision=True, model="m")

    assert len(prepared.images) == 3
    assert overlapped == []
