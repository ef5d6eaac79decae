"""Two bot processes, one per Discord shard, on one database, started as `make run` starts them.

Each answers the mentions of its own shard's guilds and delivers their reminders; a click is
handled by whichever process receives it, from the rows; the once-per-bot jobs run in one of
them and move when it dies; a process killed mid-burst is restarted and takes its claims back,
while the survivor goes on with its own shard and leaves the dead one's alone.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.reminders.table import ReminderState
from tests.e2e.harness import bot_environment
from tests.e2e.processes import (
    START_LIMIT,
    BotProcess,
    admit_next,
    extra_channels,
    process_environment,
    reminder_messages,
    seed_due_reminders,
    settled_rows,
    world_with_channels,
)
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, GUILD_ID, HANA_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

SHARDS = 2
# The fake world's guild is on shard 1: (GUILD_ID >> 22) % 2.
GUILD_SHARD = (GUILD_ID >> 22) % SHARDS
OTHER_SHARD = 1 - GUILD_SHARD
# A guild on the other shard (the fake posts in any channel; only the rows carry the guild).
OTHER_GUILD_ID = GUILD_ID + (1 << 22)
CHANNELS = 6
PER_CHANNEL = 10  # twice Discord's 5 per 5 s per channel: each burst lasts over 5 s
LEADER = "This process now runs the once-per-bot jobs"
LIMIT = START_LIMIT
TOKYO = ZoneInfo("Asia/Tokyo")


def shard_environment(
    fake: FakeDiscord, llm: ScriptedLLM, tmp_path: Path, url: str, shard: int
) -> dict[str, str]:
    """The settings of the process running shard of SHARDS."""
    return process_environment(
        bot_environment(
            fake,
            llm,
            tmp_path,
            DATABASE_URL=url,
            SHARD_COUNT=SHARDS,
            SHARD_IDS=shard,
            # Short, so the takeover is quick; long enough that a busy machine keeps it held.
            JOBS_LEASE_SECONDS=10,
        )
    )


async def started(environ: dict[str, str], tmp_path: Path) -> BotProcess:
    """A bot process that has connected and is ready."""
    bot = await BotProcess(environ, tmp_path).start()
    await bot.wait_for_line("Otomo is ready", LIMIT)
    return bot


def approve_id(card: Json) -> str:
    """The custom_id of the Approve button on an approval card."""
    for row in card.get("components") or []:
        for component in row.get("components") or []:
            if str(component.get("custom_id", "")).endswith(":approve"):
                return str(component["custom_id"])
    raise AssertionError(f"no Approve button on {card}")


async def test_each_process_answers_its_shard_clicks_work_anywhere_and_jobs_run_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, database_url: str
) -> None:
    tomorrow = (datetime.now(TOKYO) + timedelta(days=1)).strftime("%Y-%m-%dT09:00")
    llm.queue(
        tool_call("create_reminder", {"when": tomorrow, "what": "歯医者"}),
        text("明日9時にお知らせします。"),
    )
    owner = await started(
        shard_environment(fake, llm, tmp_path, database_url, GUILD_SHARD), tmp_path
    )
    other = await started(
        shard_environment(fake, llm, tmp_path, database_url, OTHER_SHARD), tmp_path
    )
    try:
        sent = await fake.send_user_message(
            GENERAL_CHANNEL_ID,
            HANA_ID,
            f"<@{fake.world.bot.id}> 明日の9時に歯医者",
            mention_bot=True,
        )
        card = await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: "apv:" in str(m.get("components")), after=int(sent["id"])
        )
        # The click reaches the process that did not post the card.
        with fake.events_to_shard(OTHER_SHARD):
            click = await fake.click_button(int(card["id"]), approve_id(card), HANA_ID)
        await click.wait_response()
        answer = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda m: "お知らせします" in m["content"],
            after=int(card["id"]),
            timeout=LIMIT,
        )
        leaders = [bot for bot in (owner, other) if bot.count(LEADER)]
        assert len(leaders) == 1  # the jobs lease went to one process
        (leader,) = leaders
        survivor = other if leader is owner else owner
        await leader.kill()
        await survivor.wait_for_line(LEADER, 60)  # taken over within a minute
    finally:
        for bot in (owner, other):
            await bot.kill()

    # Only the shard's process saw the mention: one model call for it, one card.
    assert len([r for r in llm.requests if "明日の9時に歯医者" in str(r.messages)]) == 2
    ours = [
        m["id"]
        for m in fake.messages(GENERAL_CHANNEL_ID)
        if int(m["id"]) > int(sent["id"]) and int(m["author"]["id"]) == fake.world.bot.id
    ]
    assert ours == [card["id"], answer["id"]]
    assert owner.count("Answering") == 1 and other.count("Answering") == 0
    assert answer["content"] == "明日9時にお知らせします。"
    final = fake.message(int(card["id"]))
    assert final is not None
    assert final["embeds"][0]["description"] == "✅ 完了"  # the other process ran it
    assert "**created**: true" in str(final["embeds"][0]["fields"])


async def test_a_shard_process_killed_mid_burst_takes_its_claims_back_and_the_other_keeps_its_own(
    tmp_path: Path, llm: ScriptedLLM, database_url: str
) -> None:
    channels = extra_channels(CHANNELS)
    ours, theirs = channels[:3], channels[3:]
    async with FakeDiscord(world_with_channels(CHANNELS)) as fake:
        killed_ids = await seed_due_reminders(database_url, ours * PER_CHANNEL, guild_id=GUILD_ID)
        survivor_ids = await seed_due_reminders(
            database_url, theirs * PER_CHANNEL, guild_id=OTHER_GUILD_ID
        )
        environ = {
            shard: shard_environment(fake, llm, tmp_path, database_url, shard)
            for shard in (GUILD_SHARD, OTHER_SHARD)
        }
        # All wait, warm, at the gateway, in this order: the survivor, then the doomed process
        # and its replacement (both for the guild's shard; whichever came first connects).
        gate = fake.hold_gateway()
        survivor = await BotProcess(environ[OTHER_SHARD], tmp_path).start()
        await fake.wait_until(lambda: gate.waiting == 1, LIMIT, what="the survivor, warm")
        waiting = [
            await BotProcess(environ[GUILD_SHARD], tmp_path).start(),
            await BotProcess(environ[GUILD_SHARD], tmp_path).start(),
        ]
        await fake.wait_until(lambda: gate.waiting == 3, LIMIT, what="two more, warm")
        await admit_next(gate, [survivor])
        doomed = await admit_next(gate, waiting)

        def posted(in_channels: list[int]) -> int:
            return len(reminder_messages(fake, in_channels))

        try:
            await fake.wait_until(lambda: posted(ours) >= 3, LIMIT, what="the doomed shard's posts")
            await doomed.kill()
            ours_at_kill = posted(ours)
            await fake.wait_until(
                lambda: posted(theirs) == len(survivor_ids), LIMIT, what="the survivor's shard"
            )
            ours_while_down = posted(ours)
            restarted = await admit_next(gate, waiting)
            await fake.wait_until(
                lambda: posted(ours) == len(killed_ids), LIMIT, what="the restarted shard"
            )
            rows = await settled_rows(database_url, len(killed_ids) + len(survivor_ids), LIMIT)
        finally:
            for bot in (doomed, survivor, *waiting):
                await bot.kill()
        assert await restarted.stop() == 0

    # The survivor posted none of the dead shard's reminders, only its own.
    assert ours_while_down == ours_at_kill < len(killed_ids)
    assert "Took back" in restarted.log and "Took back" not in survivor.log
    by_nonce = reminder_messages(fake, channels)
    wanted = {f"r{reminder_id}o1" for reminder_id in killed_ids + survivor_ids}
    assert set(by_nonce) == wanted
    assert all(len(messages) == 1 for messages in by_nonce.values())
    assert all(row.state == ReminderState.DELIVERED for row in rows)


async def test_two_processes_given_the_same_shard_answer_a_mention_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, database_url: str
) -> None:
    llm.rule = lambda request: text("こんにちは！")
    environ = shard_environment(fake, llm, tmp_path, database_url, GUILD_SHARD)
    first = await started(environ, tmp_path)
    second = await started(environ, tmp_path)
    try:
        sent = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, f"<@{fake.world.bot.id}> やあ", mention_bot=True
        )
        # Both receive it; one claims it and answers, the other leaves it.
        await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "こんにちは！", after=int(sent["id"])
        )
        skipped = f"Message {sent['id']} is answered by another process"
        left = await asyncio.wait(
            [asyncio.ensure_future(bot.wait_for_line(skipped, LIMIT)) for bot in (first, second)],
            return_when=asyncio.FIRST_COMPLETED,
        )
        for pending in left[1]:
            pending.cancel()
        await first.stop()
        await second.stop()
    finally:
        for bot in (first, second):
            await bot.kill()

    answers = [
        m
        for m in fake.messages(GENERAL_CHANNEL_ID)
        if int(m["id"]) > int(sent["id"]) and int(m["author"]["id"]) == fake.world.bot.id
    ]
    assert [m["content"] for m in answers] == ["こんにちは！"]
    assert len(llm.requests) == 1
    assert first.count("Answering") + second.count("Answering") == 1
    assert first.count(skipped) + second.count(skipped) == 1
