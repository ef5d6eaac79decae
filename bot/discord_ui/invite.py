"""The invite link an operator opens to add the bot to a server, with the permissions it uses."""

from __future__ import annotations

import discord

# Scopes: the bot user, and slash commands in the servers it joins.
SCOPES = ("bot", "applications.commands")


def bot_permissions() -> discord.Permissions:
    """What Otomo does in a channel: read, answer (also in threads), embeds, files, commands."""
    return discord.Permissions(
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
        use_application_commands=True,
    )


def invite_url(application_id: int) -> str:
    """The OAuth2 URL that adds the application's bot with the permissions above."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(), scopes=SCOPES)
