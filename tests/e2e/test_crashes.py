"""The bot killed with SIGKILL while it posts reminders, then started again: every reminder is
posted exactly once, and delivery resumes as soon as the gateway connects.

The bot runs as `make run` runs it, in a process of its own, on both databases. The fake Discord
remembers nonces as Discord does (the same nonce within minutes returns the first message), and
can hold its answer to a message it already stored: the moment where a kill leaves a reminder
posted but not marked.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.reminders.table import ReminderState
from tests.e2e.harness import bot_environment
from tests.e2e.processes import (
    BotProcess,
    admit_next,
    extra_channels,
    process_environment,
    reminder_messages,
    reminder_posts_since,
    seed_due_reminders,
    settled_rows,
    world_with_channels,
)
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ScriptedLLM

pytestmark = pytest.mark.e2e

CHANNELS = 12
PER_CHANNEL = 5
# Generous: a bot process starts in seconds, slower on a loaded machine.
DELIVERY_LIMIT = 120.0


async def test_sigkill_while_posting_then_restart_posts_every_reminder_exactly_once(
    tmp_path: Path, llm: ScriptedLLM, database_url: str
) -> None:
    channels = extra_channels(CHANNELS)
    async with FakeDiscord(world_with_channels(CHANNELS)) as fake:
        ids = await seed_due_reminders(database_url, channels * PER_CHANNEL)
        environ = process_environment(
            bot_environment(fake, llm, tmp_path, DATABASE_URL=database_url)
        )
        # The three runs start together and wait, warm, at the gateway; each connects only
        # once the run before it was killed, as a restart would.
        gate = fake.hold_gateway()
        warm = [await BotProcess(environ, tmp_path).start() for _ in range(3)]
        await fake.wait_until(lambda: gate.waiting == 3, DELIVERY_LIMIT, what="three warm runs")

        def posted() -> int:
            return len(reminder_messages(fake, channels))

        # Killed at a random moment: after a few posts, plus a random instant.
        chance = random.Random()
        first = await admit_next(gate, warm)
        target = chance.randint(2, 20)
        await fake.wait_until(lambda: posted() >= target, DELIVERY_LIMIT, what="a few posts")
        await asyncio.sleep(chance.uniform(0, 0.05))
        await first.kill()

        # Killed right after Discord stored a message, before the bot heard back and marked it.
        hold = fake.hold_after_accepting()
        second = await admit_next(gate, warm)
        held = await hold.wait_accepted(DELIVERY_LIMIT)
        await second.kill()
        hold.release()

        connections = len(fake.ready_at)
        last = await admit_next(gate, warm)
        await fake.wait_until(lambda: posted() == len(ids), DELIVERY_LIMIT, what="every post")
        rows = await settled_rows(database_url, len(ids), DELIVERY_LIMIT)
        ready_line_at, _ = await last.wait_for_line("Otomo is ready")
        assert await last.stop() == 0

    by_nonce = reminder_messages(fake, channels)
    assert sorted(by_nonce) == sorted(f"r{reminder_id}o1" for reminder_id in ids)
    assert all(len(messages) == 1 for messages in by_nonce.values())  # no duplicates
    assert all(row.state == ReminderState.DELIVERED for row in rows)  # none lost
    held_row = next(row for row in rows if f"r{row.id}o1" == held["nonce"])
    # The held reminder was sent again after the restart and Discord answered with the first.
    assert held_row.delivered_message_id == int(held["id"])
    # The last run took its predecessor's claims back and posted before on_ready (which comes
    # guild_ready_timeout after the connection), not when the dead run's leases ran out.
    connected_at = fake.ready_at[connections]
    assert min(reminder_posts_since(fake, connected_at)) < ready_line_at
    assert "Took back" in last.log
