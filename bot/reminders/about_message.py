"""Reminders about a message ("Remind me about this"): the time a member typed in the form, read
the way a mention's reminder time is, and the message's first line as what to remind of."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from bot.i18n import Language
from bot.reminders.display import ReminderView
from bot.reminders.errors import UnreadableWhen
from bot.reminders.instructions import reminder_instructions
from bot.reminders.service import ReminderService
from bot.runtime.clock import Clock
from bot.schedule.times import UnreadableTime, local_iso, parse_local_time
from bot.text.clip import clip

# The model's answer to (system, user) for a member of a server: their budgets, the call log.
Complete = Callable[[str, str, int | None, int], Awaitable[str]]

# How much of the message's first line the reminder quotes (a notification shows ~120).
QUOTE_CHARS = 80
# A member's note and typed time are short; longer input is cut, not refused.
NOTE_CHARS = 200
WHEN_CHARS = 100
NOT_A_TIME = "NONE"
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")

_READ_TIME = f"""\
A member typed, in a form, when they want to be reminded about a message. Answer with only \
the local ISO 8601 date and time it means (e.g. 2026-12-01T09:00), worked out as above, or \
{NOT_A_TIME} when it names no time you can work out."""


@dataclass(frozen=True)
class MessageAbout:
    """The message a reminder is about, as plain data."""

    guild_id: int | None
    channel_id: int
    message_id: int
    text: str
    file_names: tuple[str, ...] = ()

    @property
    def link(self) -> str:
        """The message's jump link."""
        guild = self.guild_id if self.guild_id is not None else "@me"
        return f"https://discord.com/channels/{guild}/{self.channel_id}/{self.message_id}"


def first_line(message: MessageAbout) -> str:
    """The message's first line with text, clipped; a file's name when it has no text."""
    line = next((line.strip() for line in message.text.splitlines() if line.strip()), "")
    if not line and message.file_names:
        line = f"📎 {message.file_names[0]}"
    return clip(line, QUOTE_CHARS, flatten=True)


def reminder_text(message: MessageAbout, note: str, language: Language) -> str:
    """What the reminder says: the member's note, if any, then the quoted first line."""
    line = first_line(message) or "…"
    quote = f"「{line}」" if language == "ja" else f"“{line}”"
    note = clip(note.strip(), NOTE_CHARS, flatten=True)
    return f"{note} {quote}" if note else quote


class MessageReminders:
    """Creates a member's reminder about a message through the reminder service (its checks
    and per-member limit), reading a natural time with the model as a mention would."""

    def __init__(self, reminders: ReminderService, complete: Complete, clock: Clock) -> None:
        self._reminders = reminders
        self._complete = complete
        self._clock = clock

    async def read_when(self, typed: str, tz: ZoneInfo, guild_id: int | None, user_id: int) -> str:
        """The local ISO time the member means; UnreadableWhen when there is none.

        An ISO time is taken as it is; anything else is read by the model with the reminder
        handler's own instructions, so 「明日の9時」 means here what it means in a mention.
        """
        text = clip(typed.strip(), WHEN_CHARS, flatten=True)
        if not text:
            raise UnreadableWhen("no time was given")
        try:
            parse_local_time(text, tz)
        except UnreadableTime:
            pass
        else:
            return text
        now = self._clock.now()
        system = f"{reminder_instructions(now, tz)}\nNow: {local_iso(now, tz)}\n\n{_READ_TIME}"
        answer = await self._complete(system, text, guild_id, user_id)
        found = _ISO.search(answer)
        if found is None:
            raise UnreadableWhen(f"{text!r} names no time")
        return found.group(0)

    async def create(
        self,
        *,
        user_id: int,
        user_name: str,
        message: MessageAbout,
        when: str,
        note: str,
        tz: ZoneInfo,
        language: Language,
    ) -> ReminderView:
        """The member's new reminder, posted in the message's channel with a link to it."""
        iso = await self.read_when(when, tz, message.guild_id, user_id)
        return await self._reminders.create(
            user_id=user_id,
            user_display_name=user_name,
            guild_id=message.guild_id,
            channel_id=message.channel_id,
            when=iso,
            content=reminder_text(message, note, language),
            tz=tz,
            origin_message_id=message.message_id,
            language=language,
        )
