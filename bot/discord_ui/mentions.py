"""Who a message may ping: the one person it is for, and never @everyone, @here or a role."""

from __future__ import annotations

import discord


def only(user_id: int) -> discord.AllowedMentions:
    """Allowed mentions that can ping user_id and nobody else, whatever the text says."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)]
    )
