"""Messages in the fake: how they are built, stored, edited and deleted, with attachments.

People's messages (see :mod:`.people`) and the bot's (REST and interaction responses) all pass
through here, so mentions, replies and attachments look the same whoever sent them.
"""

from __future__ import annotations

import copy
import mimetypes
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from tests.fakes.discord.records import UploadedFile
from tests.fakes.discord.rules import RestReply, form_error
from tests.fakes.discord.state import FakeDiscordState
from tests.fakes.discord.world import (
    EVERYONE_MENTION,
    FLAG_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    MESSAGE_DEFAULT,
    MESSAGE_REPLY,
    ROLE_MENTION,
    USER_MENTION,
    Json,
    iso_timestamp,
    snowflakes,
)

_FILE_FIELD = re.compile(r"^files\[(\d+)\]$")


class MessageStore(FakeDiscordState):
    """Builds message payloads and keeps them; ephemeral ones stay out of channel history."""

    # -- building --------------------------------------------------------------------------

    def _mention_entry(self, user_id: int, guild_id: int | None) -> Json | None:
        """A ``mentions`` entry: the user plus its partial member in a guild."""
        user = self.world.user(user_id)
        if user is None:
            return None
        entry = user.payload()
        if guild_id is not None:
            member = self.world.member_payload(user_id, with_user=False, guild_id=guild_id)
            if member is not None:
                entry["member"] = member
        return entry

    def _build_message(
        self,
        channel_id: int,
        author_id: int,
        *,
        content: str = "",
        embeds: Sequence[Json] = (),
        components: Sequence[Json] = (),
        attachments: Sequence[Json] = (),
        flags: int = 0,
        mention_ids: Iterable[int] = (),
        role_ids: Iterable[int] = (),
        everyone: bool = False,
        reference: Json | None = None,
        referenced: Json | None = None,
        msg_type: int = MESSAGE_DEFAULT,
        extra: Json | None = None,
    ) -> Json:
        """A complete message object as Discord returns and dispatches it."""
        guild_id = self._guild_id_of(channel_id)
        mentions = [self._mention_entry(u, guild_id) for u in dict.fromkeys(mention_ids)]
        message: Json = {
            "id": str(self._snowflake()),
            "type": msg_type,
            "channel_id": str(channel_id),
            "author": self._user_or_fail(author_id).payload(),
            "content": content,
            "timestamp": iso_timestamp(time.time()),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": everyone,
            "mentions": [m for m in mentions if m is not None],
            "mention_roles": [str(r) for r in dict.fromkeys(role_ids) if self.world.role(r)],
            "attachments": list(attachments),
            "embeds": list(embeds),
            "components": list(components),
            "pinned": False,
            "flags": flags,
        }
        if guild_id is not None:
            message["guild_id"] = str(guild_id)
            member = self.world.member_payload(author_id, with_user=False, guild_id=guild_id)
            if member is not None:
                message["member"] = member
        if reference is not None:
            message["message_reference"] = reference
            # Discord nests one level only: the referenced message carries no referenced_message.
            message["referenced_message"] = (
                {k: v for k, v in referenced.items() if k != "referenced_message"}
                if referenced
                else None
            )
        if extra:
            message.update(extra)
        return message

    def _effective_mentions(
        self, content: str, allowed: Json | None, replied_author: int | None
    ) -> tuple[list[int], list[int], bool]:
        """Who a bot message really pings: the content's mentions filtered by allowed_mentions."""
        users = snowflakes(USER_MENTION.findall(content))
        roles = snowflakes(ROLE_MENTION.findall(content))
        everyone = bool(EVERYONE_MENTION.search(content))
        if allowed is None:
            # No allowed_mentions: everything parses, and a reply pings its author.
            return [*users, *([replied_author] if replied_author else [])], roles, everyone
        parse = set(allowed.get("parse") or [])
        allowed_users = set(snowflakes(allowed.get("users") or []))
        allowed_roles = set(snowflakes(allowed.get("roles") or []))
        users = [u for u in users if "users" in parse or u in allowed_users]
        roles = [r for r in roles if "roles" in parse or r in allowed_roles]
        if replied_author and allowed.get("replied_user"):
            users.append(replied_author)
        return users, roles, everyone and "everyone" in parse

    def _bot_message(
        self,
        channel_id: int,
        body: Json,
        files: Sequence[UploadedFile],
        *,
        msg_type: int = MESSAGE_DEFAULT,
        flags: int | None = None,
        extra: Json | None = None,
    ) -> Json | RestReply:
        """A message the bot creates from a REST body, or the error Discord would give."""
        reference = referenced = None
        raw_reference = body.get("message_reference")
        if raw_reference and raw_reference.get("message_id"):
            referenced = self._messages.get(int(raw_reference["message_id"]))
            if referenced is None:
                if raw_reference.get("fail_if_not_exists", True):
                    return form_error(
                        ["message_reference"],
                        "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                        "Unknown message",
                    )
            else:
                reference = {
                    "type": 0,
                    "message_id": referenced["id"],
                    "channel_id": referenced["channel_id"],
                    "guild_id": referenced.get("guild_id"),
                }
                msg_type = MESSAGE_REPLY if msg_type == MESSAGE_DEFAULT else msg_type
        content = str(body.get("content") or "")
        allowed = body.get("allowed_mentions")
        replied_author = int(referenced["author"]["id"]) if referenced else None
        mention_ids, role_ids, everyone = self._effective_mentions(content, allowed, replied_author)
        message = self._build_message(
            channel_id,
            self.world.bot.id,
            content=content,
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            attachments=self._uploaded_attachments(channel_id, body, files, keep=[]),
            flags=int(body.get("flags") or 0) if flags is None else flags,
            mention_ids=mention_ids,
            role_ids=role_ids,
            everyone=everyone,
            reference=reference,
            referenced=referenced,
            msg_type=msg_type,
            extra=extra,
        )
        message["tts"] = bool(body.get("tts", False))
        # Kept as received (not a Discord field) so tests can assert what the bot allowed to ping.
        if allowed is not None:
            message["allowed_mentions"] = allowed
        if body.get("nonce") is not None:
            message["nonce"] = body["nonce"]
        return message

    # -- attachments -----------------------------------------------------------------------

    def _make_attachments(self, channel_id: int, files: Iterable[Sequence[Any]]) -> list[Json]:
        """Attachments for (filename, bytes[, content_type]) tuples, served by the fake CDN."""
        result = []
        for item in files:
            filename, data = str(item[0]), bytes(item[1])
            content_type = item[2] if len(item) > 2 else mimetypes.guess_type(filename)[0]
            result.append(self._attachment(channel_id, filename, data, content_type, None))
        return result

    def _attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        content_type: str | None,
        description: str | None,
    ) -> Json:
        attachment_id = self._snowflake()
        self._attachment_data[attachment_id] = data
        url = f"{self.base_url}/cdn/attachments/{channel_id}/{attachment_id}/{filename}"
        attachment: Json = {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type
            or mimetypes.guess_type(filename)[0]
            or "application/octet-stream",
        }
        if description:
            attachment["description"] = description
        return attachment

    def _uploaded_attachments(
        self, channel_id: int, body: Json, files: Sequence[UploadedFile], *, keep: list[Json]
    ) -> list[Json]:
        """Existing attachments the body keeps (by id) plus the uploaded files."""
        described = {str(a.get("id")): a for a in body.get("attachments") or []}
        kept = [a for a in keep if a["id"] in described] if "attachments" in body else list(keep)
        for position, upload in enumerate(files):
            index = _FILE_FIELD.match(upload.field)
            key = index.group(1) if index else str(position)
            description = described.get(key, {})
            filename = description.get("filename") or upload.filename
            # discord.py labels every file application/octet-stream; Discord sniffs the real type.
            kept.append(
                self._attachment(
                    channel_id, filename, upload.data, None, description.get("description")
                )
            )
        return kept

    # -- storing, editing, deleting --------------------------------------------------------

    def _store(self, message: Json, *, visible: bool = True) -> None:
        """Keep a message; visible ones are in channel history (ephemeral ones are not)."""
        message_id = int(message["id"])
        self._messages[message_id] = message
        if visible:
            self._channel_log.setdefault(int(message["channel_id"]), []).append(message_id)

    def _is_visible(self, message_id: int) -> bool:
        found = self._messages.get(message_id)
        return found is not None and message_id in self._channel_log.get(
            int(found["channel_id"]), []
        )

    def _apply_edit(self, message: Json, body: Json, files: Sequence[UploadedFile]) -> None:
        """Apply an edit body to a stored message, the way Discord merges fields."""
        if "content" in body:
            message["content"] = str(body["content"] or "")
        for key in ("embeds", "components"):
            if key in body:
                message[key] = body[key] or []
        if "allowed_mentions" in body:
            message["allowed_mentions"] = body["allowed_mentions"]
        if "attachments" in body or files:
            message["attachments"] = self._uploaded_attachments(
                int(message["channel_id"]), body, files, keep=message.get("attachments", [])
            )
        flags = int(message.get("flags") or 0) & ~FLAG_LOADING  # any edit ends "thinking..."
        if "flags" in body and body["flags"] is not None:
            # Only SUPPRESS_EMBEDS and IS_COMPONENTS_V2 can change on edit.
            changeable = FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2
            flags = (flags & ~changeable) | (int(body["flags"]) & changeable)
        message["flags"] = flags
        if "content" in body or "allowed_mentions" in body:
            referenced = message.get("referenced_message")
            replied_author = int(referenced["author"]["id"]) if referenced else None
            users, roles, everyone = self._effective_mentions(
                message["content"], message.get("allowed_mentions"), replied_author
            )
            guild_id = self._guild_id_of(int(message["channel_id"]))
            message["mentions"] = [
                m for m in (self._mention_entry(u, guild_id) for u in dict.fromkeys(users)) if m
            ]
            message["mention_roles"] = [str(r) for r in dict.fromkeys(roles)]
            message["mention_everyone"] = everyone
        message["edited_timestamp"] = iso_timestamp(time.time())

    async def _edit_stored(self, message: Json, body: Json, files: Sequence[UploadedFile]) -> Json:
        """Edit, record the edit body, and dispatch MESSAGE_UPDATE when others can see it."""
        self._apply_edit(message, body, files)
        message_id = int(message["id"])
        self._edits.setdefault(message_id, []).append(copy.deepcopy(body))
        if self._is_visible(message_id):
            await self.dispatch("MESSAGE_UPDATE", message)
        return copy.deepcopy(message)

    async def _remove_stored(self, message_id: int) -> None:
        """Delete a message, keep it in ``deleted``, dispatch MESSAGE_DELETE if it was visible."""
        message = self._messages.pop(message_id)
        visible = False
        log = self._channel_log.get(int(message["channel_id"]), [])
        if message_id in log:
            log.remove(message_id)
            visible = True
        self.deleted.append(copy.deepcopy(message))
        if visible:
            event: Json = {"id": message["id"], "channel_id": message["channel_id"]}
            if message.get("guild_id"):
                event["guild_id"] = message["guild_id"]
            await self.dispatch("MESSAGE_DELETE", event)
