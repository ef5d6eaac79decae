"""The Bot subclass: receives its dependencies, registers persistent buttons and commands."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.answering.conversation import Conversations, Staff
from bot.discord_ui.answering.live import SHUTDOWN_GRACE_SECONDS, BackgroundTasks, LiveRuns
from bot.discord_ui.answering.stopping import StopControl
from bot.discord_ui.application import invite_url
from bot.discord_ui.cards.decisions import ApprovalDesk
from bot.discord_ui.commands.sync import CommandSync
from bot.discord_ui.commands.translator import CatalogTranslator
from bot.discord_ui.failures import tell_failure
from bot.discord_ui.persistent_buttons import ApprovalButton, StopButton
from bot.discord_ui.welcome import Arrivals
from bot.members.permissions import Permissions
from bot.settings import Settings
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

CogFactory = Callable[["OtomoBot"], commands.Cog]

# Seconds without a new GUILD_CREATE after which discord.py fires on_ready (its default is 2 s,
# sized for member chunking, which Otomo does not ask for). A guild arriving later is still
# served; it is only announced as joined instead of available.
GUILD_READY_TIMEOUT = 0.5


def point_discord_py_at(api_base: str, gateway_url: str) -> None:
    """Send discord.py's REST calls and gateway connection to the configured endpoints."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def intents() -> discord.Intents:
    """Guild messages with their content, DMs, and members for permission checks."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = True
    wanted.members = True
    return wanted


class OtomoBot(commands.AutoShardedBot):
    """Otomo's Discord client; everything it uses is handed to it by the composition root.

    It runs the shards SHARD_IDS of SHARD_COUNT (all of them by default, shard 0 of 1 for a
    one-process bot): Discord sends it the events of the guilds on those shards only.
    """

    def __init__(
        self,
        *,
        settings: Settings,
        database_health: DatabaseHealth,
        permissions: Permissions,
        runs: LiveRuns,
        tasks: BackgroundTasks,
        cogs: Sequence[CogFactory] = (),
        on_ready_hooks: Sequence[Callable[[], Awaitable[None]]] = (),
        on_connect_hooks: Sequence[Callable[[], Awaitable[None]]] = (),
        message_hooks: Sequence[Callable[[discord.Message], None]] = (),
        buttons: Sequence[type[discord.ui.DynamicItem[Any]]] = (),
        feature_clicks: Mapping[str, object] | None = None,
        command_sync: CommandSync | None = None,
        arrivals: Arrivals | None = None,
        **options: Any,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            # The client default pings nobody; each send widens it to the requester only.
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            shard_count=settings.shard_plan.count,
            shard_ids=list(settings.shard_plan.ids),
            # Nothing reads the member list: a message or click carries its member and roles.
            # Chunking would download every member of every guild and delay on_ready.
            chunk_guilds_at_startup=options.pop("chunk_guilds_at_startup", False),
            guild_ready_timeout=options.pop("guild_ready_timeout", GUILD_READY_TIMEOUT),
            **options,
        )
        self.settings = settings
        self.database_health = database_health
        self.permissions = permissions
        self.tasks = tasks
        self.runs = runs
        self._cog_factories = list(cogs)
        self.arrivals = arrivals
        self._on_ready_hooks = list(on_ready_hooks)
        self._on_connect_hooks = list(on_connect_hooks)
        self._connected_once = False
        self._syncing: asyncio.Future[None] | None = None
        self._message_hooks = list(message_hooks)
        self._buttons = list(buttons)
        self.feature_clicks = dict(feature_clicks or {})
        self._command_sync = command_sync
        self.tree.error(self._on_app_command_error)
        self._ready_once = False

    def answer_with(
        self,
        staff: Staff,
        conversations: Conversations,
        approval_clicks: ApprovalDesk,
        stop_clicks: StopControl,
    ) -> None:
        """Take the answering parts the composition root built around this client (they post
        through it), before it logs in."""
        # What answering needs; a feature's unattended runs draw their cards through it too.
        self.staff = staff
        self.conversations = conversations
        # What the persistent buttons reach (see buttons.ButtonTargets).
        self.approval_clicks = approval_clicks
        self.stop_clicks = stop_clicks

    async def _on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """A slash command failed: a sentence for whoever ran it, unless its cog answered."""
        binding = getattr(interaction.command, "binding", None)
        if isinstance(binding, commands.Cog) and binding.has_app_command_error_handler():
            return  # the cog's own handler sent its sentence
        if isinstance(error, app_commands.CheckFailure):
            return  # refused by a check, which said why
        await tell_failure(interaction, getattr(error, "original", error), self.database_health)

    async def setup_hook(self) -> None:
        """Register persistent buttons and cogs, say where to invite the bot."""
        self.add_dynamic_items(ApprovalButton, StopButton, *self._buttons)
        await self.tree.set_translator(CatalogTranslator())
        for factory in self._cog_factories:
            await self.add_cog(factory(self))
        if self.application_id is not None:
            log.info("Invite Otomo to a server: %s", invite_url(self.application_id))

    async def sync_commands(self) -> None:
        """Sync the commands when they changed since the last sync (see command_sync)."""
        if self._command_sync is None:
            return
        try:
            await self._command_sync.sync_if_changed(self, self.tree)
        except discord.HTTPException as exc:
            log.warning(
                "Could not sync slash commands (%s %s); they may be out of date",
                exc.status,
                exc.text,
            )
        except Exception as exc:
            # The database is checked before connecting; a failure here must not stop the bot.
            log.warning(
                "Could not sync slash commands (%s: %s); they may be out of date",
                type(exc).__name__,
                exc,
            )

    async def on_connect(self) -> None:
        """The gateway said READY (guilds still arriving): REST works, reminders can go out.

        Runs the connect hooks once; on_ready comes guild_ready_timeout later.
        """
        if self._connected_once:
            return
        self._connected_once = True
        # Once connected, not before: the sync's requests and hashing overlap the guilds'
        # arrival instead of delaying the connection. on_ready waits for it.
        self._syncing = asyncio.ensure_future(self.sync_commands())
        await _run_hooks(self._on_connect_hooks)

    async def on_ready(self) -> None:
        """Log who we are; run start-up hooks once (not on every reconnect)."""
        assert self.user is not None
        log.info("Logged in as %s (id %s) in %d guilds", self.user, self.user.id, len(self.guilds))
        if self._ready_once:
            return
        self._ready_once = True
        if self._syncing is not None:
            # Ready means the slash commands are there too (sync_commands never raises).
            await self._syncing
        if self.arrivals is not None:
            try:
                await self.arrivals.present(list(self.guilds))
            except Exception as exc:
                # A database that is away is said once by its health, without a traceback.
                if not self.database_health.noticed(exc):
                    log.warning("Could not record the servers seen at start", exc_info=True)
        await _run_hooks(self._on_ready_hooks)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Invited to a server: record it and welcome it once."""
        if self.arrivals is not None:
            await self.arrivals.joined(guild)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server: its data is deleted after SERVER_DATA_RETENTION_DAYS."""
        if self.arrivals is not None:
            await self.arrivals.left(guild)

    async def on_message(self, message: discord.Message) -> None:
        """Feed the message hooks, then answer it if it is for us (no prefix commands)."""
        for hook in self._message_hooks:
            try:
                hook(message)
            except Exception:
                log.exception("A message hook failed on message %s", message.id)
        await self.conversations.on_message(message)

    async def close(self) -> None:
        """End live runs as a stop (their partial answers kept and shown as stopped), then
        close the connection; a run that cannot finish within the grace is cancelled."""
        self.runs.stop_all("shutdown")
        if self._syncing is not None and not self._syncing.done():
            self._syncing.cancel()  # closing before ready: the next start syncs
        await self.tasks.close(grace=SHUTDOWN_GRACE_SECONDS)
        await super().close()


async def _run_hooks(hooks: Sequence[Callable[[], Awaitable[None]]]) -> None:
    for hook in hooks:
        try:
            await hook()
        except Exception:
            log.exception("A start-up task failed; the bot keeps running")
