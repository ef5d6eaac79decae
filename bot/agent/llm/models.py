"""Which model a server's runs use: LLM_MODEL, or what its admins chose with /model."""

from __future__ import annotations

import logging

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock, FreshFor
from bot.settings import Settings
from bot.storage.model_choice import GuildModel

log = logging.getLogger(__name__)


class UnknownModel(ValueError):
    """The model is not one of LLM_MODEL / LLM_MODELS; the message lists the choices."""


class ModelChoice:
    """Reads and stores each server's model; every process reads the same rows."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Clock, settings: Settings
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self._settings = settings
        # Read at every mention: kept while fresh; a choice made here is seen at once.
        self._chosen: FreshFor[int, str | None] = FreshFor(
            settings.server_settings_refresh_seconds, clock=lambda: clock.now().timestamp()
        )

    @property
    def default(self) -> str:
        """LLM_MODEL: DMs, the console and servers that chose nothing use it."""
        return self._settings.llm_model

    @property
    def choices(self) -> list[str]:
        """What admins may pick: LLM_MODEL first, then LLM_MODELS."""
        return list(dict.fromkeys([self._settings.llm_model, *self._settings.llm_models]))

    async def current(self, guild_id: int | None) -> str:
        """The server's model; a choice no longer offered falls back to LLM_MODEL."""
        if guild_id is None:
            return self.default
        chosen = await self._chosen.get(guild_id, lambda: self._read(guild_id))
        if chosen is None:
            return self.default
        if chosen not in self.choices:
            log.warning(
                "Server %s chose %s, which LLM_MODELS no longer offers; using %s",
                guild_id,
                chosen,
                self.default,
            )
            return self.default
        return chosen

    async def _read(self, guild_id: int) -> str | None:
        async with self._sessions() as session:
            row = await session.get(GuildModel, guild_id)
        return None if row is None else row.model

    async def choose(self, guild_id: int, model: str, user_id: int) -> None:
        """Store the server's model (one of the choices) for every later run."""
        if model not in self.choices:
            raise UnknownModel(
                f"{model} is not offered. Choose one of: {', '.join(self.choices)} "
                "(an operator adds models with LLM_MODELS)."
            )
        values = {"model": model, "chosen_by": user_id, "chosen_at": self._clock.now()}
        try:
            await self._store(guild_id, values)
        finally:
            self._chosen.forget(guild_id)

    async def _store(self, guild_id: int, values: dict[str, object]) -> None:
        async with self._sessions() as session, session.begin():
            changed = await session.execute(
                update(GuildModel).where(GuildModel.guild_id == guild_id).values(**values)
            )
            if getattr(changed, "rowcount", 0):
                return
        try:
            async with self._sessions() as session, session.begin():
                session.add(GuildModel(guild_id=guild_id, **values))
        except IntegrityError:
            # Another process inserted the row first: the newest choice still wins.
            async with self._sessions() as session, session.begin():
                await session.execute(
                    update(GuildModel).where(GuildModel.guild_id == guild_id).values(**values)
                )
