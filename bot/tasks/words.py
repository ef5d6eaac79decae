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
SKIPPED_BUDGET = Text(
    ja="⏭️ タスク #{id} の {due} の実行は、今日の利用上限に達したため見送りました。",
    en="⏭️ Task #{id} due {due} was skipped: today's usage limit is spent.",
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
WAITING_FOR_OWNER = Text(
    ja="🔔 タスク #{id} の実行に、<@{owner}> さんの承認が必要です。",
    en="🔔 Task #{id} needs <@{owner}>'s approval to go on.",
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
