"""Otomo running in this process against the fake Discord and the scripted LLM."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from bot.app.discord_app import App, build_app
from bot.discord_ui.cards.embed import CardState, state_line
from bot.i18n import LANGUAGES
from bot.reminders.delivery.engine import DeliveryEngine
from bot.runtime.clock import Clock
from bot.settings import Settings, load_settings
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM

# How long the client waits after the last GUILD_CREATE before on_ready (default 2 s).
READY_DELAY = 0.05
# Longest a test waits for the bot to finish answering.
IDLE_LIMIT = 15.0
# Any event-loop step longer than this after start-up fails the test (bot/runtime/worker.py).
SLOW_STEP_MS = 100


@dataclass
class BotDatabase:
    """The database the bots of the running test use (tests/e2e/conftest.py sets it per test,
    so every end-to-end test runs on SQLite and on PostgreSQL)."""

    url: str | None = None


BOT_DATABASE = BotDatabase()


def bot_environment(
    fake: FakeDiscord, llm: ScriptedLLM, tmp_path: Path, **overrides: Any
) -> dict[str, str]:
    """Settings, as environment variables, that point every client at the fakes.

    The knowledge-base folder is created (a start refuses a missing one); the model check's
    tiny request is off, since each test scripts its model's every answer (tests/app
    turn it on).
    """
    (tmp_path / "knowledge_base").mkdir(exist_ok=True)
    environ = {
        "DISCORD_TOKEN": fake.token or "fake-bot-token",
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "LLM_MODEL": "openai/test-model",
        "LLM_API_BASE": llm.api_base,
        "LLM_API_KEY": "test-key",
        "LLM_NUM_RETRIES": "0",
        "LLM_CHECK_ON_START": "false",
        "DATABASE_URL": BOT_DATABASE.url or f"sqlite+aiosqlite:///{tmp_path / 'otomo.db'}",
        "KNOWLEDGE_BASE_DIR": str(tmp_path / "knowledge_base"),
        "WEATHER_API_BASE": "http://127.0.0.1:9/v1",
        "GEOCODING_API_BASE": "http://127.0.0.1:9/v1",
        "LOG_LEVEL": "INFO",
        "LOOP_SLOW_STEP_MS": str(SLOW_STEP_MS),
    }
    environ.update({k: str(v) for k, v in overrides.items()})
    return environ


@dataclass
class RunningBot:
    """A started bot and the fakes around it."""

    app: App
    fake: FakeDiscord
    llm: ScriptedLLM
    settings: Settings

    async def mention(
        self,
        text: str,
        *,
        user_id: int = HANA_ID,
        channel_id: int = GENERAL_CHANNEL_ID,
        **kwargs: Any,
    ) -> Json:
        """A member mentions the bot; return the message they sent."""
        return await self.fake.send_user_message(
            channel_id, user_id, f"<@{self.fake_bot_id}> {text}", mention_bot=True, **kwargs
        )

    async def ask(self, text: str, **kwargs: Any) -> tuple[Json, list[Json]]:
        """Mention the bot, wait for its answer to finish; return the mention and the bot's
        messages posted after it. ``channel_id=`` may be a channel of any guild of the world
        (``World.two_guilds()``), ``user_id=`` any member of that guild."""
        channel_id = kwargs.get("channel_id", GENERAL_CHANNEL_ID)
        sent = await self.mention(text, **kwargs)
        await self.fake.wait_for_message(channel_id, after=int(sent["id"]))
        await self.idle()
        return sent, self.bot_messages_after(sent, channel_id)

    async def ask_dm(self, text: str, *, user_id: int = HANA_ID) -> tuple[Json, list[Json]]:
        """A person writes to the bot in DMs; wait for the whole answer, return both."""
        channel_id = self.fake.dm_channel_id(user_id)
        sent = await self.fake.send_dm_from_user(user_id, text)
        await self.fake.wait_for_message(channel_id, after=int(sent["id"]))
        await self.idle()
        return sent, self.bot_messages_after(sent, channel_id)

    def bot_messages_after(self, sent: Json, channel_id: int = GENERAL_CHANNEL_ID) -> list[Json]:
        """The bot's messages in channel_id newer than sent, oldest first."""
        return [
            m
            for m in self.fake.messages(channel_id)
            if int(m["id"]) > int(sent["id"]) and m["author"]["id"] == str(self.fake_bot_id)
        ]

    @property
    def reminders(self) -> DeliveryEngine:
        """The reminders' delivery engine of this bot (a service of the feature's own)."""
        return cast(DeliveryEngine, self.app.connected["reminders"].service)

    @property
    def fake_bot_id(self) -> int:
        """The bot's user id in the fake world."""
        assert self.app.bot.user is not None
        return self.app.bot.user.id

    async def idle(self) -> None:
        """Wait until no answer is running."""
        async with asyncio.timeout(IDLE_LIMIT):
            await self.app.bot.tasks.wait_idle()


@asynccontextmanager
async def running_bot(
    tmp_path: Path,
    *,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    clock: Clock | None = None,
    **overrides: Any,
) -> AsyncIterator[RunningBot]:
    """Build the app as `python -m bot run` does, connect it, and close it afterwards."""
    settings = load_settings(
        environ=bot_environment(fake, llm, tmp_path, **overrides), env_file=None
    )
    app = await build_app(settings, clock, guild_ready_timeout=READY_DELAY)
    app.core.features.start()
    # With a test clock, jobs armed at "due times" would fire on real time (maybe at once, in a
    # loop): keep the scheduler paused and let tests run jobs themselves.
    app.core.scheduler.start(paused=clock is not None)
    runner: asyncio.Task[None] | None = None
    await app.operations.start_server()
    try:
        async with app.bot:
            await app.bot.login(settings.require_discord_token())
            runner = asyncio.create_task(app.bot.connect())
            await asyncio.wait_for(app.bot.wait_until_ready(), 10)
            # The first bot of a test process also waits for litellm's import (seconds).
            await asyncio.wait_for(app.started.wait(), 60)
            yield RunningBot(app, fake, llm, settings)
            await app.bot.close()
            await runner
    finally:
        if runner is not None and not runner.done():
            runner.cancel()
        slow_steps = list(app.core.loop_watch.slow_steps) if app.core.loop_watch else []
        await app.close()
    assert not slow_steps, f"event-loop steps over {SLOW_STEP_MS} ms after start-up: {slow_steps}"


def custom_ids(message: Json) -> list[str]:
    """Every component custom_id on a message, in order."""
    found: list[str] = []
    for row in message.get("components") or []:
        for component in row.get("components") or []:
            if "custom_id" in component:
                found.append(component["custom_id"])
    return found


def approval_card(fake: FakeDiscord, channel_id: int = GENERAL_CHANNEL_ID) -> Json | None:
    """The newest message in the channel that carries approval buttons."""
    for message in reversed(fake.messages(channel_id)):
        if any(cid.startswith("apv:") for cid in custom_ids(message)):
            return message
    return None


def card_state(message: Json) -> str:
    """The state line of a tool card's embed."""
    return str(message["embeds"][0]["description"])


def card_is(state: CardState, message: Json) -> bool:
    """Whether a tool card shows state (its line in the one language it is written in)."""
    return card_state(message) in {state_line(state, language) for language in LANGUAGES}
