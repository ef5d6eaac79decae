"""What the fake records for tests to read: requests, uploaded files and interactions."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fakes.discord.world import Json

if TYPE_CHECKING:
    from tests.fakes.discord.state import FakeDiscordState


@dataclass
class UploadedFile:
    """A file part of a multipart request."""

    field: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class RecordedRequest:
    """One REST request the bot made, and what the fake answered."""

    method: str
    path: str  # below the API base, e.g. "/channels/123/messages" (downloads: cdn_downloads)
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    headers: dict[str, str]
    at: float  # time.monotonic()
    status: int = 0
    response: Any = None
    route: str | None = None  # the matched route template; None for unknown routes

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


class InteractionRecord:
    """One interaction the fake dispatched, with the bot's callback, followups and edits."""

    def __init__(
        self, fake: FakeDiscordState, payload: Json, source_message_id: int | None
    ) -> None:
        self._fake = fake
        self.payload = payload
        self.id = int(payload["id"])
        self.token: str = payload["token"]
        self.type: int = payload["type"]
        self.channel_id = int(payload["channel_id"])
        user = payload.get("member", {}).get("user") or payload.get("user") or {}
        self.user_id = int(user["id"])
        self.source_message_id = source_message_id
        self.created_at = time.monotonic()
        self.response: Json | None = None  # the accepted callback body: {"type": ..., "data": ...}
        self.response_status: int | None = None
        self.callback_attempts: list[tuple[int, Json]] = []  # (status served, body) for every try
        self.deadline_missed = False
        self.original_message_id: int | None = None
        self.followups: list[Json] = []
        self.original_edits: list[Json] = []

    def __repr__(self) -> str:
        return f"<InteractionRecord id={self.id} type={self.type} response={self.response_type}>"

    @property
    def response_type(self) -> int | None:
        """The accepted callback type (4, 5, 6, 7, 8 or 9), or None."""
        return None if self.response is None else self.response.get("type")

    async def wait_response(self, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The initial callback body once the bot sent one that the fake accepted."""
        return await self._fake.wait_until(
            lambda: self.response, timeout, what=f"a callback to interaction {self.id}"
        )

    async def wait_followup(self, count: int = 1, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The ``count``-th followup message (1-based)."""
        await self._fake.wait_until(
            lambda: len(self.followups) >= count,
            timeout,
            what=f"{count} followup(s) to interaction {self.id}",
        )
        return self.followups[count - 1]

    async def wait_original_edit(self, count: int = 1, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The ``count``-th edit of ``@original`` (1-based), as the bot sent it."""
        await self._fake.wait_until(
            lambda: len(self.original_edits) >= count,
            timeout,
            what=f"{count} edit(s) of interaction {self.id}'s @original",
        )
        return self.original_edits[count - 1]

    def original_message(self) -> Json | None:
        """The current ``@original`` message, if the response created or targeted one."""
        if self.original_message_id is None:
            return None
        return self._fake.message(self.original_message_id)
