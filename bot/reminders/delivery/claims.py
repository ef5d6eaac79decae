"""What a claim on a reminder row is, and what a delivery hands back to be recorded."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime

from bot.storage.reminders import Reminder


def default_worker_id() -> str:
    """host:pid:random, unique per process even when containers share a pid."""
    return f"{socket.gethostname()[:24]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


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
