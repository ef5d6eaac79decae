"""People acting in the fake: tests post messages, click, run slash commands and submit modals.

Every action builds what Discord would dispatch (MESSAGE_CREATE, INTERACTION_CREATE) from the
world and the commands the bot synced, and returns it or its :class:`InteractionRecord`.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tests.fakes.discord.messages import MessageStore
from tests.fakes.discord.records import InteractionRecord
from tests.fakes.discord.rules import ATTACHMENT_SIZE_LIMIT, walk_components
from tests.fakes.discord.world import (
    BOT_PERMISSIONS,
    CALLBACK_MODAL,
    EVERYONE_MENTION,
    INTERACTION_APPLICATION_COMMAND,
    INTERACTION_AUTOCOMPLETE,
    INTERACTION_MESSAGE_COMPONENT,
    INTERACTION_MODAL_SUBMIT,
    MESSAGE_DEFAULT,
    MESSAGE_REPLY,
    OPTION_ATTACHMENT,
    OPTION_BOOLEAN,
    OPTION_CHANNEL,
    OPTION_INTEGER,
    OPTION_MENTIONABLE,
    OPTION_NUMBER,
    OPTION_ROLE,
    OPTION_STRING,
    OPTION_SUB_COMMAND,
    OPTION_SUB_COMMAND_GROUP,
    OPTION_USER,
    ROLE_MENTION,
    USER_MENTION,
    FakeChannel,
    Json,
    snowflakes,
)


class People(MessageStore):
    """The ``async`` helpers with which tests act as the people of the world."""

    # -- messages --------------------------------------------------------------------------

    async def send_user_message(
        self,
        channel_id: int,
        author_id: int,
        content: str,
        *,
        mention_bot: bool = False,
        mentions: Iterable[int] = (),
        reply_to: int | None = None,
        reply_mention: bool = True,
        resolve_reply: bool = True,
        attachments: Iterable[Sequence[Any]] = (),
    ) -> Json:
        """A person posts in a channel; returns the MESSAGE_CREATE payload.

        Replying to a deleted message sends ``referenced_message: null`` like Discord;
        ``resolve_reply=False`` leaves the field out (Discord did not look the message up).
        """
        if not self._channel_exists(channel_id):
            raise ValueError(f"unknown channel {channel_id}")
        bot_id = self.world.bot.id
        if mention_bot and bot_id not in snowflakes(USER_MENTION.findall(content)):
            content = f"<@{bot_id}> {content}"
        mention_ids = [*snowflakes(USER_MENTION.findall(content)), *mentions]
        reference = referenced = None
        msg_type = MESSAGE_DEFAULT
        if reply_to is not None:
            referenced = self._messages.get(int(reply_to)) or next(
                (d for d in self.deleted if int(d["id"]) == int(reply_to)), None
            )
            if referenced is None:
                raise ValueError(f"cannot reply to unknown message {reply_to}")
            reference = {
                "type": 0,
                "message_id": referenced["id"],
                "channel_id": referenced["channel_id"],
                "guild_id": referenced.get("guild_id"),
            }
            msg_type = MESSAGE_REPLY
            # Discord's client pings the replied-to author by default, so they land in mentions.
            if reply_mention and int(referenced["author"]["id"]) != author_id:
                mention_ids.append(int(referenced["author"]["id"]))
        message = self._build_message(
            channel_id,
            author_id,
            content=content,
            attachments=self._make_attachments(channel_id, attachments),
            mention_ids=mention_ids,
            role_ids=snowflakes(ROLE_MENTION.findall(content)),
            everyone=bool(EVERYONE_MENTION.search(content)),
            reference=reference,
            referenced=referenced,
            msg_type=msg_type,
        )
        if reply_to is not None and int(reply_to) not in self._messages:
            message["referenced_message"] = None
        if not resolve_reply:
            message.pop("referenced_message", None)
        self._store(message)
        await self.dispatch("MESSAGE_CREATE", message)
        return copy.deepcopy(message)

    async def delete_user_message(self, message_id: int) -> None:
        """A person deletes a message (MESSAGE_DELETE is dispatched)."""
        if int(message_id) not in self._messages:
            raise ValueError(f"unknown message {message_id}")
        await self._remove_stored(int(message_id))

    async def start_thread(self, message_id: int, name: str, *, owner_id: int) -> int:
        """A person starts a public thread from a message; the thread's id is the message's."""
        starter = self._messages.get(int(message_id))
        if starter is None:
            raise ValueError(f"unknown message {message_id}")
        channel = FakeChannel(
            int(message_id),
            name,
            type=11,
            parent_id=int(starter["channel_id"]),
            owner_id=owner_id,
        )
        guild = self.world.guild_of_channel(channel.parent_id or 0) or self.world.first
        guild.channels.append(channel)
        payload = self.world.channel_payload(channel)
        starter["thread"] = payload
        await self.dispatch("THREAD_CREATE", {**payload, "newly_created": True})
        return channel.id

    async def send_dm_from_user(
        self, author_id: int, content: str, *, attachments: Iterable[Sequence[Any]] = ()
    ) -> Json:
        """A person writes to the bot in DMs (channel type 1, no guild_id, no member)."""
        self._user_or_fail(author_id)
        return await self.send_user_message(
            self.dm_channel_id(author_id), author_id, content, attachments=attachments
        )

    # -- interactions ----------------------------------------------------------------------

    def _interaction_payload(
        self,
        interaction_type: int,
        data: Json,
        *,
        user_id: int,
        channel_id: int,
        message: Json | None = None,
    ) -> Json:
        """An INTERACTION_CREATE payload for a guild channel or a DM."""
        user = self._user_or_fail(user_id)
        bot = self.world.bot
        payload: Json = {
            "id": str(self._snowflake()),
            "application_id": str(bot.id),
            "type": interaction_type,
            "data": data,
            "channel_id": str(channel_id),
            "token": secrets.token_hex(32),
            "version": 1,
            "locale": self.world.client_locale,  # the person's client language
            "entitlements": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        guild_channel = self.world.channel(channel_id)
        guild = self.world.guild_of_channel(channel_id)
        if guild_channel is not None and guild is not None:
            member = self.world.member_payload(user_id, with_permissions=True, guild_id=guild.id)
            if member is None:
                raise ValueError(f"user {user_id} is not a member of guild {guild.id}")
            # Discord sends the member's permissions in this channel, overwrites applied.
            member["permissions"] = str(guild.channel_permissions(user_id, channel_id))
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=member,
                channel=self.world.channel_payload(guild_channel, for_user=user_id),
                app_permissions=str(guild.permissions(bot.id)),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        elif channel_id in self._dm_users:
            payload.update(
                user=user.payload(),
                channel={
                    "id": str(channel_id),
                    "type": 1,
                    "recipients": [user.payload()],
                    "flags": 0,
                },
                app_permissions=str(BOT_PERMISSIONS),
                context=1,
                authorizing_integration_owners={"0": "0"},
            )
        else:
            raise ValueError(f"unknown channel {channel_id}")
        if message is not None:
            payload["message"] = message
        return payload

    async def _start_interaction(
        self, payload: Json, source_message_id: int | None
    ) -> InteractionRecord:
        record = InteractionRecord(self, payload, source_message_id)
        self.interactions.append(record)
        self._interactions_by_id[record.id] = record
        await self.dispatch("INTERACTION_CREATE", payload)
        # The 3-second clock starts when Discord has sent the event, not when the test asked.
        record.created_at = time.monotonic()
        return record

    def _default_user(self) -> int:
        return self.world.users[0].id

    def _default_channel(self) -> int:
        return self.world.channels[0].id

    # -- components ------------------------------------------------------------------------

    async def click_button(
        self, message_id: int, custom_id: str, user_id: int | None = None
    ) -> InteractionRecord:
        """A person clicks a button of a message (INTERACTION_CREATE type 3, component_type 2)."""
        return await self._component(message_id, custom_id, user_id, component_type=2, values=None)

    async def choose_select(
        self,
        message_id: int,
        custom_id: str,
        values: Sequence[str],
        user_id: int | None = None,
        *,
        component_type: int = 3,
    ) -> InteractionRecord:
        """A person picks values in a select menu (component_type 3 = string select)."""
        return await self._component(
            message_id, custom_id, user_id, component_type=component_type, values=values
        )

    async def _component(
        self,
        message_id: int,
        custom_id: str,
        user_id: int | None,
        *,
        component_type: int,
        values: Sequence[str] | None,
    ) -> InteractionRecord:
        message = self._messages.get(int(message_id))
        if message is None:
            raise ValueError(f"unknown message {message_id}")
        components = list(walk_components(message.get("components") or []))
        component = next((c for c in components if c.get("custom_id") == custom_id), None)
        if component is None:
            present = [c.get("custom_id") for c in components if c.get("custom_id")]
            raise ValueError(
                f"message {message_id} has no component {custom_id!r}; it has {present}"
            )
        if component.get("disabled"):
            raise ValueError(
                f"component {custom_id!r} is disabled; Discord would not let anyone click it"
            )
        data: Json = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = [str(v) for v in values]
        payload = self._interaction_payload(
            INTERACTION_MESSAGE_COMPONENT,
            data,
            user_id=user_id or self._default_user(),
            channel_id=int(message["channel_id"]),
            message=copy.deepcopy(message),
        )
        return await self._start_interaction(payload, int(message_id))

    # -- slash commands --------------------------------------------------------------------

    def _find_command(
        self, name: str, guild_id: int | None, command_type: int = 1
    ) -> tuple[Json | None, int | None]:
        """The synced command (the invoking guild's first, then global) and its scope.

        Like Discord, a command synced to one guild only cannot be run in another guild.
        command_type: 1 slash, 2 user, 3 message command.
        """
        for scope in (guild_id, None) if guild_id is not None else (None,):
            for (command_name, kind), command in self._commands.get(scope, {}).items():
                if command_name == name and kind == command_type:
                    return command, scope
        return None, None

    def _option_value(
        self, kind: int, value: Any, resolved: Json, user_id: int, guild_id: int | None
    ) -> Any:
        """An option value as Discord sends it, filling ``resolved`` for users/channels/roles."""
        if kind in (OPTION_USER, OPTION_MENTIONABLE) and self.world.user(int(value)) is not None:
            target = int(value)
            resolved.setdefault("users", {})[str(target)] = self._user_or_fail(target).payload()
            member = (
                self.world.member_payload(
                    target, with_user=False, with_permissions=True, guild_id=guild_id
                )
                if guild_id is not None
                else None
            )
            if member is not None:
                resolved.setdefault("members", {})[str(target)] = member
            return str(target)
        if kind in (OPTION_ROLE, OPTION_MENTIONABLE):
            role = self.world.role(int(value))
            if role is None:
                raise ValueError(f"unknown role {value}")
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        if kind == OPTION_CHANNEL:
            channel = self.world.channel(int(value))
            if channel is None:
                raise ValueError(f"unknown channel {value}")
            resolved.setdefault("channels", {})[str(channel.id)] = self.world.channel_payload(
                channel, for_user=user_id
            )
            return str(channel.id)
        if kind == OPTION_ATTACHMENT:
            attachment = self._make_attachments(self._default_channel(), [value])[0]
            resolved.setdefault("attachments", {})[attachment["id"]] = attachment
            return attachment["id"]
        return value

    def _build_options(
        self,
        definitions: list[Json] | None,
        values: Mapping[str, Any],
        resolved: Json,
        user_id: int,
        focused: str | None,
        guild_id: int | None,
    ) -> list[Json]:
        """Interaction options for ``values``, typed from the synced definitions when known."""
        by_name = {d["name"]: d for d in definitions or []}
        options = []
        for name, value in values.items():
            definition = by_name.get(name)
            if definition is None and definitions:
                raise ValueError(
                    f"option {name!r} is not in the synced command; it has {sorted(by_name)}"
                )
            if definition is not None:
                kind = int(definition["type"])
            elif isinstance(value, bool):
                kind = OPTION_BOOLEAN
            elif isinstance(value, int):
                kind = OPTION_INTEGER
            elif isinstance(value, float):
                kind = OPTION_NUMBER
            else:
                kind = OPTION_STRING
            option: Json = {"name": name, "type": kind}
            if name == focused:
                # Autocomplete sends the partial text as typed, unresolved.
                option.update(value=str(value), focused=True)
            else:
                option["value"] = self._option_value(kind, value, resolved, user_id, guild_id)
            options.append(option)
        return options

    def _command_data(
        self,
        name: str,
        options: Mapping[str, Any] | None,
        user_id: int,
        focused: str | None,
        channel_id: int,
    ) -> Json:
        """The ``data`` of an application-command interaction for "cmd [group] [sub]"."""
        top, *path = name.split()
        guild_id = self._guild_id_of(channel_id)
        command, scope = self._find_command(top, guild_id)
        if command is None:
            elsewhere = [
                s for s, synced in self._commands.items() if any(n == top for n, _ in synced)
            ]
            if elsewhere:
                raise ValueError(
                    f"/{top} is synced to guild(s) {elsewhere} only, not to the guild of channel "
                    f"{channel_id}; sync globally (no DEV_GUILD_ID) to run it in every guild"
                )
        command_id = (
            int(command["id"])
            if command
            else self._command_ids.setdefault((None, top, 1), self._snowflake())
        )
        resolved: Json = {}
        definitions = command.get("options") if command else None
        # Walk down group/subcommand definitions, building the nested option shells.
        shells: list[Json] = []
        for index, part in enumerate(path):
            definition = next((d for d in definitions or [] if d.get("name") == part), None)
            if definitions and definition is None:
                raise ValueError(f"{part!r} is not a subcommand of {name!r} as synced")
            if definition is not None:
                kind = int(definition["type"])
            else:
                kind = OPTION_SUB_COMMAND if index == len(path) - 1 else OPTION_SUB_COMMAND_GROUP
            shells.append({"name": part, "type": kind, "options": []})
            definitions = definition.get("options") if definition else None
        leaf = self._build_options(
            definitions if command else None, options or {}, resolved, user_id, focused, guild_id
        )
        nested: list[Json] = leaf
        for shell in reversed(shells):
            shell["options"] = nested
            nested = [shell]
        data: Json = {"id": str(command_id), "name": top, "type": 1, "options": nested}
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    async def invoke_slash(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
    ) -> InteractionRecord:
        """A person runs ``/name`` ("group sub" for subcommands) with ``options`` (type 2)."""
        user_id = user_id or self._default_user()
        channel_id = channel_id or self._default_channel()
        data = self._command_data(name, options, user_id, focused=None, channel_id=channel_id)
        payload = self._interaction_payload(
            INTERACTION_APPLICATION_COMMAND, data, user_id=user_id, channel_id=channel_id
        )
        return await self._start_interaction(payload, None)

    async def autocomplete(
        self,
        name: str,
        options: Mapping[str, Any],
        focused: str,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
    ) -> InteractionRecord:
        """A person types into option ``focused`` of ``/name`` (type 4); the bot answers type 8."""
        user_id = user_id or self._default_user()
        channel_id = channel_id or self._default_channel()
        data = self._command_data(name, options, user_id, focused=focused, channel_id=channel_id)
        payload = self._interaction_payload(
            INTERACTION_AUTOCOMPLETE, data, user_id=user_id, channel_id=channel_id
        )
        return await self._start_interaction(payload, None)

    async def invoke_message_command(
        self,
        name: str,
        message_id: int,
        *,
        user_id: int | None = None,
    ) -> InteractionRecord:
        """A person right-clicks a message → Apps → ``name`` (type 2, data.type 3): the
        command's ``target_id`` is the message, given whole in ``resolved.messages``.

        Like Discord, only a synced message command can be run, in its guild (or anywhere if
        global), and the message must exist.
        """
        message = self._messages.get(int(message_id))
        if message is None:
            raise ValueError(f"unknown message {message_id}")
        channel_id = int(message["channel_id"])
        command, scope = self._find_command(name, self._guild_id_of(channel_id), command_type=3)
        if command is None:
            raise ValueError(f"no message command {name!r} is synced where message {message_id} is")
        data: Json = {
            "id": command["id"],
            "name": name,
            "type": 3,
            "target_id": str(message_id),
            "resolved": {"messages": {str(message_id): copy.deepcopy(message)}},
        }
        if scope is not None:
            data["guild_id"] = str(scope)
        payload = self._interaction_payload(
            INTERACTION_APPLICATION_COMMAND,
            data,
            user_id=user_id or self._default_user(),
            channel_id=channel_id,
        )
        return await self._start_interaction(payload, None)

    # -- modals ----------------------------------------------------------------------------

    async def submit_modal(
        self,
        custom_id: str,
        components: Mapping[str, Any],
        user_id: int | None = None,
        channel_id: int | None = None,
        message_id: int | None = None,
    ) -> InteractionRecord:
        """A person submits a modal the bot opened (type 5), ``{field_custom_id: value}``."""
        opener = next(
            (
                r
                for r in reversed(self.interactions)
                if r.response_type == CALLBACK_MODAL
                and (r.response or {}).get("data", {}).get("custom_id") == custom_id
            ),
            None,
        )
        values = dict(components)
        rows: list[Json] = []
        if opener is not None:
            modal = (opener.response or {}).get("data", {})
            # Mirror the modal's own layout (action rows or labels), like Discord does.
            for top in modal.get("components", []):
                inner = top.get("components") or (
                    [top["component"]] if top.get("component") else [top]
                )
                submitted = []
                for item in inner:
                    if not item.get("custom_id"):
                        continue
                    value = values.pop(item["custom_id"], "")
                    entry: Json = {"type": item.get("type", 4), "custom_id": item["custom_id"]}
                    if isinstance(value, list | tuple):
                        entry["values"] = [str(v) for v in value]
                    else:
                        entry["value"] = str(value)
                    submitted.append(entry)
                if not submitted:
                    continue
                if top.get("type") == 18:
                    rows.append({"type": 18, "component": submitted[0]})
                else:
                    rows.append({"type": 1, "components": submitted})
            if values:
                raise ValueError(f"modal {custom_id!r} has no fields {sorted(values)}")
            channel_id = channel_id or opener.channel_id
            message_id = message_id or opener.source_message_id
        else:
            rows = [
                {"type": 1, "components": [{"type": 4, "custom_id": key, "value": str(value)}]}
                for key, value in values.items()
            ]
        message = self._messages.get(int(message_id)) if message_id else None
        payload = self._interaction_payload(
            INTERACTION_MODAL_SUBMIT,
            {"custom_id": custom_id, "components": rows},
            user_id=user_id or (opener.user_id if opener else self._default_user()),
            channel_id=channel_id or self._default_channel(),
            message=copy.deepcopy(message) if message else None,
        )
        return await self._start_interaction(payload, int(message_id) if message_id else None)
