"""A message several processes receive is claimed by exactly one of them."""

from __future__ import annotations

import asyncio

from bot.runtime.clock import ManualClock
from bot.runtime.message_claims import KEEP, MessageClaims, message_key
from bot.storage import Database
from bot.storage.engine import create_database


async def test_of_many_processes_claiming_one_message_exactly_one_wins(
    database_url: str, clock: ManualClock
) -> None:
    # Each process has its own engine on the one database.
    databases = [create_database(database_url) for _ in range(4)]
    try:
        claims = [
            MessageClaims(db.sessions, f"process/{n}", clock=clock)
            for n, db in enumerate(databases)
        ]
        won = await asyncio.gather(*(c.claim(message_key(1234)) for c in claims for _ in range(3)))
    finally:
        for db in databases:
            await db.dispose()

    assert won.count(True) == 1


async def test_other_messages_are_claimed_on_their_own(
    database: Database, clock: ManualClock
) -> None:
    claims = MessageClaims(database.sessions, "process/a", clock=clock)

    assert await claims.claim(message_key(1))
    assert await claims.claim(message_key(2))
    assert not await claims.claim(message_key(1))


async def test_claims_run_out_and_are_swept(database: Database, clock: ManualClock) -> None:
    claims = MessageClaims(database.sessions, "process/a", clock=clock)
    await claims.claim(message_key(1))
    clock.advance(KEEP / 2)
    await claims.claim(message_key(2))

    clock.advance(KEEP / 2)
    assert await claims.sweep() == 1

    assert await claims.claim(message_key(1))  # long gone: a new claim
    assert not await claims.claim(message_key(2))
