"""What is kept per member and channel, and forgetting it here or everywhere."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from bot.agent.approvals.service import ApprovalService
from bot.agent.conversation import messages as m
from bot.agent.conversation.history import (
    ConversationStore,
    asked_conversation_key,
    conversation_key,
)
from bot.agent.conversation.memory import ConversationMemory
from bot.runtime.clock import ManualClock
from bot.storage import Database
from bot.storage.agent import ApprovalRequest, LLMCall

HANA, TARO = 1, 2
GENERAL, RANDOM, DM = 10, 20, 30


def _memory(database: Database, clock: ManualClock) -> ConversationMemory:
    return ConversationMemory(database.sessions, ApprovalService(database.sessions, clock, 300))


async def _talk(store: ConversationStore, channel: int, user: int, turns: int = 2) -> None:
    for n in range(turns):
        await store.append(
            conversation_key(channel, user),
            m.UserMessage(text=f"q{n}", author_id=user),
            m.AssistantMessage(text=f"a{n}"),
        )


async def test_the_report_counts_messages_and_shows_the_latest_summary(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock)
    first = clock.now()
    await _talk(store, GENERAL, HANA, turns=3)
    clock.advance(timedelta(hours=2))
    key = conversation_key(GENERAL, HANA)
    await store.append(key, m.SummaryMessage(text="古い要約"))
    await store.append(key, m.SummaryMessage(text="天気と映画の話をした"))

    await _talk(store, RANDOM, HANA)
    await _talk(store, GENERAL, TARO)
    report = await _memory(database, clock).report(HANA, GENERAL)

    assert (report.messages, report.their_messages, report.elsewhere) == (8, 3, 1)
    assert report.first_at == first and report.last_at == clock.now()
    assert report.summary == "天気と映画の話をした" and report.summary_at == clock.now()


async def test_nothing_kept_reports_zero_and_no_summary(
    database: Database, clock: ManualClock
) -> None:
    report = await _memory(database, clock).report(HANA, GENERAL)

    assert report.messages == 0 and report.summary is None and report.first_at is None


async def test_forgetting_here_leaves_other_channels_and_other_members(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock)
    await _talk(store, GENERAL, HANA)
    await _talk(store, RANDOM, HANA)
    await _talk(store, GENERAL, TARO)
    memory = _memory(database, clock)

    done = await memory.forget(HANA, GENERAL)

    assert (done.messages, done.conversations) == (4, 1)
    assert (await memory.report(HANA, GENERAL)).messages == 0
    assert (await memory.report(HANA, RANDOM)).messages == 4
    assert (await memory.report(HANA, RANDOM)).elsewhere == 0
    assert (await memory.report(TARO, GENERAL)).messages == 4


async def test_private_questions_about_messages_are_forgotten_with_their_channel(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock)
    for channel, user, ask in ((GENERAL, HANA, 5), (RANDOM, HANA, 6), (GENERAL, TARO, 7)):
        await store.append(
            asked_conversation_key(channel, user, ask),
            m.UserMessage(text="これは何？", author_id=user),
            m.AssistantMessage(text="説明です"),
        )
    memory = _memory(database, clock)

    here = await memory.forget(HANA, GENERAL)
    everywhere = await memory.forget(HANA, None)

    assert (here.messages, here.conversations) == (2, 1)
    assert (everywhere.messages, everywhere.conversations) == (2, 1)
    assert (await memory.forget(TARO, None)).messages == 2


async def test_forgetting_everywhere_covers_every_channel_and_dm_but_no_one_else(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock)
    for channel in (GENERAL, RANDOM, DM):
        await _talk(store, channel, HANA)
    # A member whose id ends like Hana's must not be caught by the pattern.
    await _talk(store, GENERAL, 11)
    memory = _memory(database, clock)

    done = await memory.forget(HANA)

    assert (done.messages, done.conversations) == (12, 3)
    assert (await memory.report(11, GENERAL)).messages == 4


async def test_forgetting_drops_decided_approvals_cancels_waiting_ones_and_blanks_prompts(
    database: Database, clock: ManualClock
) -> None:
    key = conversation_key(GENERAL, HANA)
    async with database.sessions() as session, session.begin():
        for status in ("approved", "pending"):
            session.add(
                ApprovalRequest(
                    tool_call_id=f"call-{status}",
                    tool_name="write_note",
                    arguments='{"text": "秘密"}',
                    requester_id=HANA,
                    requester_name="hana",
                    guild_id=None,
                    channel_id=GENERAL,
                    conversation_key=key,
                    handler="general",
                    status=status,
                    created_at=clock.now(),
                    expires_at=clock.now() + timedelta(minutes=5),
                )
            )
        session.add(
            LLMCall(
                model="m",
                purpose="agent",
                conversation_key=key,
                started_at=clock.now(),
                latency_ms=10.0,
                prompt="秘密",
                response="はい",
            )
        )

    await _memory(database, clock).forget(HANA, GENERAL)

    async with database.sessions() as session:
        left = (await session.scalars(select(ApprovalRequest))).all()
        call = (await session.scalars(select(LLMCall))).one()
        calls = await session.scalar(select(func.count()).select_from(LLMCall))
    assert [(row.status, row.arguments) for row in left] == [("invalidated", "{}")]
    assert (call.prompt, call.response, calls) == (None, None, 1)


async def test_a_summary_finishing_after_the_member_forgot_is_not_kept(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock, max_messages=4)
    memory = _memory(database, clock)
    key = conversation_key(GENERAL, HANA)
    await _talk(store, GENERAL, HANA, turns=4)

    async def summarize(_: list[dict[str, object]], __: str) -> str:
        await memory.forget(HANA, GENERAL)  # the member forgets while the model summarises
        return "要約"

    store.summarise_in_background(key, summarize)
    await store.wait_for_summaries()

    assert await store.all(key) == []
