"""Sentences of the answers to buttons and slash commands (in the clicker's Discord language)."""

from __future__ import annotations

from bot.i18n import Text

# -- the buttons under a delivered reminder ------------------------------------------------------

SNOOZE_10 = Text(ja="10分後", en="10 min")
SNOOZE_60 = Text(ja="1時間後", en="1 h")
SNOOZE_MORNING = Text(ja="明日の朝", en="Tomorrow 8:00")
DONE = Text(ja="完了", en="Done")
NO_REMINDERS = Text(
    ja="このボットではリマインドを扱えません。", en="This bot does not handle reminders."
)
NOT_REMINDER_OWNER = Text(
    ja="このボタンはリマインドを頼んだ人だけが使えます。",
    en="Only the person who asked for this reminder can use these buttons.",
)
REMINDER_GONE = Text(
    ja="このリマインドはもう見つかりません。", en="This reminder no longer exists."
)
REMINDER_CLOSED = Text(
    ja="このリマインドは取り消されたか、もう変更されています。",
    en="This reminder was cancelled or has changed.",
)
SNOOZE_REFUSED = Text(
    ja="その時刻には延ばせません。もう一度お試しください。",
    en="I can't snooze it to that time; please try again.",
)
DID_NOT_WORK = Text(ja="うまくいきませんでした。", en="That did not work.")
SNOOZED = Text(ja="⏰ {when} にもう一度お知らせします。", en="⏰ I'll remind you again {when}.")
MARKED_DONE = Text(ja="✅ 完了にしました。", en="✅ Marked as done.")
NEXT_TIME = Text(ja="次回は {when} です。", en=" It repeats: next {when}.")
STAMP_DONE = Text(ja="✅ 完了", en="✅ Done")
STAMP_SNOOZED = Text(ja="⏰ {when} にもう一度", en="⏰ snoozed to {when}")

# -- the Delete / Cancel question of /kb delete, /notes delete and /otomo forget ----------------

DELETE = Text(ja="削除する", en="Delete")
CANCEL = Text(ja="やめる", en="Cancel")
CONFIRMATION_EXPIRED = Text(
    ja="⌛ 確認の期限が切れました。削除していません。",
    en="⌛ The confirmation expired; nothing was deleted.",
)
NOTHING_DELETED = Text(ja="削除をやめました。", en="Cancelled: nothing was deleted.")

# -- /tools ---------------------------------------------------------------------------------------

CHOOSE_GRANTS = Text(ja="取り消す操作を選ぶ", en="Choose grants to revoke")
REVOKED = Text(ja="取り消しました: {names}", en="Revoked: {names}")
NO_EXTERNAL_TOOLS = Text(ja="外部ツールはありません。", en="No external tools.")
