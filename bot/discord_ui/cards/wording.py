"""Every sentence of the tool cards and approval buttons in Japanese and English; a card shows
the one language of the member it is for (the language of their message)."""

from __future__ import annotations

from bot.agent.tools.presentation import Words

# The state line at the top of a card.
PREPARING = Words("準備中…", "Preparing…")
NEEDS_APPROVAL = Words("承認待ち", "Needs approval")
APPROVED_WAITING_STATE = Words(
    "承認済み：ほかの操作を待っています", "Approved: waiting for the other actions"
)
RUNNING = Words("実行中…", "Running…")
DONE = Words("完了", "Done")
FAILED = Words("失敗", "Failed")
REJECTED = Words("却下されました", "Rejected")
EXPIRED = Words("期限切れのため実行していません", "Expired: nothing was run")
INVALIDATED = Words("取り消されたため実行していません", "Cancelled: nothing was run")
INTERRUPTED = Words("停止しました", "Stopped")
UNKNOWN_OUTCOME = Words(
    "実行中にボットが再起動したため、結果がわかりません",
    "Started, but the bot restarted before it finished: the outcome is unknown",
)
CHANGED = Words("ツールが変わったため実行していません", "The tool changed: nothing was run")
PROVIDED_BY = Words("提供元", "Provided by")
WHY_ASKED = Words("確認する理由", "Why you are asked")
EXTERNAL_TOOL = Words("（外部ツール）", "(external tool)")
ARGUMENTS = Words("引数", "Arguments")
FORGOTTEN = Words(
    "会話の記憶が削除されたため実行しません（/otomo forget）",
    "The conversation was forgotten (/otomo forget), so this will not run",
)

WAITING_FOR = Words("{who} さんの承認を待っています", "Waiting for {who} to approve")
EXPIRES = Words("（期限 {when}）", " (expires {when})")
APPROVAL = Words("承認", "Approval")
DECIDED_BY = Words("決めた人", "Decided by")
REASON = Words("理由", "Reason")
RESULT = Words("結果", "Result")
DIDNT_WORK = Words(
    "うまくいきませんでした。理由は返信でお伝えします。",
    "That did not work; the reply says why.",
)
DONE_LINE = Words("{doing}しました", "{doing}: done")
RUNNING_LINE = Words("{doing}中…", "{doing}…")
FAILED_LINE = Words("{doing}できませんでした", "{doing}: that did not work")
ALSO_WAITING = Words("この回答で承認を待っている操作", "Waiting for approval in this answer")
EDITED = Words("（変更後）", " (edited)")

# Buttons and the edit form.
APPROVE = Words("承認", "Approve")
REJECT = Words("却下", "Reject")
ALWAYS = Words("常に許可", "Always allow")
EDIT = Words("編集", "Edit")
APPROVE_ALL = Words("すべて承認", "Approve all")
REJECT_ALL = Words("すべて却下", "Reject all")
STOP = Words("停止", "Stop")
REJECT_TITLE = Words("却下の理由", "Why reject?")
REJECT_REASON = Words("理由（任意）", "Reason (optional)")
EDIT_TITLE = Words("内容を直して実行", "Edit, then run")
OTHER_ARGUMENTS = Words("そのほか（JSON）", "Other (JSON)")
EDIT_INVALID = Words(
    "この内容では実行できません: {why}",
    "This cannot run as edited: {why}",
)
NOT_JSON = Words("「{label}」はJSONとして読めません。", "“{label}” is not valid JSON.")
APPROVED_WAITING = Words(
    "承認しました。同じ回答のほかの操作が決まりしだい実行します。",
    "Approved: it runs once the other actions of this answer are decided.",
)
GONE = Words("このリクエストはもう存在しません。", "This request no longer exists.")
NOTHING_WAITING = Words(
    "承認を待っている操作はもうありません。", "Nothing is waiting for approval any more."
)
