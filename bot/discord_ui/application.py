"""The application as an operator sets it up: the invite link and the privileged intents."""

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
        # The threads a member asks for (/otomo thread, THREAD_CONVERSATIONS=answer).
        create_public_threads=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
        use_application_commands=True,
    )


def invite_url(application_id: int) -> str:
    """The OAuth2 URL that adds the application's bot with the permissions above."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(), scopes=SCOPES)


# Application flags (GET /applications/@me): either bit means the toggle is on in the portal.
_MESSAGE_CONTENT = (1 << 18) | (1 << 19)
_GUILD_MEMBERS = (1 << 14) | (1 << 15)


def missing_intents(flags: int) -> list[str]:
    """The privileged-intent toggles Otomo needs that are off, by their name in the portal."""
    missing = []
    if not flags & _MESSAGE_CONTENT:
        missing.append("Message Content Intent")
    if not flags & _GUILD_MEMBERS:
        missing.append("Server Members Intent")
    return missing
