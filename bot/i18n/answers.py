"""Sentences of answering: refusals, failures, how a run ends, clicks on cards and Stop."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Language, Text

# -- the gate: a message for Otomo that is not answered now ------------------------------------

EMPTY_MENTION = Text(
    ja="はい、何でしょう？ 質問やお願いを添えてメンションしてください。",
    en="Yes? Mention me with a question or request.",
)
TOO_LONG = Text(
    ja="メッセージが長すぎます（{length}文字）。{limit}文字以内にしてください。",
    en="That message is too long ({length} characters); please keep it under {limit}.",
)
TOO_FAST = Text(
    ja="ちょっと待ってください（あと{seconds}秒）。",
    en="You're sending requests quickly; try again in {seconds} s.",
)

# -- when the bot cannot answer at all ----------------------------------------------------------

INTERNAL_ERROR = Text(
    ja="ごめんなさい、内部エラーが起きました。少し待ってからもう一度お願いします。",
    en="Sorry, something went wrong on my side; please try again in a moment.",
)
RESTARTING = Text(
    ja="いま再起動中なので答えられません。少ししてからもう一度話しかけてください。",
    en="I'm restarting right now, so I can't answer this; mention me again in a minute.",
)
DATABASE_UNREACHABLE = Text(
    ja="ごめんなさい、いまデータベースにつながらないので答えられません。少ししてからもう一度"
    "お願いします。リマインドは保存されていて、時間になれば投稿されます。",
    en="Sorry, I can't reach my database right now, so I can't answer; please try again in a "
    "minute. Reminders are kept and will still be posted.",
)
DATABASE_UNREACHABLE_ACTION = Text(
    ja="ごめんなさい、いまデータベースにつながらないので、この操作はできません。少ししてから"
    "もう一度お願いします。リマインドは保存されていて、時間になれば投稿されます。",
    en="Sorry, I can't reach my database right now, so I can't do that; please try again in a "
    "minute. Reminders are kept and will still be posted.",
)

# -- the model could not answer (LLMFailure kinds) ----------------------------------------------

FAILURE_PREFIX = Text(
    ja="ごめんなさい、うまく答えられませんでした。{reason}",
    en="Sorry, I couldn't answer: {reason}",
)
MODEL_UNAVAILABLE = Text(
    ja="いまボットのモデルにつながりません。管理者にはログで知らせてあります。時間をおいて"
    "もう一度お願いします。",
    en="The bot's model is not reachable right now; an admin has been told in the log. "
    "Please try again later.",
)
CONTEXT_TOO_LONG = Text(
    ja="この会話がモデルには長くなりすぎました。新しい話題で話しかけるか、モデルのコンテキスト"
    "長を増やすよう管理者に頼んでください。",
    en="This conversation got too long for the model. Start a new topic or ask an admin "
    "to raise the model's context size.",
)
CONTENT_POLICY = Text(
    ja="モデルがコンテンツポリシーによりこのお願いを断りました。言い方を変えてみてください。",
    en="The model declined this request under its content policy. Please rephrase it.",
)
RATE_LIMITED = Text(
    ja="AIサービスの利用制限にかかっています。1分ほどしてからもう一度お願いします。",
    en="The AI service is rate-limiting us right now. Please try again in a minute.",
)
# A model slower than the bot waits for: trying again meets the same wait, so the member is
# told what happened; the log tells the operator which setting to raise.
MODEL_TIMEOUT = Text(
    ja="ボットのモデルの応答が遅すぎて、待てる時間内に返事が来ませんでした。"
    "どの設定を上げればよいかは管理者にログで知らせてあります。",
    en="The bot's model was too slow: its answer did not come within the time the bot waits. "
    "An admin has been told in the log which setting to raise.",
)
BAD_REQUEST = Text(
    ja="ボットのモデルがこのメッセージを受け付けませんでした。管理者にはログで知らせてあります。",
    en="The bot's model could not take this message; an admin has been told in the log.",
)
ROUND_TIMED_OUT = MODEL_TIMEOUT
UNKNOWN_APPROVAL = Text(
    ja="そのリクエストはもうありません。",
    en="That request no longer exists.",
)

# The sentence for each failure kind (`LLMFailure.kind`); an unknown kind reads as unavailable.
LLM_FAILURES: dict[str, Text] = {
    "auth": MODEL_UNAVAILABLE,
    "model_not_found": MODEL_UNAVAILABLE,
    "unreachable": MODEL_UNAVAILABLE,
    "server_error": MODEL_UNAVAILABLE,
    "context_too_long": CONTEXT_TOO_LONG,
    "content_policy": CONTENT_POLICY,
    "rate_limit": RATE_LIMITED,
    "timeout": MODEL_TIMEOUT,
    "bad_request": BAD_REQUEST,
    "unknown_approval": UNKNOWN_APPROVAL,
}

# -- how a run ends early ------------------------------------------------------------------------

CUT_BY_TIME = Text(
    ja="✂️ 答えに{seconds}秒以上かかったので、ここで切りました。もう少し具体的に聞き直して"
    "ください。",
    en="✂️ This answer took over {seconds} s, so I cut it off here: ask again, more specifically.",
)
CUT_BY_LENGTH = Text(
    ja="✂️ 答えが長すぎて、ここで切れています。続きが必要なら「続けて」と言ってください。",
    en="✂️ This answer hit the length limit and is cut off here: say “continue” for the rest, "
    "or ask for a shorter answer.",
)
OUT_OF_STEPS = Text(
    ja="{steps}回考えましたが、最終的な答えが出せなかったので止めました。もう少し具体的に"
    "聞き直すか、お願いを分けてください。",
    en="I stopped after {steps} steps without a final answer. Ask again more specifically, or "
    "split the request.",
)
OUT_OF_ONE_STEP = Text(
    ja=OUT_OF_STEPS.ja.replace("{steps}", "1"),
    en="I stopped after 1 step without a final answer. Ask again more specifically, or split "
    "the request.",
)

CLOSING_REJECTED = Text(
    ja="-# 了解です。実行しませんでした。",
    en="-# OK, I did not run it.",
)
CLOSING_EXPIRED = Text(
    ja="-# ⌛ 承認の期限が切れたので、実行しませんでした。",
    en="-# ⌛ The approval expired, so I did not run it.",
)
CLOSING_INTERRUPTED = Text(ja="-# ⏹️ 停止しました。", en="-# ⏹️ Stopped.")
CLOSING_CHANGED = Text(
    ja="-# 🔄 承認の後にツールの提供元か内容が変わったので、実行しませんでした。",
    en="-# 🔄 The tool changed after it was approved (another provider or definition), so I "
    "did not run it.",
)
CLOSING_SHUTDOWN = Text(
    ja="-# ⏹️ 再起動のため、ここで止めました。少ししてからもう一度どうぞ。",
    en="-# ⏹️ I'm restarting, so I stopped here: mention me again in a minute.",
)

# Why a card's call never ran or never finished, on the card.
STOPPED_BEFORE_RUN = Text(ja="実行前に停止しました。", en="Stopped before it ran.")
BROKE_OFF = Text(
    ja="この呼び出しの前に答えが途切れました。", en="The answer broke off before this call."
)
CUT_BEFORE_CALL = Text(
    ja="この呼び出しが完成する前に答えが切れました。",
    en="The answer was cut off before this call was complete.",
)
RESTARTED_BEFORE_RUN = Text(
    ja="この呼び出しを実行する前にボットが再起動しました。",
    en="The bot restarted before this call could run.",
)
AFTER_REJECTION = Text(
    ja="同じ答えの前の呼び出しが却下されたため実行しませんでした。",
    en="An earlier call of this answer was rejected.",
)
AFTER_EXPIRY = Text(
    ja="前の呼び出しの承認が期限切れになったため実行しませんでした。",
    en="An earlier call's approval expired.",
)
AFTER_STOP = Text(
    ja="その前に答えが停止されたため実行しませんでした。",
    en="The answer was stopped before it.",
)
AFTER_SHUTDOWN = Text(
    ja="その前にボットが再起動したため実行しませんでした。",
    en="The bot restarted before it.",
)

# -- clicks on approval cards and on Stop -------------------------------------------------------

NOT_YOURS = Text(
    ja="決められるのは {name} さん（依頼した本人）か承認者だけです。",
    en="Only {name} (who asked) or an approver can decide this.",
)
STILL_PENDING = Text(
    ja="このリクエストはまだ決定を待っています。",
    en="This request is still waiting for a decision.",
)
APPROVED = Text(ja="承認しました。", en="Approved.")
APPROVED_ALWAYS = Text(
    ja="承認しました。これからは {tool} を確認なしで実行します。",
    en="Approved; {tool} will run without asking from now on.",
)
REJECTED = Text(ja="却下しました。", en="Rejected.")
ALREADY_APPROVED = Text(
    ja="このリクエストはすでに承認されています。", en="This request was already approved."
)
ALREADY_REJECTED = Text(
    ja="このリクエストはすでに却下されています。", en="This request was already rejected."
)
ALREADY_EXPIRED = Text(
    ja="このリクエストは期限切れです。何も実行していません。",
    en="This request expired; nothing was run.",
)
ALREADY_INVALIDATED = Text(
    ja="会話が先に進んだため、このリクエストは取り消されました。",
    en="This request was cancelled because the conversation moved on.",
)
RUN_FINISHED = Text(ja="この答えはもう終わっています。", en="That answer has already finished.")
STOP_NOT_YOURS = Text(
    ja="止められるのは質問した本人か承認者だけです。",
    en="Only the person who asked (or an approver) can stop this.",
)
STOPPING = Text(ja="⏹️ 停止します。", en="⏹️ Stopping.")

# -- conversations in threads --------------------------------------------------------------------

THREAD_NAME = Text(ja="{name}さんとの会話", en="Conversation with {name}")
THREAD_OPENED = Text(
    ja="スレッド {thread} を作りました。ここではメンションなしで話しかけてください。",
    en="I opened {thread}: talk to me there without mentioning me.",
)
THREAD_GREETING = Text(
    ja="このスレッドではメンションなしで話しかけてください。参加した人それぞれの発言として"
    "読みます。",
    en="In this thread, talk to me without mentioning me; I read each member as themselves.",
)
THREAD_NOT_HERE = Text(
    ja="ここではスレッドを作れません。サーバーのテキストチャンネルで使ってください。",
    en="I can't open a thread here; use this in a server's text channel.",
)
THREAD_REFUSED = Text(
    ja="スレッドを作れませんでした。このチャンネルでの私の権限（公開スレッドの作成）を確認して"
    "ください。",
    en="I couldn't open a thread: check that I may create public threads in this channel.",
)

# -- what a member shared that could not be read -------------------------------------------------

FILES_SKIPPED = Text(
    ja="添付は1回に{limit}件まで読みます。{skipped}件は読みませんでした。別のメッセージで送ってください。",
    en="I read at most {limit} files per message, so I skipped {skipped}: send them in another "
    "message.",
)
IMAGE_FORMAT = Text(
    ja="{name} の画像形式は読めません。PNG・JPEG・GIF・WebPで送ってください。",
    en="I can't read the image format of {name}: send PNG, JPEG, GIF or WebP.",
)
NOT_TEXT_OR_IMAGE = Text(
    ja="{name} は読めない種類のファイルです。読めるのはテキスト・画像・PDF・Word・PowerPoint・"
    "Excel・CSVです。必要な部分を貼り付けてください。",
    en="I can't read the kind of file {name} is: I read text, images, PDF, Word, PowerPoint, "
    "Excel and CSV. Paste the part that matters.",
)
DOCUMENT_OLD_FORMAT = Text(
    ja="{name} は古い形式（.doc・.xls・.ppt）なので読めません。.docx・.xlsx・.pptx で保存し直して"
    "送ってください。",
    en="{name} is in an old format (.doc, .xls, .ppt) I can't read: save it as .docx, .xlsx or "
    ".pptx and send it again.",
)
DOCUMENT_ENCRYPTED = Text(
    ja="{name} はパスワードで保護されているので読めません。保護を外したファイルを送るか、"
    "必要な部分を貼り付けてください。",
    en="{name} is password-protected, so I can't read it: send a copy without the password, or "
    "paste the part that matters.",
)
DOCUMENT_UNREADABLE = Text(
    ja="{name} は壊れているか形式が正しくないため読めませんでした。開けるか確かめて、もう一度送って"
    "ください。",
    en="I couldn't read {name}: it seems damaged or isn't the kind of file its name says. Check "
    "that it opens, then send it again.",
)
DOCUMENT_TOO_HEAVY = Text(
    ja="{name} は読むのに時間かメモリがかかりすぎるので途中でやめました。ページを減らすか、必要な"
    "部分を貼り付けてください。",
    en="{name} took too much time or memory to read, so I stopped: send fewer pages or paste "
    "the part that matters.",
)
DOCUMENT_NO_TEXT = Text(
    ja="{name} には読み取れる文字がありませんでした（スキャンした画像だけのPDFかもしれません）。"
    "必要な部分を貼り付けるか、画像で送ってください。",
    en="I found no text in {name} (it may be scanned pages, which are pictures): paste the part "
    "that matters or send it as images.",
)
DOCUMENT_PAGES_CUT = Text(
    ja="{name} は長いので、{total}ページのうち最初の{read}ページだけ読みました。",
    en="{name} is long, so I read only the first {read} of its {total} pages.",
)
DOCUMENT_SLIDES_CUT = Text(
    ja="{name} は長いので、{total}枚のスライドのうち最初の{read}枚だけ読みました。",
    en="{name} is long, so I read only the first {read} of its {total} slides.",
)
DOCUMENT_TEXT_CUT = Text(
    ja="{name} は長いので、最初の{chars}文字だけ読みました。続きは別に送ってください。",
    en="{name} is long, so I read only its first {chars} characters: send the rest separately.",
)
FILE_TOO_LARGE = Text(
    ja="{name} は大きすぎて読めません（{size}、上限 {limit}）。必要な部分だけ送ってください。",
    en="{name} is too large for me ({size}; the limit is {limit}): send the part that matters.",
)
DOWNLOAD_FAILED = Text(
    ja="{name} をダウンロードできませんでした。もう一度送ってください。",
    en="I couldn't download {name}; please send it again.",
)
IMAGE_STILL_TOO_LARGE = Text(
    ja="{name} は縮めても大きすぎて送れませんでした。小さめの画像でお願いします。",
    en="{name} stays too large even scaled down: send a smaller picture or a screenshot of the "
    "part that matters.",
)
TOO_MANY_PIXELS = Text(
    ja="{name} は画素数が多すぎて読めません（{size}上限 {limit} メガピクセル）。縮小した画像か、"
    "必要な部分のスクリーンショットを送ってください。",
    en="{name} has too many pixels for me ({size}the limit is {limit} megapixels): send a "
    "smaller copy or a screenshot of the part that matters.",
)
NO_VISION = Text(
    ja="今のモデル（{model}）は画像を見られないので {names} は読んでいません。管理者は /model で"
    "画像に対応したモデルを選べます。",
    en="The current model ({model}) can't see images, so I didn't look at {names}; an admin can "
    "pick a vision model with /model.",
)
REPLY_DELETED = Text(
    ja="返信先のメッセージは削除されていて読めませんでした。",
    en="The message you replied to has been deleted, so I couldn't read it.",
)
REPLY_NO_ACCESS = Text(
    ja="返信先のメッセージを読む権限がありません。管理者にそのチャンネルの「メッセージ履歴を読む」"
    "権限を頼んでください。",
    en="I'm not allowed to read the message you replied to: ask an admin to give me Read "
    "Message History there.",
)
REPLY_UNAVAILABLE = Text(
    ja="返信先のメッセージを取得できませんでした。少ししてからもう一度お試しください。",
    en="Discord didn't give me the message you replied to; try again in a moment.",
)

# A card shown despite "Always allow": the turn had read words that are not the member's.
ASKED_AFTER = Text(
    ja="この依頼は{what}を読んだ後のものです。他の人が書いた内容に従っているかもしれないので、"
    "「常に許可」にしていても確認します。",
    en="This request followed {what}. It may be following someone else's words, so you are "
    "asked even if you always allow this tool.",
)
UNTRUSTED_SOURCE: dict[str, Text] = {
    "quote": Text(ja="引用されたメッセージ", en="a quoted message"),
    "speaker": Text(ja="スレッドでの他の人の発言", en="someone else's message in this thread"),
    "file": Text(ja="ファイル", en="a file"),
    "note": Text(ja="メンバーのメモ", en="a member's note"),
    "web": Text(ja="ウェブページ", en="a web page"),
    "plugin": Text(ja="外部ツールの返答", en="an external tool's answer"),
}


def asked_after(sources: Sequence[str], language: Language) -> str:
    """Why a card is shown despite "Always allow", naming what the turn had read."""
    names = [UNTRUSTED_SOURCE[s](language) for s in sources if s in UNTRUSTED_SOURCE]
    return ASKED_AFTER(language, what=("・" if language == "ja" else ", ").join(names))
