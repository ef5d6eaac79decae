"""What a claim on a reminder row is, and what a delivery hands back to be recorded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.reminders.table import Reminder


@dataclass(frozen=True)
class Claim:
    """A row this process owns until the lease runs out; token identifies the claim."""

    row: Reminder
    token: str


@dataclass(frozen=True)
class Posted:
    """Discord accepted the claimed occurrence as message_id at `at`."""

    claim: Claim
    message_id: int
    at: datetime
