"""What a feature adds to the Discord client: slash commands, message hooks, buttons, posts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
from bot.servers.posts import PostFor
from bot.settings import Settings
from bot.storage import Database

MessageHook = Callable[[discord.Message], None]
Button = type[discord.ui.DynamicItem[Any]]


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
    # Each server's scheduled posts by kind (daily weather, tips): how to post one, given
    # the poster (bot/servers/posts.py decides when).
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

    def add_server_post(self, kind: str, make: Callable[[ChannelPoster], PostFor]) -> None:
        """A kind of scheduled post every server may have, on its own schedule."""
        self.server_posts[kind] = make

    def listen_with(self, listener: Listener) -> None:
        """Answer questions without a mention where the listener hears them."""
        self.listener = listener

    def add_buttons(self, *buttons: Button, clicks: tuple[str, object] | None = None) -> None:
        """Persistent buttons (found again after a restart) and, under a name, what their
        clicks reach (ButtonTargets.feature_clicks)."""
        self.buttons.extend(buttons)
        if clicks is not None:
            name, target = clicks
            self.clicks[name] = target
