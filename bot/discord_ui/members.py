"""Who is acting, read out of Discord's objects into the plain Actor the permission rules take."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord

from bot.members.permissions import Actor


def actor_of(
    user: discord.abc.User | discord.Member,
    channel_permissions: discord.Permissions | None = None,
) -> Actor:
    """The actor behind a message or click; channel_permissions are what Discord computed for
    the channel (an interaction carries them), else the member's server-wide ones count."""
    if not isinstance(user, discord.Member):
        return Actor(user.id)
    server = user.guild_permissions
    here = channel_permissions or server
    return Actor(
        user_id=user.id,
        guild_id=user.guild.id,
        role_ids=frozenset(role.id for role in user.roles),
        # Either set is Discord's own computation; Administrator implies the others.
        administrator=server.administrator or here.administrator,
        manage_guild=server.manage_guild or here.manage_guild,
        manage_messages=here.manage_messages or here.administrator,
    )


def actor_of_interaction(interaction: discord.Interaction[Any]) -> Actor:
    """The actor of a slash command or button click (with whether they own the application)."""
    actor = actor_of(interaction.user, interaction.permissions)
    if is_application_owner(interaction.client, interaction.user.id):
        return replace(actor, application_owner=True)
    return actor


def is_application_owner(client: discord.Client, user_id: int) -> bool:
    """Whether the user owns the Discord application, or is on the team that does."""
    application = client.application  # read by discord.py at login
    if application is None:
        return False
    if application.team is not None:
        return any(member.id == user_id for member in application.team.members)
    return application.owner.id == user_id
