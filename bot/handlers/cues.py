"""The cues that score each handler: how members ask for reminders and weather, and chat.

Patterns run on the normalised text (see bot.handlers.signals); weights add up per handler.
"""

from __future__ import annotations

from bot.handlers.signals import (
    CLOCK,
    DAY,
    FEELING,
    KNOWLEDGE,
    PAST,
    QUESTION,
    REPEAT,
    TITLE,
    Cue,
    cue,
)

REMINDER = "reminder"
CHAT = "chat"
WEATHER = "weather"
GENERAL = "general"

# Reminders: asking to be told at a time, with every word members use for it.
_TELL = (
    r"(教え|おしえ|言っ|いっ|声かけ|声掛け|つつい|呼ん|連絡し|知らせ|しらせ)(て|とい)|"
    r"一言(ちょうだい|ほしい|ください)"
)
REMINDER_CUES: tuple[Cue, ...] = (
    cue(
        "reminder word",
        REMINDER,
        5,
        words="りまいんど|りまいんだ|remind|remnd|rmind|reminder",
        unless=PAST,
    ),
    cue(
        "do not let me forget",
        REMINDER,
        4,
        regex=r"忘れない(で|よう|うち)|わすれないで|忘れん(な|よう)|"
        r"(don'?t|do not)\s+(let\s+me\s+)?forget",
        unless=PAST,
    ),
    cue("keep this in mind", REMINDER, 4, regex=r"(覚え|おぼえ)(とい|ておい|てて)", unless=PAST),
    cue(
        "alarm or timer",
        REMINDER,
        4,
        words="あらーむ|alarm|たいまー|timer|目覚まし|めざまし",
        regex=r"\d+\s*分\s*(はかって|測って|計って)",
        needs_any=f"{CLOCK} {DAY}",
        unless=PAST,
    ),
    cue("wake me", REMINDER, 4, regex=r"(起こ|おこ)して|wake\s+me", unless=PAST),
    cue(
        "put it in the schedule",
        REMINDER,
        4,
        regex=r"(予定|すけじゅーる|かれんだー)\s*(に|を|へ)?\s*(入れ|いれ|追加|登録|記入)|"
        r"(put|add)(?![a-z]).*(schedule|calendar)|(?<![a-z])schedule\s+(a|it|this)",
        unless=f"{PAST} {KNOWLEDGE}",
    ),
    cue(
        "notify me at a time",
        REMINDER,
        4,
        regex=r"通知\s*(して|ちょうだい|おねがい|お願い|ほしい|ください)|お知らせして|ぴんぐ|"
        r"(notify|alert|ping|nudge|poke)\s+me|a\s+nudge|send\s+me\s+a\s+notification|let\s+me\s+know",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE}",
    ),
    cue(
        "tell me at a time",
        REMINDER,
        3,
        regex=_TELL + r"|(?<![a-z])tell\s+me\s+(to|about|at|on|in|that|tomorrow)",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE}",
    ),
    cue(
        "what to be told",
        REMINDER,
        2,
        regex=r"(の|って|こと|と)\s*(" + _TELL + ")",
        needs_any=f"{CLOCK} {DAY}",
    ),
    cue(
        "I will forget",
        REMINDER,
        2,
        regex=r"忘れ(そう|ちゃう|る)\s*(だ)?(から|ので)|わすれそう|"
        r"(i'?ll|going\s+to|gonna|always|will)\s+forget",
        needs_any=f"{CLOCK} {DAY}",
    ),
    cue(
        "a repeating time",
        REMINDER,
        3,
        needs=REPEAT,
        needs_any=f"{CLOCK} {DAY}",
        unless=KNOWLEDGE,
    ),
    cue(
        "change reminder #n",
        REMINDER,
        4,
        regex=r"#\s*\d+.*(取り消|消して|けして|きゃんせる|変更|延期|ずらして)|"
        r"(cancel|delete|edit|move)\s+.*#?\d+",
    ),
)

# Weather: a forecast asked for, even without a weather noun.
_AWAY_FROM_WEATHER = f"{PAST} {FEELING} {TITLE} {KNOWLEDGE}"
WEATHER_CUES: tuple[Cue, ...] = (
    cue(
        "weather noun",
        WEATHER,
        4,
        words="天気|てんき|天候|予報|よほう|気温|降水|weather|wether|weathr|forecast|temperature",
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "weather word in a question",
        WEATHER,
        3,
        words="雨|あめ|雪|晴れ|曇り|くもり|台風|雷|花粉|湿度|風|豪雨|傘|かさ|rain|snow|sunny|humid|"
        "windy|umbrella|typhoon|storm|outside|nice out",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "condition in a question",
        WEATHER,
        3,
        lemmas="暑い|寒い|蒸し暑い|肌寒い|涼しい|暖かい|あたたかい|あったかい|冷える|凍る|曇る|晴れる|"
        "降る|ふる|積もる|冷え込む",
        regex=r"凍結|むしむし|じめじめ|さむい|あつい|ふる[?？]|"
        r"(?<![a-z])(hot|cold|chilly|icy|warm|freezing|cool)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "what to wear",
        WEATHER,
        3,
        lemmas="着る",
        regex=r"服装|上着|こーと|じゃけっと|まふらー|手袋|だうん|半袖|長袖|"
        r"(?<![a-z])(wear|jacket|coat|sweater|shorts|jeans|hoodie)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "will it dry",
        WEATHER,
        3,
        lemmas="乾く|干す|干せる",
        regex=r"洗濯|せんたく|洗たく|布団|ふとん|しーつ|部屋干し|外干し|日和|"
        r"(?<![a-z])(laundry|dry|hang)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
)

# Chat: small talk, and remarks or stories that mention a handler's words without asking.
CHAT_CUES: tuple[Cue, ...] = (
    cue(
        "small talk",
        CHAT,
        2,
        words="暇|ひま|退屈|つまんない|つまらない|雑談|雑学|豆知識|とりびあ|tips|どうでもいい|話そう|"
        "話して|なんか話|何か話|しりとり|ねむい|眠い|疲れ|おはよ|こんにちは|こんばんは|おやすみ|元気|"
        "ありがと|頑張った|おすすめ|bored|trivia|fun fact|talk to me|let's chat|lets chat|"
        "chat with me|entertain|tell me something|tell me a joke|tired|good morning|good night|"
        "how are you|thanks|thank you|hello|hi|hey",
    ),
    cue("a story", CHAT, 2, needs=PAST),
    cue("a feeling", CHAT, 2, needs=FEELING),
    cue("a film or song", CHAT, 2, needs=TITLE, unless=KNOWLEDGE),
    cue("forgetful", CHAT, 2, regex=r"忘れ|わすれ|(?<![a-z])forg[eo]t|remember"),
    cue("musing", CHAT, 1, regex=r"(しよう|しよ|しようかな)\s*$"),
)

GENERAL_CUES: tuple[Cue, ...] = (
    # The notebook's tools live in the general (and chat) handler: "雨の日の集合場所をメモして"
    # must not reach the weather handler, which cannot write notes; "リマインドして" still wins.
    cue(
        "notebook words",
        GENERAL,
        4,
        words="めも|のーと|備忘録|memo|note this|note that|note it|note down|take a note|"
        "make a note|the notes|our notes|my notes|notebook|write this down|write that down|"
        "write it down|jot",
        lemmas="メモる|書き留める",
    ),
    cue("a knowledge question", GENERAL, 3, needs=KNOWLEDGE, unless=PAST),
    cue("do you remember", GENERAL, 3, regex=r"覚えて(る|ます|い(る|ます))\s*(\?|？|か)"),
)

HANDLER_CUES = REMINDER_CUES + WEATHER_CUES + CHAT_CUES + GENERAL_CUES
