"""Who a reminder is for: the asker (as always), another member of the server (who must accept
it), or a channel the asker may post in. Finding members and permissions is Discord's part."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bot.reminders.errors import InvalidReminder


@dataclass(frozen=True)
class Member:
    """A member of the server as the reminder names them."""

    user_id: int
    name: str
    bot: bool = False


@dataclass(frozen=True)
class Channel:
    """A channel of the server, and whether the asker may send messages in it."""

    channel_id: int
    asker_may_post: bool


@dataclass(frozen=True)
class Target:
    """Where a new reminder goes: a member other than the asker, or a channel (else neither)."""

    member: Member | None = None
    channel: Channel | None = None


class RecipientFinder(Protocol):
    """Looks members and channels up in a server (implemented by the Discord layer)."""

    async def member(self, guild_id: int, text: str) -> Member | None:
        """The member `text` names (`@hana`, `<@123>`, a name or an id), or None."""
        ...

    async def channel(self, guild_id: int, user_id: int, text: str) -> Channel | None:
        """The channel `text` names (`#general`, `<#123>`, a name or an id), or None."""
        ...


class Recipients:
    """The seam to Discord for reminders for others: the Discord part attaches its finder;
    without one (the console), a reminder is for the asker only."""

    def __init__(self) -> None:
        self.finder: RecipientFinder | None = None

    def attach(self, finder: RecipientFinder) -> None:
        """Use finder to look members and channels up."""
        self.finder = finder

    async def target(
        self, arguments: dict[str, Any], guild_id: int | None, asker_id: int
    ) -> Target:
        """The target a create_reminder call names; InvalidReminder tells the model what is
        wrong (not found, not allowed, a bot)."""
        for_member = str(arguments.get("for_member") or "").strip()
        to_channel = str(arguments.get("to_channel") or "").strip()
        if not for_member and not to_channel:
            return Target()
        if for_member and to_channel:
            raise InvalidReminder(
                "give for_member or to_channel, not both: a reminder goes to one place"
            )
        if guild_id is None or self.finder is None:
            raise InvalidReminder(
                "reminders for someone else or a channel work in a server only: tell the user"
            )
        if to_channel:
            channel = await self.finder.channel(guild_id, asker_id, to_channel)
            if channel is None:
                raise InvalidReminder(
                    f"there is no channel {to_channel!r} in this server: ask the user which one"
                )
            if not channel.asker_may_post:
                raise InvalidReminder(
                    f"the user may not send messages in <#{channel.channel_id}>, so they cannot "
                    "set a reminder there: tell them so"
                )
            return Target(channel=channel)
        member = await self.finder.member(guild_id, for_member)
        if member is None:
            raise InvalidReminder(
                f"there is no member {for_member!r} in this server: ask the user who they mean"
            )
        if member.bot:
            raise InvalidReminder("bots cannot be reminded: tell the user")
        if member.user_id == asker_id:
            return Target()
        return Target(member=member)
