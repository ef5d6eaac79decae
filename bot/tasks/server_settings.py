"""The tasks feature's per-server settings: on or off, how many, who may post to a channel."""

from __future__ import annotations

from bot.servers.config import Setting, SettingsGroup, parse_count, parse_flag, parse_ids
from bot.tasks import words
from bot.tasks.settings import TaskSettings

TASKS_ENABLED = Setting(
    "tasks_enabled",
    "スケジュールタスク (on/off)",
    "Scheduled tasks (on/off)",
    parse_flag,
    "tasks",
    default=True,
)
MAX_TASKS = Setting(
    "max_tasks",
    "タスクの上限数",
    "Most tasks in this server",
    parse_count,
    "tasks",
    # The operator's TASK_MAX_PER_SERVER until the server's admins change it.
    default=TaskSettings.model_validate({}).max_per_server,
    from_settings=lambda settings: settings.section(TaskSettings).max_per_server,
)
TASK_CREATOR_ROLES = Setting(
    "task_creator_roles",
    "チャンネルに投稿するタスクを作れるロール",
    "Roles that may schedule channel posts",
    parse_ids,
    "tasks",
    "roles",
    default=frozenset(),
)

SERVER_SETTINGS = SettingsGroup(
    "tasks",
    words.SETTINGS_GROUP,
    (TASKS_ENABLED, MAX_TASKS, TASK_CREATOR_ROLES),
)
