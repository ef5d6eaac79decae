"""REST routes of channels and their messages, reactions and typing."""

from __future__ import annotations

import copy
import time

from tests.fakes.discord.messages import MessageStore
from tests.fakes.discord.rest import RestCall, Route
from tests.fakes.discord.rules import (
    RateWindow,
    RestReply,
    bucket_hash,
    error_reply,
    form_error,
    ratelimit_headers,
    too_many_requests,
    validate_message,
)
from tests.fakes.discord.world import FakeChannel, Json

CHANNEL_ROUTES: tuple[Route, ...] = (
    ("GET", "/channels/{channel_id}", "_get_channel"),
    ("PATCH", "/channels/{channel_id}", "_edit_channel"),
    ("GET", "/channels/{channel_id}/messages", "_list_messages"),
    ("POST", "/channels/{channel_id}/messages", "_create_message"),
    ("GET", "/channels/{channel_id}/messages/{message_id}", "_get_message"),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}", "_edit_message"),
    ("DELETE", "/channels/{channel_id}/messages/{message_id}", "_delete_message"),
    ("POST", "/channels/{channel_id}/typing", "_typing"),
    ("POST", "/channels/{channel_id}/threads", "_create_thread"),
    ("POST", "/channels/{channel_id}/messages/{message_id}/threads", "_create_thread"),
    ("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", "_add_reaction"),
    (
        "DELETE",
        "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
        "_remove_reaction",
    ),
    (
        "DELETE",
        "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/{user_id}",
        "_remove_reaction",
    ),
)


class ChannelRoutes(MessageStore):
    """Channels, message history, the bot's messages (within Discord's limits) and reactions."""

    # -- channels --------------------------------------------------------------------------

    def _channel_payload(self, channel_id: int) -> Json | None:
        channel = self.world.channel(channel_id)
        if channel is not None:
            return self.world.channel_payload(channel)
        user_id = self._dm_users.get(channel_id)
        if user_id is not None:
            user = self._user_or_fail(user_id)
            return {
                "id": str(channel_id),
                "type": 1,
                "recipients": [user.payload()],
                "last_message_id": None,
                "flags": 0,
            }
        return None

    async def _get_channel(self, call: RestCall) -> RestReply:
        data = self._channel_payload(int(call.params["channel_id"]))
        return RestReply(200, data) if data else error_reply(404, 10003)

    async def _edit_channel(self, call: RestCall) -> RestReply:
        channel = self.world.channel(int(call.params["channel_id"]))
        if channel is None:
            return error_reply(404, 10003)
        body = call.json
        channel.name = body.get("name", channel.name)
        channel.topic = body.get("topic", channel.topic)
        data = self.world.channel_payload(channel)
        await self.dispatch("CHANNEL_UPDATE", data)
        return RestReply(200, data)

    async def _create_thread(self, call: RestCall) -> RestReply:
        """The bot starts a public thread, from a message (the thread's id is the message's, as
        on Discord) or on its own; THREAD_CREATE follows."""
        parent = self.world.channel(int(call.params["channel_id"]))
        if parent is None:
            return error_reply(404, 10003)
        if parent.type != 0:
            return error_reply(400, 50024, "Cannot execute action on this channel type")
        name = str(call.json.get("name") or "")
        if not 1 <= len(name) <= 100:
            return form_error(
                ["name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
            )
        starter_id = call.params.get("message_id")
        if starter_id is not None:
            starter = self._messages.get(int(starter_id))
            if starter is None or int(starter["channel_id"]) != parent.id:
                return error_reply(404, 10008)
            if starter.get("thread"):
                return error_reply(
                    400, 160004, "A thread has already been created for this message"
                )
        thread = FakeChannel(
            int(starter_id) if starter_id is not None else self._snowflake(),
            name,
            type=11,
            parent_id=parent.id,
            owner_id=self.world.bot.id,
        )
        self.world.channels.append(thread)
        payload = self.world.channel_payload(thread)
        if starter_id is not None:
            self._messages[int(starter_id)]["thread"] = payload
        self.threads_created.append(payload)
        await self.dispatch("THREAD_CREATE", {**payload, "newly_created": True})
        return RestReply(201, copy.deepcopy(payload))

    # -- messages --------------------------------------------------------------------------

    async def _list_messages(self, call: RestCall) -> RestReply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return error_reply(404, 10003)
        query = call.request.query
        limit = max(1, min(100, int(query.get("limit", 50))))
        ordered = self.messages(channel_id)
        if "before" in query:
            chosen = [m for m in ordered if int(m["id"]) < int(query["before"])][-limit:]
        elif "after" in query:
            # The oldest `limit` after the id, still newest first (discord.py relies on it).
            chosen = [m for m in ordered if int(m["id"]) > int(query["after"])][:limit]
        elif "around" in query:
            pivot = int(query["around"])
            older = (
                [m for m in ordered if int(m["id"]) < pivot][-(limit // 2) :] if limit > 1 else []
            )
            rest = [m for m in ordered if int(m["id"]) >= pivot][: limit - len(older)]
            chosen = older + rest
        else:
            chosen = ordered[-limit:]
        return RestReply(200, list(reversed(chosen)))

    async def _get_message(self, call: RestCall) -> RestReply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return error_reply(404, 10008)
        return RestReply(200, copy.deepcopy(message))

    def _channel_slot(self, channel_id: int) -> tuple[RestReply | None, dict[str, str]]:
        """Take one slot of the channel's message bucket: (429 or None, headers to send)."""
        if self._channel_limit is None:
            return None, {}
        per, seconds = self._channel_limit
        window = self._channel_windows.setdefault(channel_id, RateWindow(per, seconds))
        allowed, remaining, reset_after = window.take(time.monotonic())
        headers = ratelimit_headers(
            per, remaining, reset_after, bucket_hash("POST /channels/{channel_id}/messages")
        )
        if allowed:
            return None, headers
        self.rate_limit_hits["channel"] += 1
        return too_many_requests(reset_after, global_=False, scope="user", headers=headers), headers

    async def _create_message(self, call: RestCall) -> RestReply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return error_reply(404, 10003)
        limited, headers = self._channel_slot(channel_id)
        if limited is not None:
            return limited
        body = call.json
        error = validate_message(body, call.files, creating=True)
        if error is not None:
            error.headers.update(headers)
            return error
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            first = self._nonces.earlier(self.world.bot.id, str(nonce), self.nonce_window)
            if first is not None and first in self._messages:
                # Discord returns the first message again instead of posting a duplicate.
                return RestReply(200, copy.deepcopy(self._messages[first]), headers)
        message = self._bot_message(channel_id, body, call.files)
        if isinstance(message, RestReply):
            message.headers.update(headers)
            return message
        if nonce is not None and body.get("enforce_nonce"):
            self._nonces.remember(self.world.bot.id, str(nonce), int(message["id"]))
        self._store(message)
        await self.dispatch("MESSAGE_CREATE", message)
        hold = next((h for h in self.holds if h.matches(channel_id)), None)
        if hold is not None:
            self.holds.remove(hold)
            await hold.keep(message)
        return RestReply(200, copy.deepcopy(message), headers)

    async def _edit_message(self, call: RestCall) -> RestReply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return error_reply(404, 10008)
        if int(message["author"]["id"]) != self.world.bot.id:
            return error_reply(403, 50005)
        error = validate_message(call.json, call.files, creating=False)
        if error is not None:
            return error
        return RestReply(200, await self._edit_stored(message, call.json, call.files))

    async def _delete_message(self, call: RestCall) -> RestReply:
        message_id = int(call.params["message_id"])
        message = self._messages.get(message_id)
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return error_reply(404, 10008)
        await self._remove_stored(message_id)
        return RestReply(204)

    async def _typing(self, call: RestCall) -> RestReply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return error_reply(404, 10003)
        self.typing.append((channel_id, time.monotonic()))
        return RestReply(204)

    # -- reactions -------------------------------------------------------------------------

    async def _add_reaction(self, call: RestCall) -> RestReply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None:
            return error_reply(404, 10008)
        emoji = call.params["emoji"]
        name, _, emoji_id = emoji.partition(":")
        reactions = message.setdefault("reactions", [])
        entry = next((r for r in reactions if r["emoji"]["name"] == name), None)
        if entry is None:
            reactions.append(
                {"emoji": {"id": emoji_id or None, "name": name}, "count": 1, "me": True}
            )
        elif not entry["me"]:
            entry.update(count=entry["count"] + 1, me=True)
        return RestReply(204)

    async def _remove_reaction(self, call: RestCall) -> RestReply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None:
            return error_reply(404, 10008)
        name = call.params["emoji"].partition(":")[0]
        reactions = message.get("reactions", [])
        for entry in list(reactions):
            if entry["emoji"]["name"] == name:
                entry["count"] -= 1
                entry["me"] = False
                if entry["count"] <= 0:
                    reactions.remove(entry)
        return RestReply(204)
