"""Documents members share reach the model as text, once per conversation; those that cannot be
read get a sentence, and the message is answered all the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import answers
from tests.e2e.harness import running_bot
from tests.e2e.test_sharing import notices
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, TARO_ID, FakeDiscord
from tests.fakes.documents import encrypted_pdf, pdf, word
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

ESTIMATE = "御見積書\n合計金額 120,000円（税込）\n納期 12月20日"


async def test_a_pdf_and_a_word_file_reach_the_model_in_file_fences_once_per_conversation(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    minutes = word(["予算は12万円で承認。"], table=[["担当", "期限"], ["太郎", "12月8日"]])
    llm.queue(text("見積は12万円、議事録でも承認済みです。"), text("合計は12万円（税込）です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        posted = await fake.send_user_message(
            GENERAL_CHANNEL_ID,
            TARO_ID,
            "見積もり届きました",
            attachments=[("見積書.pdf", pdf([ESTIMATE]))],
        )
        _, replies = await otomo.ask(
            "この見積と議事録を照らし合わせて",
            reply_to=int(posted["id"]),
            attachments=[("議事録.docx", minutes)],
        )
        first = llm.last_request.last_message["content"]
        await otomo.ask("合計はいくら？", reply_to=int(posted["id"]))
        later = llm.last_request

        assert f'<file name="見積書.pdf">\n[page 1]\n{ESTIMATE}\n</file>' in first
        assert (
            '<file name="議事録.docx">\n予算は12万円で承認。\n担当\t期限\n太郎\t12月8日\n</file>'
            in first
        )
        assert notices(replies) == ""
        # Remembered with the conversation: asked about again, the document is neither
        # downloaded nor sent twice.
        assert "(the message quoted earlier in this conversation)" in later.last_message["content"]
        assert str(later.messages).count("合計金額 120,000円") == 1
        assert sorted(path.rsplit("/", 1)[-1] for path in fake.cdn_downloads) == [
            "見積書.pdf",
            "議事録.docx",
        ]


async def test_a_locked_or_oversized_document_gets_a_sentence_and_the_message_is_still_answered(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    large = word(["filler " * 20_000])
    llm.queue(text("I couldn't open either file, but here is what I can say."))
    async with running_bot(tmp_path, fake=fake, llm=llm, MAX_DOCUMENT_BYTES="20000") as otomo:
        _, replies = await otomo.ask(
            "summarize these for me",
            attachments=[("locked.pdf", encrypted_pdf([ESTIMATE])), ("large.docx", large)],
        )

        said = notices(replies)
        assert answers.DOCUMENT_ENCRYPTED("en", name="locked.pdf") in said
        size = f"{len(large) / 1000:.0f} KB"
        assert answers.FILE_TOO_LARGE("en", name="large.docx", size=size, limit="20 KB") in said
        content = llm.last_request.last_message["content"]
        assert (
            '<file name="locked.pdf">\n(not shown to you: password-protected, not read)' in content
        )
        assert '<file name="large.docx">\n(not shown to you: larger than 20 KB)' in content
        assert "summarize these for me" in content
        assert any("here is what I can say" in m["content"] for m in replies)
        assert [path.rsplit("/", 1)[-1] for path in fake.cdn_downloads] == ["locked.pdf"]
