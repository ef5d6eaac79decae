"""REST routes of interaction responses and their webhooks (followups, ``@original``).

Discord's interaction rules apply here: one initial response, within the deadline; followups
only after it; webhook tokens that expire.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence

from tests.fakes.discord.messages import MessageStore
from tests.fakes.discord.records import InteractionRecord, UploadedFile
from tests.fakes.discord.rest import RestCall, Route
from tests.fakes.discord.rules import RestReply, check_callback_type, error_reply, validate_message
from tests.fakes.discord.world import (
    CALLBACK_CHANNEL_MESSAGE,
    CALLBACK_DEFERRED_CHANNEL_MESSAGE,
    CALLBACK_DEFERRED_UPDATE_MESSAGE,
    CALLBACK_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    INTERACTION_APPLICATION_COMMAND,
    MESSAGE_CHAT_INPUT_COMMAND,
    MESSAGE_DEFAULT,
    Json,
)

INTERACTION_ROUTES: tuple[Route, ...] = (
    ("POST", "/interactions/{interaction_id}/{token}/callback", "_interaction_callback"),
    ("POST", "/webhooks/{app_id}/{token}", "_create_followup"),
    ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", "_get_webhook_message"),
    ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", "_edit_webhook_message"),
    ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", "_delete_webhook_message"),
)


class InteractionRoutes(MessageStore):
    """The bot's answers to interactions: the callback, then followups and edits by webhook."""

    # -- the initial response --------------------------------------------------------------

    async def _interaction_callback(self, call: RestCall) -> RestReply:
        record = self._interactions_by_id.get(int(call.params["interaction_id"]))
        body = call.json
        if record is None or record.token != call.params["token"]:
            return error_reply(404, 10062)
        reply = await self._accept_callback(record, body, call.files)
        record.callback_attempts.append((reply.status, copy.deepcopy(body)))
        if reply.status < 300 and call.request.query.get("with_response") not in (
            "1",
            "true",
            "True",
        ):
            reply = RestReply(204)
        if record.response is not None and record.response_status is None:
            record.response_status = reply.status
        return reply

    async def _accept_callback(
        self, record: InteractionRecord, body: Json, files: Sequence[UploadedFile]
    ) -> RestReply:
        """Apply an initial response, enforcing "only once" and the 3-second deadline."""
        if record.response is not None:
            return error_reply(400, 40060)
        late_by = time.monotonic() - record.created_at - self.interaction_deadline
        if late_by > 0:
            # Discord forgets an unacknowledged interaction after 3 s: the token is dead.
            if not record.deadline_missed:
                record.deadline_missed = True
                self.deadline_misses.append(record)
            return error_reply(404, 10062)
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        error = check_callback_type(kind, record.type, record.source_message_id)
        if error is not None:
            return error
        if kind in (CALLBACK_CHANNEL_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            error = validate_message(data, files, creating=kind == CALLBACK_CHANNEL_MESSAGE)
            if error is not None:
                return error
        message: Json | None = None
        if kind in (CALLBACK_CHANNEL_MESSAGE, CALLBACK_DEFERRED_CHANNEL_MESSAGE):
            ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            if kind == CALLBACK_DEFERRED_CHANNEL_MESSAGE:
                # "Otomo is thinking...": an empty loading message until @original is edited.
                created = self._bot_message(
                    record.channel_id,
                    {},
                    [],
                    flags=FLAG_LOADING | (FLAG_EPHEMERAL if ephemeral else 0),
                    extra=self._interaction_extra(record),
                )
            else:
                created = self._bot_message(
                    record.channel_id,
                    data,
                    files,
                    msg_type=self._reply_type(record),
                    extra=self._interaction_extra(record),
                )
            if isinstance(created, RestReply):
                return created
            message = created
            self._store(message, visible=not ephemeral)
            record.original_message_id = int(message["id"])
        elif kind in (CALLBACK_DEFERRED_UPDATE_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            record.original_message_id = record.source_message_id
        record.response = copy.deepcopy(body)
        self._notify()
        if message is not None and self._is_visible(int(message["id"])):
            await self.dispatch("MESSAGE_CREATE", message)
        if kind == CALLBACK_UPDATE_MESSAGE and record.source_message_id in self._messages:
            message = await self._edit_stored(self._messages[record.source_message_id], data, files)
        interaction: Json = {"id": str(record.id), "type": record.type}
        if record.original_message_id is not None:
            stored = self._messages.get(record.original_message_id, {})
            interaction.update(
                response_message_id=str(record.original_message_id),
                response_message_loading=bool(int(stored.get("flags") or 0) & FLAG_LOADING),
                response_message_ephemeral=bool(int(stored.get("flags") or 0) & FLAG_EPHEMERAL),
            )
        result: Json = {"interaction": interaction}
        if message is not None:
            result["resource"] = {"type": kind, "message": copy.deepcopy(message)}
        return RestReply(200, result)

    def _reply_type(self, record: InteractionRecord) -> int:
        return (
            MESSAGE_CHAT_INPUT_COMMAND
            if record.type == INTERACTION_APPLICATION_COMMAND
            else MESSAGE_DEFAULT
        )

    def _interaction_extra(self, record: InteractionRecord) -> Json:
        """Fields Discord puts on messages that answer an interaction."""
        user = self._user_or_fail(record.user_id)
        return {
            "webhook_id": str(self.world.bot.id),
            "application_id": str(self.world.bot.id),
            "interaction_metadata": {
                "id": str(record.id),
                "type": record.type,
                "user": user.payload(),
                "authorizing_integration_owners": record.payload.get(
                    "authorizing_integration_owners", {}
                ),
            },
        }

    # -- webhooks --------------------------------------------------------------------------

    def _webhook_record(self, call: RestCall) -> InteractionRecord | RestReply:
        """The interaction a webhook token belongs to, or Discord's error for a bad/expired one."""
        if int(call.params["app_id"]) != self.world.bot.id:
            return error_reply(404, 10015)
        record = next((r for r in self.interactions if r.token == call.params["token"]), None)
        if record is None:
            return error_reply(404, 10015)
        if time.monotonic() - record.created_at > self.interaction_token_ttl:
            return error_reply(401, 50027)
        return record

    def _webhook_message_id(self, record: InteractionRecord, raw: str) -> int | None:
        """Resolve ``@original`` or a followup id to a message of this interaction."""
        if raw == "@original":
            return record.original_message_id
        mine = {int(f["id"]) for f in record.followups}
        if record.original_message_id is not None:
            mine.add(record.original_message_id)
        return int(raw) if raw.isdigit() and int(raw) in mine else None

    async def _create_followup(self, call: RestCall) -> RestReply:
        record = self._webhook_record(call)
        if isinstance(record, RestReply):
            return record
        if record.response is None:
            # Followups need an initial response; before it the webhook does not exist yet.
            return error_reply(404, 10015)
        body = call.json
        error = validate_message(body, call.files, creating=True)
        if error is not None:
            return error
        original = self._messages.get(record.original_message_id or 0)
        if (
            record.response_type == CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and int(original.get("flags") or 0) & FLAG_LOADING
        ):
            # The first followup after a deferred reply replaces "thinking...", keeping its
            # ephemerality: defer(ephemeral=True) + followup.send() is ephemeral, and vice versa.
            message = await self._edit_stored(original, body, call.files)
        else:
            flags = int(body.get("flags") or 0)
            created = self._bot_message(
                record.channel_id,
                body,
                call.files,
                msg_type=self._reply_type(record),
                flags=flags,
                extra=self._interaction_extra(record),
            )
            if isinstance(created, RestReply):
                return created
            visible = not flags & FLAG_EPHEMERAL
            self._store(created, visible=visible)
            if visible:
                await self.dispatch("MESSAGE_CREATE", created)
            message = copy.deepcopy(created)
        record.followups.append(message)
        self._notify()
        if call.request.query.get("wait") in ("1", "true", "True"):
            return RestReply(200, message)
        return RestReply(204)

    async def _get_webhook_message(self, call: RestCall) -> RestReply:
        record = self._webhook_record(call)
        if isinstance(record, RestReply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return error_reply(404, 10008)
        return RestReply(200, copy.deepcopy(self._messages[message_id]))

    async def _edit_webhook_message(self, call: RestCall) -> RestReply:
        record = self._webhook_record(call)
        if isinstance(record, RestReply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return error_reply(404, 10008)
        error = validate_message(call.json, call.files, creating=False)
        if error is not None:
            return error
        message = await self._edit_stored(self._messages[message_id], call.json, call.files)
        if call.params["message_id"] == "@original":
            record.original_edits.append(copy.deepcopy(call.json))
        self._notify()
        return RestReply(200, message)

    async def _delete_webhook_message(self, call: RestCall) -> RestReply:
        record = self._webhook_record(call)
        if isinstance(record, RestReply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return error_reply(404, 10008)
        await self._remove_stored(message_id)
        return RestReply(204)
