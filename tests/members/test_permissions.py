"""Who may do what: one rule per role, the same for every command, button and tool."""

from __future__ import annotations

from bot.members.permissions import Actor, Permissions, Person, ServerRoles
from bot.settings import Settings

GUILD = 10
APPROVER_ROLE = 500
EDITOR_ROLE = 600
RULES = Permissions(
    ServerRoles(approvers=frozenset({APPROVER_ROLE}), knowledge_editors=frozenset({EDITOR_ROLE})),
    owner_ids=[42],
)


def member(**changes: object) -> Actor:
    fields: dict[str, object] = {"user_id": 1, "guild_id": GUILD, **changes}
    return Actor(**fields)  # type: ignore[arg-type]


def test_manage_server_or_administrator_make_a_server_admin_but_not_in_a_dm() -> None:
    assert RULES.is_server_admin(member(manage_guild=True))
    assert RULES.is_server_admin(member(administrator=True))
    assert not RULES.is_server_admin(member())
    assert not RULES.is_server_admin(member(guild_id=None, administrator=True))


def test_an_approver_is_an_admin_or_holds_an_approver_role() -> None:
    assert RULES.is_approver(member(manage_guild=True))
    assert RULES.is_approver(member(role_ids=frozenset({7, APPROVER_ROLE})))
    assert not RULES.is_approver(member(role_ids=frozenset({EDITOR_ROLE})))


def test_the_requester_or_an_approver_may_decide_nobody_else() -> None:
    assert RULES.may_decide(member(user_id=5), requester_id=5)
    assert RULES.may_decide(member(role_ids=frozenset({APPROVER_ROLE})), requester_id=5)
    assert not RULES.may_decide(member(user_id=6), requester_id=5)


def test_a_knowledge_editor_is_an_admin_or_holds_an_editor_role() -> None:
    assert RULES.is_knowledge_editor(member(administrator=True))
    assert RULES.is_knowledge_editor(member(role_ids=frozenset({1, EDITOR_ROLE})))
    assert not RULES.is_knowledge_editor(member(role_ids=frozenset({APPROVER_ROLE})))


def test_manage_messages_makes_a_moderator_of_the_notes() -> None:
    assert RULES.is_moderator(member(manage_messages=True))
    assert RULES.is_moderator(member(manage_guild=True))
    assert not RULES.is_moderator(member())


def test_the_bot_owner_is_the_application_owner_or_in_owner_ids_wherever_they_are() -> None:
    assert RULES.is_bot_owner(member(user_id=42, guild_id=None))
    assert RULES.is_bot_owner(member(application_owner=True))
    assert not RULES.is_bot_owner(member(administrator=True))


def test_the_person_features_take_carries_the_rules_verdicts_not_discords_facts() -> None:
    assert RULES.person(member(user_id=42), "hana") == Person(42, "hana", bot_owner=True)
    assert RULES.person(member(manage_messages=True), "taro") == Person(1, "taro", is_admin=True)
    assert RULES.person(member(guild_id=None, manage_messages=True), "dm") == Person(1, "dm")


def test_the_rules_from_settings_use_the_configured_roles_and_owners() -> None:
    rules = Permissions.from_settings(
        Settings(approver_role_ids=[APPROVER_ROLE], kb_admin_role_ids=[EDITOR_ROLE], owner_ids=[9])
    )

    assert rules.is_approver(member(role_ids=frozenset({APPROVER_ROLE})))
    assert rules.is_knowledge_editor(member(role_ids=frozenset({EDITOR_ROLE})))
    assert rules.is_bot_owner(member(user_id=9))
