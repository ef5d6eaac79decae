"""Every sentence of the tool cards and approval buttons in Japanese and English; a card shows
the one language of the member it is for (the language of their message)."""

from __future__ import annotations

from bot.i18n import Text

# The state line at the top of a card.
PREPARING = Text("準備中…", "Preparing…")
NEEDS_APPROVAL = Text("承認待ち", "Needs approval")
APPROVED_WAITING_STATE = Text(
    "承認済み：ほかの操作を待っています", "Approved: waiting for the other actions"
)
RUNNING = Text("実行中…", "Running…")
DONE = Text("完了", "Done")
FAILED = Text("失敗", "Failed")
REJECTED = Text("却下されました", "Rejected")
EXPIRED = Text("期限切れのため実行していません", "Expired: nothing was run")
INVALIDATED = Text("取り消されたため実行していません", "Cancelled: nothing was run")
INTERRUPTED = Text("停止しました", "Stopped")
UNKNOWN_OUTCOME = Text(
    "実行中にボットが再起動したため、結果がわかりません",
    "Started, but the bot restarted before it finished: the outcome is unknown",
)
CHANGED = Text("ツールが変わったため実行していません", "The tool changed: nothing was run")
PROVIDED_BY = Text("提供元", "Provided by")
WHY_ASKED = Text("確認する理由", "Why you are asked")
EXTERNAL_TOOL = Text("（外部ツール）", "(external tool)")
ARGUMENTS = Text("引数", "Arguments")
FORGOTTEN = Text(
    "会話の記憶が削除されたため実行しません（/otomo forget）",
    "The conversation was forgotten (/otomo forget), so this will not run",
)

WAITING_FOR = Text("{who} さんの承認を待っています", "Waiting for {who} to approve")
EXPIRES = Text("（期限 {when}）", " (expires {when})")
APPROVAL = Text("承認", "Approval")
DECIDED_BY = Text("決めた人", "Decided by")
REASON = Text("理由", "Reason")
RESULT = Text("結果", "Result")
DIDNT_WORK = Text(
    "うまくいきませんでした。理由は返信でお伝えします。",
    "That did not work; the reply says why.",
)
DONE_LINE = Text("{doing}しました", "{doing}: done")
RUNNING_LINE = Text("{doing}中…", "{doing}…")
FAILED_LINE = Text("{doing}できませんでした", "{doing}: that did not work")
ALSO_WAITING = Text("この回答で承認を待っている操作", "Waiting for approval in this answer")
EDITED = Text("（変更後）", " (edited)")

# Buttons and the edit form.
APPROVE = Text("承認", "Approve")
REJECT = Text("却下", "Reject")
ALWAYS = Text("常に許可", "Always allow")
EDIT = Text("編集", "Edit")
APPROVE_ALL = Text("すべて承認", "Approve all")
REJECT_ALL = Text("すべて却下", "Reject all")
STOP = Text("停止", "Stop")
REJECT_TITLE = Text("却下の理由", "Why reject?")
REJECT_REASON = Text("理由（任意）", "Reason (optional)")
EDIT_TITLE = Text("内容を直して実行", "Edit, then run")
OTHER_ARGUMENTS = Text("そのほか（JSON）", "Other (JSON)")
EDIT_INVALID = Text(
    "この内容では実行できません: {why}",
    "This cannot run as edited: {why}",
)
NOT_JSON = Text("「{label}」はJSONとして読めません。", "“{label}” is not valid JSON.")
APPROVED_WAITING = Text(
    "承認しました。同じ回答のほかの操作が決まりしだい実行します。",
    "Approved: it runs once the other actions of this answer are decided.",
)
GONE = Text("このリクエストはもう存在しません。", "This request no longer exists.")
NOTHING_WAITING = Text(
    "承認を待っている操作はもうありません。", "Nothing is waiting for approval any more."
)
