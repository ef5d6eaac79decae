"""Who may do what: one rule per role, used by every command, button and tool.

The rules take a plain `Actor` (who is acting, with the Discord permissions and roles that
matter), so they hold the same in slash commands, buttons, mentions and the console. The
Discord layer reads an `Actor` out of a member or an interaction; nothing here knows Discord.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.servers.directory import ServerDirectory
from bot.settings import Settings


@dataclass(frozen=True)
class Actor:
    """Someone acting in a server (or a DM when guild_id is None): the facts Discord gives at
    one command, click or message, which the rules read (see Person for what features keep)."""

    user_id: int
    guild_id: int | None = None
    role_ids: frozenset[int] = frozenset()
    # Server-wide permissions, as Discord computed them (Administrator implies the others).
    administrator: bool = False
    manage_guild: bool = False
    # In the channel of the command or message.
    manage_messages: bool = False
    # The Discord application's owner or a member of its team.
    application_owner: bool = False


@dataclass(frozen=True, slots=True)
class Person:
    """Someone making a change a feature records (a note, a knowledge file), with what the
    rules above granted them; the one "who is acting" the features take.

    Not an Actor: a tool call runs (maybe resumed from an approval row, or in the console)
    where Discord's facts are gone, so what features take is the rules' verdict, not the facts.
    """

    user_id: int
    user_name: str
    # An admin or moderator: may edit and delete other members' notes.
    is_admin: bool = False
    # One of the bot's owners (application owner or team, OWNER_IDS): may edit shared files.
    bot_owner: bool = False


def may_decide(user_id: int, requester_id: int, *, is_approver: bool) -> bool:
    """The one rule of who decides a member's call or stops their run: the member who asked,
    or an approver."""
    return user_id == requester_id or is_approver


@dataclass(frozen=True)
class ServerRoles:
    """The roles a server gives extra rights to."""

    approvers: frozenset[int] = frozenset()
    knowledge_editors: frozenset[int] = frozenset()


# The roles each server gives extra rights to (its admins' settings, else the environment's).
RolesOf = Callable[[int | None], ServerRoles]


class Permissions:
    """The rules: member, approver, knowledge editor, moderator, server admin, bot owner."""

    def __init__(self, roles: ServerRoles | RolesOf, owner_ids: Iterable[int] = ()) -> None:
        self._roles_of: RolesOf = (
            (lambda _guild: roles) if isinstance(roles, ServerRoles) else roles
        )
        self._owner_ids = frozenset(owner_ids)

    @classmethod
    def per_server(cls, servers: ServerDirectory, settings: Settings) -> Permissions:
        """The rules with each server's own approver and editor roles, and OWNER_IDS."""

        def roles_of(guild_id: int | None) -> ServerRoles:
            config = servers.config(guild_id)
            return ServerRoles(config.approver_roles, config.editor_roles)

        return cls(roles_of, settings.owner_ids)

    @classmethod
    def from_settings(cls, settings: Settings) -> Permissions:
        """The rules with the roles and owners the environment names."""
        roles = ServerRoles(
            approvers=frozenset(settings.approver_role_ids),
            knowledge_editors=frozenset(settings.kb_admin_role_ids),
        )
        return cls(roles, settings.owner_ids)

    def is_server_admin(self, actor: Actor) -> bool:
        """Administrator or Manage Server in this server (never in a DM)."""
        return actor.guild_id is not None and (actor.administrator or actor.manage_guild)

    def is_approver(self, actor: Actor) -> bool:
        """A server admin, or a member with an approver role: may decide others' approvals."""
        return self.is_server_admin(actor) or self._has(
            actor, self._roles_of(actor.guild_id).approvers
        )

    def may_decide(self, actor: Actor, requester_id: int) -> bool:
        """The member who asked, or an approver, may decide a call or stop a run."""
        return may_decide(actor.user_id, requester_id, is_approver=self.is_approver(actor))

    def is_knowledge_editor(self, actor: Actor) -> bool:
        """A server admin, or a member with a knowledge-editor role: may edit the server's files."""
        return self.is_server_admin(actor) or self._has(
            actor, self._roles_of(actor.guild_id).knowledge_editors
        )

    def is_moderator(self, actor: Actor) -> bool:
        """A server admin, or Manage Messages here: may delete anyone's note."""
        return self.is_server_admin(actor) or (actor.guild_id is not None and actor.manage_messages)

    def is_bot_owner(self, actor: Actor) -> bool:
        """The application's owner (or team), or a user in OWNER_IDS: the whole bot."""
        return actor.application_owner or actor.user_id in self._owner_ids

    def person(self, actor: Actor, user_name: str) -> Person:
        """The actor as the features take them: their name and what the rules grant them."""
        return Person(
            actor.user_id,
            user_name,
            is_admin=self.is_moderator(actor),
            bot_owner=self.is_bot_owner(actor),
        )

    @staticmethod
    def _has(actor: Actor, roles: frozenset[int]) -> bool:
        return actor.guild_id is not None and not roles.isdisjoint(actor.role_ids)
