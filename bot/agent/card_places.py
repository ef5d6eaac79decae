"""Where each tool call's card is shown (channel and message), so any process can finish it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.storage.agent import ToolCardMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CardPlace:
    """The message that shows a call's card."""

    tool_name: str
    channel_id: int
    message_id: int


class CardPlaces:
    """The `tool_card_messages` rows: one per tool call that got a card."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(
        self, conversation_key: str, call_id: str, place: CardPlace, at: datetime
    ) -> None:
        """Remember where the call's card is; a second record of the same call is ignored."""
        try:
            async with self._sessions() as session, session.begin():
                session.add(
                    ToolCardMessage(
                        conversation_key=conversation_key,
                        call_id=call_id,
                        tool_name=place.tool_name,
                        channel_id=place.channel_id,
                        message_id=place.message_id,
                        created_at=at,
                    )
                )
        except IntegrityError:
            log.info("Card of call %s was already recorded", call_id)

    async def find(self, conversation_key: str, call_id: str) -> CardPlace | None:
        """Where the call's card is, if any process recorded it."""
        async with self._sessions() as session:
            row = await session.scalar(
                select(ToolCardMessage).where(
                    ToolCardMessage.conversation_key == conversation_key,
                    ToolCardMessage.call_id == call_id,
                )
            )
        return CardPlace(row.tool_name, row.channel_id, row.message_id) if row else None
