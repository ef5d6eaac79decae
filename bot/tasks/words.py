"""What tasks say to members: late runs, skipped runs, failures and a task paused for them."""

from __future__ import annotations

from bot.i18n import Text

LATE_NOTE = Text(
    ja="-# ⏰ {late}遅れの実行です（予定 {due}）",
    en="-# ⏰ Ran {late} late (due {due})",
)
SKIPPED_OFFLINE = Text(
    ja="⏭️ タスク #{id} の {due} の実行は、Otomo が止まっていたため見送りました（{late}遅れ）。",
    en="⏭️ Task #{id} due {due} was skipped: Otomo was offline ({late} late).",
)
SKIPPED_BECAUSE = Text(
    ja="⏭️ タスク #{id} の {due} の実行は見送りました: {reason}",
    en="⏭️ Task #{id} due {due} was skipped: {reason}",
)
TASKS_OFF = Text(
    ja="このサーバーではスケジュールタスクがオフです（/otomo settings）",
    en="scheduled tasks are switched off in this server (/otomo settings)",
)
PAUSED_AFTER_FAILURES = Text(
    ja=(
        "⏸️ タスク #{id}「{prompt}」は {count} 回続けて失敗したため一時停止しました。"
        "理由: {reason}。直したら /otomo tasks で再開してください。"
    ),
    en=(
        "⏸️ Task #{id} “{prompt}” failed {count} times in a row and is paused. "
        "Why: {reason}. Once that is fixed, resume it in /otomo tasks."
    ),
)

# Why a run was skipped or failed, in a few words (the history and the owner's notice).
OFFLINE = Text(ja="Otomo が止まっていました", en="Otomo was offline")
MODEL_UNREACHABLE = Text(ja="AI モデルに接続できませんでした", en="the model could not be reached")
CHANNEL_GONE = Text(ja="投稿先のチャンネルが見つかりません", en="the channel was deleted")
PERMISSION_LOST = Text(
    ja="投稿先に書き込む権限がありません", en="Otomo lost permission to post there"
)
DISCORD_AWAY = Text(ja="Discord が応答しませんでした", en="Discord did not answer")
NO_ANSWER = Text(ja="AI が何も答えませんでした", en="the model gave no answer")

# /otomo tasks
NO_TASKS = Text(
    ja="タスクはまだありません。「毎朝7時に…を投稿して」のように頼んでください。",
    en="No tasks yet. Ask me like “every morning at 7, post …”.",
)
TASK_LINE = Text(
    ja="**#{id}** {prompt}\n-# 次回 {next} ・ 前回 {last} ・ {owner} ・ {where}",
    en="**#{id}** {prompt}\n-# next {next} · last {last} · {owner} · {where}",
)
PAUSED = Text(ja="一時停止中", en="paused")
FINISHED = Text(ja="終了", en="finished")
NEVER_RAN = Text(ja="まだ実行なし", en="not run yet")
IN_DMS = Text(ja="DM", en="DMs")
CHOOSE_TASK = Text(ja="タスクを選んでください", en="Choose a task")
PAUSE = Text(ja="一時停止", en="Pause")
RESUME = Text(ja="再開", en="Resume")
RUN_NOW = Text(ja="今すぐ実行", en="Run now")
DELETE = Text(ja="削除", en="Delete")
HISTORY = Text(ja="履歴", en="History")
PICK_FIRST = Text(ja="先にタスクを選んでください。", en="Choose a task first.")
NOT_YOURS = Text(
    ja="このタスクを操作できるのは、作成者とサーバー管理者だけです。",
    en="Only the task's owner or a server admin may do that.",
)
DONE_PAUSED = Text(ja="タスク #{id} を一時停止しました。", en="Task #{id} is paused.")
DONE_RESUMED = Text(
    ja="タスク #{id} を再開しました。次回は {next} です。",
    en="Task #{id} is resumed; next run {next}.",
)
DONE_DELETED = Text(ja="タスク #{id} を削除しました。", en="Task #{id} is deleted.")
DONE_RAN = Text(ja="タスク #{id} を実行しました: {outcome}", en="Task #{id} ran: {outcome}")
NOT_PAUSED = Text(ja="タスク #{id} は一時停止していません。", en="Task #{id} is not paused.")
NO_HISTORY = Text(ja="まだ実行されていません。", en="It has not run yet.")
ON_TIME = Text(ja="定刻どおり", en="on time")
LATE_BY = Text(ja="{late}遅れ", en="late by {late}")
SKIPPED_FOR = Text(ja="見送り（{reason}）", en="skipped because {reason}")
FAILED_FOR = Text(ja="失敗（{reason}）", en="failed because {reason}")
WAITING = Text(ja="承認待ち", en="waiting for approval")
RUNNING = Text(ja="実行中", en="running")

# The /otomo tasks command's description (Discord shows the Japanese to members in Japanese).
TASKS_COMMAND = Text(ja="スケジュールされたタスク", en="Scheduled tasks")
# The title of the tasks' settings in /otomo settings.
SETTINGS_GROUP = Text(ja="⏰ スケジュールタスク", en="⏰ Scheduled tasks")
# What the feature adds to the slash commands' words.
COMMAND_WORDS: tuple[Text, ...] = (TASKS_COMMAND,)
