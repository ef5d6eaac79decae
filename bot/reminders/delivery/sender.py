"""The seam to Discord: what a delivery carries; failures are the shared SendError kinds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from bot.schedule.times import duration_text

# Below this a reminder counts as on time and its message says nothing about lateness.
LATE_AFTER = timedelta(minutes=1)

# What a delivery posts: the reminder; for a reminder for another member, first the request
# for their consent, or (their time passed without it) word to the asker that it was not sent.
REMIND = "remind"
ASK = "ask"
EXPIRE = "expire"


@dataclass(frozen=True)
class ReminderDelivery:
    """Everything needed to post one occurrence of a reminder."""

    reminder_id: int
    occurrence: int
    guild_id: int | None
    channel_id: int
    user_id: int
    user_display_name: str
    content: str
    due_at: datetime
    due_text: str
    late_by: timedelta | None
    origin_message_id: int | None
    repeat_text: str | None
    # Deterministic per occurrence, so a resend after a crash is dropped by Discord.
    nonce: str
    attempt: int
    # The language of the message that asked for it; None: the server's default.
    language: str | None = None
    repeat_text_en: str | None = None
    # The member it is for, when not the asker (user_id); a post to another channel pings no one.
    target_user_id: int | None = None
    to_channel: bool = False
    step: str = REMIND

    @property
    def recipient_id(self) -> int:
        """Who the reminder is for: the target member, else the asker."""
        return self.asker_id if self.target_user_id is None else self.target_user_id

    @property
    def asker_id(self) -> int:
        """Who set the reminder."""
        return self.user_id

    @property
    def late_text(self) -> str | None:
        """`5分遅れ` when the reminder is late, else None."""
        return None if self.late_by is None else f"{duration_text(self.late_by)}遅れ"

    @property
    def origin_url(self) -> str | None:
        """A jump link to the message that asked for the reminder."""
        if self.origin_message_id is None:
            return None
        guild = self.guild_id if self.guild_id is not None else "@me"
        return f"https://discord.com/channels/{guild}/{self.channel_id}/{self.origin_message_id}"

    def text(self) -> str:
        """A plain rendering: mention, content and a note line (the Discord layer may do more)."""
        notes = [f"{self.due_text} の予定"]
        if self.late_text:
            notes.append(self.late_text)
        if self.repeat_text:
            notes.append(self.repeat_text)
        return f"<@{self.user_id}> ⏰ {self.content}\n-# {' ・ '.join(notes)}"


def delivery_nonce(reminder_id: int, occurrence: int, step: str = REMIND) -> str:
    """The Discord nonce of one occurrence, or of a consent step (at most 25 characters)."""
    if step == ASK:
        return f"r{reminder_id}a"
    if step == EXPIRE:
        return f"r{reminder_id}x"
    return f"r{reminder_id}o{occurrence}"


class ReminderSender(Protocol):
    """Posts a reminder; implemented by the Discord layer."""

    async def send(self, delivery: ReminderDelivery) -> int:
        """Post it (delivery.step says what) and return the Discord message id; raise
        RetryableSendError (does not count as an attempt) or PermanentSendError (counts)."""
        ...


# Awaited once when a reminder fails for good; the Discord layer DMs the owner.
OwnerFailureNotifier = Callable[[ReminderDelivery, str], Awaitable[None]]
