"""What the tasks feature declares to the shared layers: TASK_* settings checked at start,
its per-server settings stored and read like the shared ones, its words and its tables."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import bot.app.features  # noqa: F401  (the feature list registers what the features declare)
from bot.app.schema import metadata
from bot.i18n.commands import JAPANESE
from bot.runtime.clock import ManualClock
from bot.servers.config import GROUPS, SETTINGS, defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings, SettingsError, load_settings
from bot.storage import Database
from bot.tasks import words
from bot.tasks.server_settings import MAX_TASKS, TASK_CREATOR_ROLES, TASKS_ENABLED
from bot.tasks.settings import TaskSettings

GUILD = 111_111_111_111_111_111
ROLE = 555_555_555_555_555_555


def test_a_bad_task_setting_stops_the_start_with_a_sentence_naming_it() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(
            environ={"TASK_GRACE_MINUTES": "soon", "LOG_LEVEL": "LOUD"},
            env_file=None,
            sections=[TaskSettings],
        )

    assert len(caught.value.problems) == 2
    problem = next(p for p in caught.value.problems if "TASK_GRACE_MINUTES" in p)
    assert problem.startswith("TASK_GRACE_MINUTES ")
    assert "'soon'" in problem and problem.endswith("fix it in .env or the environment")


def test_task_settings_come_from_the_environment() -> None:
    settings = load_settings(
        environ={"TASK_RUN_LEASE_SECONDS": "5", "TASK_MAX_PER_SERVER": "3"},
        env_file=None,
        sections=[TaskSettings],
    )

    limits = settings.section(TaskSettings)
    assert (limits.run_lease_seconds, limits.max_per_server, limits.grace_minutes) == (5, 3, 30)
    # Settings built without the feature list still read the section, on first use.
    assert Settings().section(TaskSettings).max_concurrent_runs == 4


async def test_the_server_settings_default_to_the_environment_and_survive_the_database(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers = ServerDirectory(
        database.sessions, clock, defaults_of(make_settings(TASK_MAX_PER_SERVER="7"))
    )

    assert servers.config(GUILD).get(MAX_TASKS) == 7
    assert servers.config(GUILD).get(TASKS_ENABLED) is True
    await servers.change(
        GUILD, {"tasks_enabled": False, "task_creator_roles": frozenset({ROLE})}, by=1
    )
    again = ServerDirectory(database.sessions, clock, servers.defaults)
    await again.refresh()

    config = again.config(GUILD)
    assert config.get(TASKS_ENABLED) is False
    assert config.get(TASK_CREATOR_ROLES) == {ROLE}
    assert config.overridden == {"tasks_enabled", "task_creator_roles"}
    assert SETTINGS["task_creator_roles"].show(frozenset({ROLE})) == f"<@&{ROLE}>"


def test_the_panel_words_and_tables_are_registered() -> None:
    assert SETTINGS["max_tasks"].kind == "value" and TASK_CREATOR_ROLES.kind == "roles"
    assert GROUPS["tasks"] is words.SETTINGS_GROUP
    assert JAPANESE[words.TASKS_COMMAND.en] == words.TASKS_COMMAND.ja
    assert {"tasks", "task_runs"} <= set(metadata.tables)
