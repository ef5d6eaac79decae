"""What /otomo channel says to admins."""

from __future__ import annotations

from bot.i18n import Text

PANEL_TITLE = Text(ja="⚙️ {channel} の設定", en="⚙️ Settings of {channel}")
PANEL_HELP = Text(
    ja=(
        "聞くチャンネルでは、メンションなしでも Otomo 宛ての質問やお願い（？、教えて、"
        "お願い、Otomo と呼ぶ など）に答えます。雑談・他のボット・他の人への返信には答えません。"
        "間隔は /otomo settings の「聞くチャンネルの間隔」です。ペルソナはサーバーのペルソナに"
        "加えて、このチャンネルの回答だけに使われます。"
    ),
    en=(
        "In a listening channel Otomo answers questions and requests to it without a mention "
        "(a question mark, please / can you…, its name); never chatter, other bots or replies "
        "to other people. The cool-down is “Listening cool-down” in /otomo settings. The "
        "persona adds to the server's persona, in this channel's answers only."
    ),
)
LISTENING = Text(ja="👂 メンションなしで答える", en="👂 Answers without a mention")
LISTENING_ON = Text(
    ja="オン（質問に答えたあと {seconds} 秒は答えません）",
    en="On (after an answer, quiet for {seconds} s)",
)
LISTENING_OFF = Text(ja="オフ（メンションされたときだけ）", en="Off (only when mentioned)")
PERSONA = Text(ja="🎭 このチャンネルのペルソナ", en="🎭 This channel's persona")
NO_PERSONA = Text(ja="なし（サーバーのペルソナだけ）", en="None (the server's persona only)")
START_LISTENING = Text(ja="ここで聞く", en="Listen here")
STOP_LISTENING = Text(ja="聞くのをやめる", en="Stop listening")
EDIT_PERSONA = Text(ja="ペルソナを編集", en="Edit the persona")
OTHER_PERSONAS = Text(ja="🗂️ ペルソナのある他のチャンネル", en="🗂️ Other channels with a persona")

# /otomo channel's description (Discord shows the Japanese to members in Japanese).
CHANNEL_COMMAND = Text(
    ja="このチャンネルの設定: 聞く・ペルソナ（管理者）",
    en="This channel's settings: listening, persona (admins)",
)
COMMAND_WORDS: tuple[Text, ...] = (CHANNEL_COMMAND,)
# The title of the listening settings in /otomo settings, and why a cool-down was refused.
SETTINGS_GROUP = Text(ja="👂 聞くチャンネル", en="👂 Listening channels")
SECONDS_RANGE = Text(ja="0〜86400 秒の整数です。", en="Use a whole number of seconds, 0 to 86400.")
