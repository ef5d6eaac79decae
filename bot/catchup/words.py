"""What a catch-up says to the member."""

from __future__ import annotations

from bot.i18n import Text

TITLE = Text(ja="📰 見逃した話題（{count}件から）", en="📰 What you missed ({count} messages)")
SINCE_YOUR_LAST = Text(ja="あなたの前回の発言 {when} 以降", en="Since your last message {when}")
SINCE = Text(ja="{when} 以降", en="Since {when}")
LATEST_ONLY = Text(
    ja="直近 {count} 件まで（それより前は読んでいません）",
    en="The latest {count} messages only (older ones were not read)",
)
NOTHING = Text(
    ja="見逃したメッセージはありません。{since}、ここには新しい発言がありません。",
    en="Nothing to catch up on: no new messages here {since}.",
)
SINCE_LAST_WORDS = Text(ja="あなたの前回の発言から", en="since your last message")
SINCE_WORDS = Text(ja="{when} から", en="since {when}")
NO_SERVER = Text(
    ja="まとめはサーバーのチャンネルかスレッドで使ってください。",
    en="Use /otomo catchup in a server's channel or thread.",
)
CANNOT_READ = Text(
    ja="このチャンネルの履歴を読む権限がないため、まとめられません。",
    en="You cannot read this channel's history, so there is nothing I can summarise for you.",
)
BOT_CANNOT_READ = Text(
    ja="Otomo にこのチャンネルの「メッセージ履歴を読む」権限がありません。管理者に頼んでください。",
    en="Otomo cannot read this channel's history (Read Message History): ask an admin.",
)
BAD_SINCE = Text(
    ja="「{since}」がいつのことか分かりませんでした。例: 3h、30分、昨日の夜から、09:00",
    en="I could not tell when “{since}” is. Try 3h, 30m, yesterday, last night or 09:00.",
)
FAILED = Text(
    ja="まとめを作れませんでした（{why}）。少し待ってからもう一度試してください。",
    en="I could not write the catch-up ({why}). Please try again in a moment.",
)
EMPTY_ANSWER = Text(ja="モデルから答えが返ってきませんでした", en="the model gave no answer")

# /otomo catchup's description and option (Discord shows the Japanese to members in Japanese).
CATCHUP_COMMAND = Text(
    ja="このチャンネルで見逃した話題（自分だけに表示）",
    en="What you missed in this channel, privately",
)
SINCE_OPTION = Text(
    ja="いつから: 3h、30分、昨日の夜から、09:00",
    en="From when: 3h, 30m, yesterday, last night, 09:00",
)
COMMAND_WORDS: tuple[Text, ...] = (CATCHUP_COMMAND, SINCE_OPTION)
# The title of the catch-up settings in /otomo settings, and why a cap was refused.
SETTINGS_GROUP = Text(ja="📰 まとめ", en="📰 Catching up")
CATCHUP_RANGE = Text(ja="10〜1000 の整数です。", en="Use a whole number from 10 to 1000.")
