"""What a feature adds to the Discord client: slash commands, message hooks, buttons, posts,
and background services tied to the connection."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

import discord
from apscheduler.schedulers.base import BaseScheduler

from bot.agent.loop import Agent
from bot.discord_ui.answering.conversation import Listener
from bot.discord_ui.client import CogFactory
from bot.discord_ui.posting import ChannelPoster
from bot.members.permissions import Permissions
from bot.members.preferences import UserPreferences
from bot.runtime.clock import Clock
from bot.runtime.metrics import Metrics
from bot.servers.budgets import Budgets
from bot.servers.directory import ServerDirectory
from bot.servers.membership import Membership
from bot.servers.posts import PostFor, PostKind, ScheduledPosts
from bot.settings import Settings
from bot.storage import Database

MessageHook = Callable[[discord.Message], None]
Button = type[discord.ui.DynamicItem[Any]]
# Sets gauges from what they count, before each scrape of /metrics.
Gauges = Callable[[], Awaitable[None]]


class ConnectedService(Protocol):
    """Background work that posts through the client: started once the gateway connects,
    stopped when the bot closes."""

    async def start(self) -> None:
        """Start working (the client can post now)."""
        ...

    async def stop(self) -> None:
        """Stop and let work in flight end."""
        ...


S = TypeVar("S", bound=ConnectedService)


@dataclass(frozen=True)
class Connected:
    """A feature's background service, made with the client, and the gauges it sets."""

    service: ConnectedService
    gauges: Gauges | None = None


@dataclass(frozen=True)
class ScheduledPost:
    """A job that posts to a channel; it runs in one process of the bot only."""

    job_id: str
    schedule: Callable[[BaseScheduler, ChannelPoster], object]


@dataclass
class DiscordBuilder:
    """Collects each feature's Discord part before the client is built."""

    settings: Settings
    clock: Clock
    preferences: UserPreferences
    permissions: Permissions
    # What each server chose: the language of its posts, conversations in threads.
    servers: ServerDirectory
    commands: list[CogFactory] = field(default_factory=list)
    message_hooks: list[MessageHook] = field(default_factory=list)
    posts: list[ScheduledPost] = field(default_factory=list)
    # Each server's scheduled posts (daily weather, tips): their kinds (when each falls due),
    # and by kind's name how to post one, given the poster (bot/servers/posts.py runs them).
    post_kinds: list[PostKind] = field(default_factory=list)
    server_posts: dict[str, Callable[[ChannelPoster], PostFor]] = field(default_factory=dict)
    # Persistent buttons of the features, and what their clicks reach (see buttons.py).
    buttons: list[Button] = field(default_factory=list)
    clicks: dict[str, object] = field(default_factory=dict)
    # What a feature's Discord part may run on: the agent (unattended runs), the scheduler
    # (jobs in every process), the database, budgets, and the servers joined and
    # left (to forget a departed server's rows), the process's metrics.
    agent: Agent | None = None
    scheduler: BaseScheduler | None = None
    database: Database | None = None
    budgets: Budgets | None = None
    membership: Membership | None = None
    metrics: Metrics | None = None
    # Who answers unaddressed questions in listening channels (a feature's Discord part).
    listener: Listener | None = None
    # Background services by name, each made with the client (see run_while_connected).
    connected: dict[str, Callable[[discord.Client], Connected]] = field(default_factory=dict)
    # What sets the features' gauges before each scrape of /metrics (the knowledge base's size).
    gauges: list[Gauges] = field(default_factory=list)

    def add_commands(self, factory: CogFactory) -> None:
        """Add a cog of slash commands, made when the client sets up."""
        self.commands.append(factory)

    def add_message_hook(self, hook: MessageHook) -> None:
        """Show hook every message the bot sees (before it decides whether to answer)."""
        self.message_hooks.append(hook)

    def add_scheduled_post(
        self, job_id: str, schedule: Callable[[BaseScheduler, ChannelPoster], object]
    ) -> None:
        """Schedule posts once the client exists; job_id runs in the lease holder only."""
        self.posts.append(ScheduledPost(job_id, schedule))

    def add_server_post(self, kind: PostKind, make: Callable[[ChannelPoster], PostFor]) -> None:
        """A kind of scheduled post every server may have, on its own schedule."""
        self.post_kinds.append(kind)
        self.server_posts[kind.name] = make

    def scheduled_posts(self) -> ScheduledPosts | None:
        """What makes each server's posts of the kinds registered (None without a database)."""
        if self.database is None:
            return None
        grace = self.settings.weather_notify_grace_minutes
        return ScheduledPosts(
            self.database.sessions, self.clock, self.servers, grace, self.post_kinds
        )

    def listen_with(self, listener: Listener) -> None:
        """Answer questions without a mention where the listener hears them."""
        self.listener = listener

    def add_gauges(self, refresh: Gauges) -> None:
        """Set some gauges before each scrape of /metrics."""
        self.gauges.append(refresh)

    def run_while_connected(
        self,
        name: str,
        make: Callable[[discord.Client], S],
        *,
        gauges: Callable[[S], Awaitable[None]] | None = None,
    ) -> None:
        """A background service made with the client, started when the gateway connects and
        stopped at close; gauges, if any, read it before each scrape of /metrics."""

        def connected(client: discord.Client) -> Connected:
            service = make(client)
            return Connected(service, None if gauges is None else partial(gauges, service))

        self.connected[name] = connected

    def add_buttons(self, *buttons: Button, clicks: tuple[str, object] | None = None) -> None:
        """Persistent buttons (found again after a restart) and, under a name, what their
        clicks reach (ButtonTargets.feature_clicks)."""
        self.buttons.extend(buttons)
        if clicks is not None:
            name, target = clicks
            self.clicks[name] = target
