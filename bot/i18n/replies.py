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
    ja="このボタンはリマインドを頼んだ人と、リマインドされる人だけが使えます。",
    en="Only the person who asked for this reminder, or the one it reminds, can use these buttons.",
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
NOT_CONSENT_TARGET = Text(
    ja="このリマインドの依頼はあなた宛てではありません。",
    en="This reminder request is not for you.",
)
CONSENT_CLOSED = Text(
    ja="この依頼はもう答えが出ているか、時間が過ぎています。",
    en="This request was already answered, or its time has passed.",
)
CONSENT_ACCEPTED = Text(
    ja="✅ 受け取りました。{when} にお知らせします。",
    en="✅ Accepted. I'll remind you at {when}.",
)
CONSENT_DECLINED = Text(
    ja="このリマインドは断りました。送られません。",
    en="Declined: this reminder will not be sent.",
)
CONSENT_BLOCKED = Text(
    ja="この人からのリマインドはこのサーバーでは今後受け取りません（{count}件を断りました）。",
    en="You will get no more reminders from this person in this server ({count} declined).",
)
SERVER_ONLY_UNBLOCK = Text(
    ja="リマインドの受け取り停止はサーバーごとです。サーバーで使ってください。",
    en="Stopped reminders are per server: use this in a server.",
)
BLOCKED_LIST = Text(
    ja="このサーバーでリマインドを受け取らない相手: {members}",
    en="In this server you take no reminders from: {members}",
)
BLOCKED_NONE = Text(
    ja="このサーバーで受け取りを止めている相手はいません。",
    en="You have not stopped anyone's reminders in this server.",
)
UNBLOCKED = Text(
    ja="{member} からのリマインドをまた受け取ります（受け取る前に確認します）。",
    en="You take reminders from {member} again (each one still asks you first).",
)
NOT_BLOCKED = Text(
    ja="{member} からのリマインドは止めていません。",
    en="You had not stopped reminders from {member}.",
)
STAMP_ACCEPTED = Text(ja="✅ 受け取りました", en="✅ Accepted")
STAMP_DECLINED = Text(ja="🚫 断りました", en="🚫 Declined")
STAMP_BLOCKED = Text(
    ja="🔕 この人からのリマインドを停止", en="🔕 Stopped reminders from this person"
)
ACCEPT_LABEL = Text(ja="受け取る", en="Accept")
DECLINE_LABEL = Text(ja="断る", en="Decline")
BLOCK_LABEL = Text(ja="この人からは受け取らない", en="Stop all from this person")
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

# -- /otomo memory, forget and usage --------------------------------------------------------------

USAGE_REFUSAL = Text(
    ja="利用状況を見られるのは「サーバー管理」権限を持つ管理者だけです。",
    en="Only admins (Manage Server) can see the usage.",
)
MEMORY_ELSEWHERE = Text(
    ja="\n他の {count} か所（チャンネル・DM）にも会話があります"
    "（`/otomo forget scope:Everywhere`）。",
    en="\nI also keep conversations with you in {count} other channel(s) or DMs "
    "(`/otomo forget scope:Everywhere`).",
)
MEMORY_NOTHING = Text(
    ja="このチャンネルでは、あなたとの会話を何も覚えていません。",
    en="I keep nothing of our conversation in this channel.",
)
MEMORY_TITLE = Text(
    ja="🧠 **このチャンネルで覚えていること**", en="🧠 **What I keep for you here**"
)
MEMORY_MESSAGES = Text(
    ja="メッセージ: **{messages}**（あなたの発言: {yours}）",
    en="Messages: **{messages}** (yours: {yours})",
)
MEMORY_SPAN = Text(ja="期間: {first} → {last}", en="From–to: {first} → {last}")
MEMORY_KEPT_DAYS = Text(ja="保存期間: {days} 日", en="Kept for: {days} days")
MEMORY_KEPT_FOREVER = Text(ja="保存期間: 削除するまで", en="Kept for: until you delete it")
MEMORY_SUMMARY = Text(ja="要約（{at}）:", en="Summary ({at}):")
MEMORY_NO_SUMMARY = Text(ja="要約: まだありません", en="Summary: none yet")
MEMORY_DELETE = Text(ja="削除: `/otomo forget`", en="Delete: `/otomo forget`")
USAGE_TITLE = Text(
    ja="📊 **モデルの利用状況（ボット全体）** — {days} 日（{zone}）",
    en="📊 **Model usage (whole bot)** — {days} days ({zone})",
)
USAGE_TITLE_SERVER = Text(
    ja="📊 **モデルの利用状況（このサーバー）** — {days} 日（{zone}）",
    en="📊 **Model usage (this server)** — {days} days ({zone})",
)
USAGE_OWNERS_ONLY = Text(
    ja="ボット全体の利用状況を見られるのはボットのオーナーだけです。",
    en="Only the bot's owners can see the whole bot's usage.",
)
BUDGET_TITLE = Text(
    ja="🪙 **今日のトークン**（{reset} にリセット）",
    en="🪙 **Tokens today** (resets {reset})",
)
BUDGET_SERVER = Text(ja="サーバー", en="Server")
BUDGET_MEMBER = Text(ja="あなた", en="You")
BUDGET_UNLIMITED = Text(ja="{label}: {used} / 無制限", en="{label}: {used} / unlimited")
BUDGET_LEFT = Text(
    ja="{label}: {used} / {limit}（残り {left}）", en="{label}: {used} / {limit} ({left} left)"
)
BUDGET_COST_TITLE = Text(
    ja="💴 **今日の推定費用**（litellm の価格表、USD）",
    en="💴 **Estimated cost today** (litellm's price map, USD)",
)
BUDGET_COST_UNLIMITED = Text(ja="サーバー: {used} / 無制限", en="Server: {used} / unlimited")
BUDGET_COST_LEFT = Text(
    ja="サーバー: {used} / {limit}（残り {left}）", en="Server: {used} / {limit} ({left} left)"
)
UNPRICED_MODELS = Text(
    ja="⚠️ 価格が分からないモデル: {models}。費用は unknown と表示し、費用の上限には数えません"
    "（トークンの上限には数えます）。",
    en="⚠️ No price known for: {models}. Their cost shows as unknown and does not count "
    "toward the cost budget (it does count toward token budgets).",
)
USAGE_MODELS = Text(ja="モデル別（推定費用、USD）", en="Per model (estimated cost, USD)")
USAGE_PURPOSES = Text(ja="\n用途: {purposes}", en="\nPurposes: {purposes}")
FORGET_EVERYWHERE = Text(
    ja="🧹 すべてのチャンネルとDMでの会話の履歴と要約を削除しますか？元に戻せません。",
    en="🧹 Delete our conversation history and summaries everywhere (every channel and DM)? "
    "This cannot be undone.",
)
FORGET_HERE = Text(
    ja="🧹 このチャンネルでの会話の履歴と要約を削除しますか？元に戻せません。",
    en="🧹 Delete our conversation history and summaries in this channel? This cannot be undone.",
)
FORGOTTEN = Text(
    ja="🧹 削除しました: メッセージ {messages} 件（会話 {conversations} 件）。また一から始めます。",
    en="🧹 Deleted {messages} messages from {conversations} conversation(s); I start afresh.",
)

# -- /notes ----------------------------------------------------------------------------------------

NOTES_NEED_SERVER = Text(
    ja="メモはサーバーごとです。サーバーのチャンネルで使ってください。",
    en="Notes belong to a server: use this in one of its channels.",
)
NOTE_EDITED = Text(ja="（編集: {name}, {at}）", en=" (edited: {name}, {at})")
NO_NOTE_MATCHES = Text(ja="「{search}」に合うメモはありません。", en="No note matches “{search}”.")
NOTES_FOUND = Text(ja="🔎 **メモ**「{search}」", en="🔎 **Notes** “{search}”")
NO_NOTES_YET = Text(
    ja="メモはまだありません。「@Otomo これメモしといて」で書けます。",
    en='No notes yet; mention me with "note this down" to write one.',
)
NOTEBOOK_PAGE = Text(
    ja="📒 **メモ帳**: {total} 件 — {page}/{pages}",
    en="📒 **Notebook**: {total} notes — {page}/{pages}",
)
NEXT_PAGE = Text(ja="次のページ: `{command}`", en="Next page: `{command}`")
WHOLE_NOTE = Text(ja="全文: `/notes show`", en="Whole note: `/notes show`")
NOT_YOUR_NOTE = Text(
    ja="{label} は {name} さんのメモです。削除できるのは書いた人か管理者だけです。",
    en="{label} is {name}'s note: only they (who wrote it) or a moderator can delete it.",
)
NOTE_DELETED = Text(ja="🗑️ {label} を削除しました。", en="🗑️ Deleted note {label}.")
NOTE_KEPT = Text(ja="削除をやめました。{label} はそのままです。", en="Cancelled: {label} was kept.")
DELETE_NOTE = Text(ja="🗑️ {label} を削除しますか？", en="🗑️ Delete note {label}?")

# -- /remind and /timezone -------------------------------------------------------------------------

NOT_YOUR_REMINDER = Text(
    ja="#{id} は別の人のリマインドです。取り消せるのは頼んだ本人だけです。",
    en="Reminder #{id} belongs to someone else; only they can cancel it.",
)
NO_SUCH_REMINDER = Text(
    ja="#{id} というリマインドはありません。`/remind list` で番号を確かめてください。",
    en="There is no reminder #{id}; `/remind list` shows yours.",
)
REMINDER_ALREADY_CLOSED = Text(
    ja="#{id} はもう届いたか、取り消し済みです。",
    en="Reminder #{id} was already delivered or cancelled.",
)
REMINDER_NOT_CANCELLED = Text(
    ja="#{id} を取り消せませんでした。`/remind list` からもう一度お試しください。",
    en="I could not cancel #{id}; please try again from `/remind list`.",
)
CHOOSE_REMINDERS = Text(ja="取り消すリマインドを選ぶ", en="Choose reminders to cancel")
REMINDER_CANCELLED = Text(ja="🗑️ 取り消しました: {line}", en="🗑️ Cancelled: {line}")
NO_PENDING_REMINDERS = Text(
    ja="予定しているリマインドはありません。メンションして「明日9時に歯医者ってリマインドして」の"
    "ように頼んでください。",
    en='You have no pending reminders; mention me with something like "remind me about the '
    'dentist at 9 tomorrow".',
)
YOUR_REMINDERS = Text(ja="⏰ あなたのリマインド（{count}）", en="⏰ Your reminders ({count})")
REMINDERS_FOOTER = Text(
    ja="{zone} ・ /timezone set で変更", en="{zone} · change with /timezone set"
)
SOONEST_ONLY = Text(ja="近い順に{count}件まで ・ ", en="the {count} soonest · ")
UNKNOWN_TIMEZONE = Text(
    ja="⚠️ 「{name}」というタイムゾーンは見つかりません。Asia/Tokyo のような名前を候補から"
    "選んでください。",
    en='⚠️ I don\'t know the time zone "{name}": pick a name such as Asia/Tokyo from the '
    "suggestions.",
)
TIMEZONE_SET = Text(
    ja="🕒 タイムゾーンを **{zone}** にしました（いま {now}）。これから頼むリマインドの時刻は"
    "このタイムゾーンで読みます。",
    en="🕒 Your time zone is now **{zone}** (local time {now}); I'll read the times of new "
    "reminders in it.",
)
TIMEZONE_SHOWN = Text(
    ja="🕒 あなたのタイムゾーンは **{zone}** です（いま {now}）。`/timezone set` で変更できます。",
    en="🕒 Your time zone is **{zone}** (local time {now}). Change it with `/timezone set`.",
)

# -- /model ----------------------------------------------------------------------------------------

MODEL_REFUSAL = Text(
    ja="モデルを切り替えられるのはサーバー管理の権限がある人だけです。",
    en="Only members with Manage Server (or Administrator) can switch the model.",
)
MODEL_NEEDS_SERVER = Text(
    ja="モデルはサーバーごとに選びます。サーバーのチャンネルで使ってください。",
    en="The model is chosen per server: use /model in one of its channels.",
)
SEES_IMAGES = Text(ja="`{model}`（画像も読めます）", en="`{model}` (sees images)")
NO_IMAGES = Text(ja="`{model}`（画像は読めません）", en="`{model}` (no images)")
MODEL_SWITCHED = Text(
    ja="次の回答から {model} を使います。", en="From the next answer on, Otomo uses {model} here."
)
CURRENT_MODEL = Text(ja="今のモデル: {model}", en="Current model: {model}")
MODEL_CHOICES = Text(ja="選べるモデル（`/model name:…`）:", en="Choices (`/model name:…`):")
DEFAULT_MODEL = Text(ja="（既定）", en=" (default)")
MORE_MODELS = Text(
    ja="-# ほかのモデルは運営者が `.env` の `LLM_MODELS` に追加します。",
    en="-# An operator offers more models with `LLM_MODELS` in `.env`.",
)

# -- /tools list -----------------------------------------------------------------------------------

TOOL_DISABLED = Text(ja="⛔ 無効（管理者が停止）", en="⛔ disabled by an admin")
TOOL_AVAILABLE = Text(ja="✅ 利用可", en="✅ available")
TOOL_UNAVAILABLE = Text(ja="⚠️ 利用不可 — {why}", en="⚠️ unavailable — {why}")
NO_TOOLS_LISTED = Text(
    ja="外部ツールはありません。プラグインはツールAPI（TOOLS_API_PORT）で登録し、MCPサーバーは"
    "MCP_SERVERS_FILE から読み込みます。",
    en="No external tools: plugins register over the tools API (TOOLS_API_PORT) and MCP "
    "servers come from MCP_SERVERS_FILE.",
)
EXTERNAL_TOOLS = Text(ja="🧩 外部ツール", en="🧩 External tools")
CHOOSE_TOOL = Text(ja="無効化・有効化するツール", en="Disable or enable a tool")
ENABLE_TOOL = Text(ja="{name} を有効にする", en="Enable {name}")
DISABLE_TOOL = Text(ja="{name} を無効にする", en="Disable {name}")
TOOL_TURNED_OFF = Text(ja="`{name}` を無効にしました。", en="Disabled `{name}`.")
TOOL_TURNED_ON = Text(ja="`{name}` を有効にしました。", en="Enabled `{name}`.")
TOOLS_ADMINS_ONLY = Text(
    ja="外部ツールの一覧は管理者（サーバー管理権限）だけが見られます。",
    en="Only admins (Manage Server) can list external tools.",
)

# -- /kb -------------------------------------------------------------------------------------------

KB_NO_FILES = Text(
    ja="ファイルはありません{where}。/kb new で作れます。",
    en="No files{where}; create one with /kb new.",
)
KB_LIST = Text(
    ja="📚 **ナレッジベース**{where}: {count} ファイル, {size} — {page}/{pages}",
    en="📚 **Knowledge base**{where}: {count} files, {size} — {page}/{pages}",
)
KB_NEXT_PAGE = Text(ja="次のページ: `{command}`", en="Next page: `{command}`")
KB_ATTACHED = Text(ja="{header}\nファイルで送ります。", en="{header}\nAttached as a file.")
KB_NO_CHANGES = Text(ja="まだ変更の記録はありません。", en="No changes recorded yet.")
KB_CHANGES = Text(ja="🕘 **変更履歴**（{zone}）", en="🕘 **Changes** ({zone})")
KB_TOO_LONG_FOR_FORM = Text(
    ja="`{source}` は {length} 文字あり、フォームに入る {limit} 文字を超えています。添付の今の"
    "ファイルを編集して、`/kb edit path:{path} file:<ファイル>` でアップロードしてください。",
    en="`{source}` has {length} characters, more than a form holds ({limit}). Edit the "
    "attached copy and upload it with `/kb edit path:{path} file:<attachment>`.",
)
KB_EDIT_TITLE = Text(ja="編集: {path}", en="Edit: {path}")
KB_NEW_TITLE = Text(ja="新規: {path}", en="New: {path}")
KB_KEPT = Text(
    ja="削除をやめました。`{source}` はそのままです。", en="Cancelled: `{source}` was kept."
)
KB_DELETE = Text(
    ja="⚠️ `{source}`（{size}）を削除しますか？ 取り消せません。",
    en="⚠️ Delete `{source}` ({size})? This cannot be undone.",
)
KB_REFUSAL = Text(
    ja="ナレッジベースを編集できるのは「サーバー管理」権限か、ナレッジベース管理ロールを持つ"
    "メンバーだけです。",
    en="Only members with Manage Server or a knowledge-base admin role (KB_ADMIN_ROLE_IDS) can "
    "use /kb.",
)
KB_TEXT_LABEL = Text(ja="本文（Markdown）", en="Text (markdown)")
KB_FILE_DELETED = Text(
    ja="🗑️ `{source}` を削除しました。/kb history に記録されています。",
    en="🗑️ Deleted `{source}`; /kb history keeps the record.",
)
KB_CREATED = Text(
    ja="🆕 `{source}` を作りました（{size}）。次の質問から使われます。",
    en="🆕 Created `{source}` ({size}); answers use it from the next question.",
)
KB_SAVED = Text(
    ja="✅ `{source}` を保存しました（{sizes}）。次の質問から使われます。",
    en="✅ Saved `{source}` ({sizes}); answers use it from the next question.",
)
KB_MORE = Text(ja="\n…ほか {count} 件", en="\n…{count} more")
KB_TEXT_ATTACHED = Text(ja="書いた本文を添付します。", en="Your text is attached.")
KB_CREATED_ACTION = Text(ja="🆕 作成", en="🆕 created")
KB_EDITED_ACTION = Text(ja="✏️ 編集", en="✏️ edited")
KB_DELETED_ACTION = Text(ja="🗑️ 削除", en="🗑️ deleted")
KB_WEB_SEARCH_ACTION = Text(ja="🔎 Web検索", en="🔎 web search")
KB_RELOADED = Text(
    ja="🔄 再読み込みしました: 追加 {added}、更新 {updated}、削除 {removed}（{seconds} 秒）。",
    en="🔄 Reloaded: {added} added, {updated} updated, {removed} removed ({seconds} s).",
)
KB_NOTHING_CHANGED = Text(ja="変更はありませんでした。", en="Nothing had changed.")
KB_ADDED = Text(ja="追加", en="Added")
KB_UPDATED = Text(ja="更新", en="Updated")
KB_REMOVED = Text(ja="削除", en="Removed")
KB_LEFT_OUT = Text(ja="⚠️ 大きすぎるか読めないため除外", en="⚠️ Left out (too large or unreadable)")

# -- /otomo settings ----------------------------------------------------------------------------

SETTINGS_REFUSAL = Text(
    ja="サーバーの設定を変えられるのは「サーバー管理」権限を持つ管理者だけです。",
    en="Only members with Manage Server (or Administrator) can change this server's settings.",
)
SETTINGS_NO_SERVER = Text(
    ja="設定はサーバーごとです。サーバーのチャンネルで使ってください。",
    en="Settings are per server: use /otomo settings in one of its channels.",
)
SETTINGS_TITLE = Text(ja="⚙️ このサーバーの設定", en="⚙️ This server's settings")
SETTINGS_LEGEND = Text(
    ja="🏠 = このサーバーで設定 · 🌐 = ボットの既定", en="🏠 = set here · 🌐 = the bot's default"
)
SETTINGS_GROUPS: dict[str, Text] = {
    "answering": Text(ja="💬 応答", en="💬 Answering"),
    "roles": Text(ja="🔐 ロール", en="🔐 Roles"),
    "tools": Text(ja="🧰 ツール", en="🧰 Tools"),
    "weather": Text(ja="☀️ 毎日の天気", en="☀️ Daily weather"),
    "tips": Text(ja="💡 Tips・話題", en="💡 Tips and topics"),
    "budgets": Text(ja="🪙 予算", en="🪙 Budgets"),
}
SETTINGS_CHANGE = Text(ja="変更する設定", en="Change a setting")
SETTINGS_RESET = Text(ja="既定に戻す", en="Reset to the default")
SETTINGS_UNCHANGED = Text(ja="⚠️ {why}\n変更していません。", en="⚠️ {why}\nNothing was changed.")
NOT_OUR_CHANNEL = Text(
    ja="{ids}: このサーバーのチャンネルではありません。", en="{ids}: not a channel of this server."
)
NOT_OUR_ROLE = Text(
    ja="{ids}: このサーバーのロールではありません。", en="{ids}: not a role of this server."
)
# Why a typed value cannot be a setting's value.
ENTER_IDS = Text(
    ja="チャンネルやロールのIDを入力してください。", en="Enter channel or role ids (or mentions)."
)
AT_MOST = Text(ja="{count}個までです。", en="At most {count}.")
ONLY_ONE_CHANNEL = Text(ja="ひとつだけ入力してください。", en="Enter only one channel.")
ENTER_TOOL_NAMES = Text(
    ja="ツール名を空白かカンマで区切って入力してください。",
    en="Enter tool names, separated by spaces or commas.",
)
ONE_OF = Text(ja="{options} のどれかです。", en="Use one of: {options}.")
ON_OR_OFF = Text(ja="on か off です。", en="Use on or off.")
ENTER_ZONE = Text(
    ja="Asia/Tokyo のようなタイムゾーン名を入力してください。",
    en="Enter a time zone such as Asia/Tokyo.",
)
PERSONA_TOO_LONG = Text(
    ja="{limit}文字以内にしてください。", en="Keep it under {limit} characters."
)
ENTER_CLOCK_TIME = Text(ja="07:00 のように入力してください。", en="Enter a time such as 07:00.")
ENTER_HOURS = Text(ja="0-7 のように入力してください。", en="Enter hours such as 0-7.")
HOURS_RANGE = Text(ja="0.25〜168 時間です。", en="Use 0.25 to 168 hours.")
WHOLE_NUMBER = Text(ja="0以上の整数です（0 は無制限）。", en="Use a whole number (0 = unlimited).")
SETTINGS_CHANGE_SOME = Text(ja="変更する設定: {groups}", en="Change a setting: {groups}")
ENTER_DOLLARS = Text(
    ja="米ドルの金額です（例: 1.50、0 は無制限）。",
    en="Use an amount in US dollars, e.g. 1.50 (0 = unlimited).",
)
ENTER_PLACE = Text(ja="地名を入力してください。", en="Enter a place name.")

# Message actions (right-click a message → Apps)
REMIND_FORM_TITLE = Text(ja="このメッセージをリマインド", en="Remind me about this")
REMIND_FORM_WHEN = Text(ja="いつ？", en="When?")
REMIND_FORM_WHEN_HINT = Text(
    ja="例: 明日の9時、30分後、金曜の18時", en="e.g. tomorrow 9am, in 30 minutes"
)
REMIND_FORM_NOTE = Text(ja="メモ（任意）", en="Note (optional)")
REMIND_SET = Text(
    ja="⏰ {when} に、このメッセージ（{link}）をリマインドします（#{id}）。",
    en="⏰ I'll remind you about this message ({link}) on {when} (#{id}).",
)
REMIND_TIME_UNREADABLE = Text(
    ja="「{typed}」がいつなのか読み取れませんでした。「明日の9時」「30分後」のように書いて、もう一度どうぞ。",
    en="I couldn't tell when “{typed}” is. Try again with something like “tomorrow 9am” or "
    "“in 30 minutes”.",
)
REMIND_TIME_PAST = Text(
    ja="「{typed}」はもう過ぎています。これから先の時刻でもう一度どうぞ。",
    en="“{typed}” has already passed. Try again with a time in the future.",
)
REMIND_TIME_TOO_FAR = Text(
    ja="リマインドは{days}日先までです。もっと近い日時でもう一度どうぞ。",
    en="Reminders can be at most {days} days ahead. Try again with a nearer time.",
)
REMIND_TOO_MANY = Text(
    ja="未送信のリマインドが上限（{limit}件）に達しています。"
    "/remind list で取り消してから、もう一度どうぞ。",
    en="You already have the most pending reminders allowed ({limit}). Cancel one with "
    "/remind list, then try again.",
)
REMIND_NOT_SET = Text(
    ja="このリマインドは登録できませんでした。時刻を変えてもう一度どうぞ。",
    en="I couldn't set this reminder. Try again with another time.",
)
ACTION_ONLY_IN_SERVERS = Text(
    ja="この操作はサーバーのチャンネルのメッセージでだけ使えます。",
    en="This works only on messages in a server's channels.",
)
ACTION_MESSAGE_GONE = Text(
    ja="そのメッセージは削除されたか、読めなくなりました。",
    en="That message was deleted, or I can no longer read it.",
)
ACTION_NOT_HERE = Text(
    ja="このチャンネルでは Otomo は使えないように設定されています"
    "（サーバーの管理者が /otomo settings で変えられます）。",
    en="Otomo is set not to work in this channel (the server's admins can change that with "
    "/otomo settings).",
)
ACTION_TOOL_OFF = Text(
    ja="このサーバーではリマインドが無効になっています。",
    en="Reminders are switched off in this server.",
)
ASK_FORM_TITLE = Text(ja="Otomo に聞く", en="Ask Otomo about this")
ASK_FORM_QUESTION = Text(ja="聞きたいこと（任意）", en="Your question (optional)")
ASK_FORM_QUESTION_HINT = Text(
    ja="空欄なら、このメッセージを説明します", en="Leave it empty to have the message explained"
)
ASK_DEFAULT_QUESTION = Text(
    ja="このメッセージについて、わかりやすく説明してください。",
    en="Please explain this message.",
)
ASK_ANSWER_TITLE = Text(
    ja="Otomo の答え（あなたにだけ表示）", en="Otomo's answer (only you see it)"
)
ASK_NO_ANSWER = Text(
    ja="答えを作れませんでした。少しあとでもう一度どうぞ。",
    en="I couldn't come up with an answer. Please try again in a moment.",
)
ASK_POST_PUBLICLY = Text(ja="チャンネルに公開", en="Post publicly")
ASK_POSTED_BY = Text(
    ja="💬 {asker} さんが {link} について Otomo に聞きました",
    en="💬 Asked by {asker} about {link}",
)
ASK_POSTED = Text(ja="チャンネルに公開しました。", en="Posted in the channel.")
ASK_NOT_YOURS = Text(
    ja="この答えを公開できるのは、質問した人だけです。",
    en="Only the person who asked can post this answer.",
)
ASK_NOTHING_TO_POST = Text(
    ja="公開する答えが見つかりませんでした。", en="There is no answer here to post."
)
ASK_CANNOT_POST = Text(
    ja="このチャンネルには投稿できませんでした（権限を確認してください）。",
    en="I couldn't post in this channel (check my permissions there).",
)
