"""The four handlers' names, and the cues that score chat and general; the features' own cues
(asking for a reminder, the weather…) are theirs (the router receives them through the feature
list).

Patterns run on the normalised text (see bot.handlers.shapes); weights add up per handler.
"""

from __future__ import annotations

from bot.handlers.shapes import (
    CLOCK,
    DAY,
    FEELING,
    KNOWLEDGE,
    PAST,
    QUESTION,
    REQUEST,
    TALK,
    TITLE,
    TOPICAL,
    VERBLESS,
    WHEN,
    Cue,
    cue,
)

__all__ = ["CHAT", "GENERAL", "REMINDER", "SHARED_CUES", "WEATHER"]

CHAT = "chat"
GENERAL = "general"
# The tool handlers: the features that offer them register their cues.
REMINDER = "reminder"
WEATHER = "weather"

# Chat: small talk, and remarks or stories that mention a handler's words without asking.
CHAT_CUES: tuple[Cue, ...] = (
    cue(
        "small talk",
        CHAT,
        2,
        words="暇|ひま|退屈|つまんない|つまらない|雑談|雑学|豆知識|とりびあ|tips|どうでもいい|話そう|"
        "話して|なんか話|何か話|話し相手|しりとり|なぞなぞ|くいず|占い|おみくじ|遊ぼ|かまって|構って|"
        "寂しい|さみしい|眠れない|愚痴|ねむい|眠い|疲れ|つかれ|おつかれ|お疲れ|おはよ|こんにちは|こんちわ|"
        "こんばんは|やっほ|おっす|おやすみ|ただいま|おかえり|いってきます|元気|ありがと|さんきゅ|大好き|"
        "頑張った|おすすめ|おもろい|面白い|おもしろい|bored|trivia|fun fact|talk to me|let's chat|"
        "lets chat|chat with me|慰め|なぐさめ|励まし|はげまし|cheer me up|comfort me|"
        "someone to talk|"
        "want to talk|wanna talk|entertain|tell me something|tell me a joke|tell me a story|tired|"
        "good morning|good night|gm|gn|how are you|how's it going|hows it going|what's new|thanks|"
        "thank you|thx|ty|love you|miss you|hello|hi|hey|yo",
    ),
    cue("a story", CHAT, 2, needs=PAST),
    # "リマインドって便利よな", "my reminders never work on me lol": reminders as a topic.
    cue(
        "a remark on reminders",
        CHAT,
        6,
        regex=r"りまいんど|りまいんだー|あらーむ|たいまー|目覚まし|(?<![a-z])(reminders?|alarms?|timers?)(?![a-z])",
        needs=FEELING,
        unless=f"{REQUEST} {CLOCK} {DAY} {QUESTION}",
    ),
    # "リマインダー10個入れてるけど全部無視しとる": a statement about one's reminders.
    cue(
        "a statement on reminders",
        CHAT,
        6,
        regex=r"りまいんど|りまいんだー|あらーむ|たいまー|目覚まし",
        unless=f"{REQUEST} {CLOCK} {DAY} {QUESTION} {VERBLESS}",
    ),
    # "my alarm is set for 4:30, pray for me", "reminders are useless": one's reminders as a topic.
    cue(
        "a statement on reminders",
        CHAT,
        6,
        regex=r"(?<![a-z])(reminders?|alarms?|timers?)\s+(are|is|was|were|went|goes|keeps?|kept|will|"
        r"won'?t|didn'?t|never|always|suck|sucks|rang|rings|ring|go\s+off)(?![a-z])",
        unless=f"{REQUEST} {QUESTION}",
    ),
    # "ugh don't remind me", 思い出させないで: a subject to drop, not a reminder to set.
    cue(
        "don't bring it up",
        CHAT,
        6,
        regex=r"(don'?t|do\s+not|pls\s+don'?t|please\s+don'?t)\s+remind\s+me(?!\s+(to|at|in|on|every|tomorrow|"
        r"tonight|later|before|after)(?![a-z]))|remind\s+me\s+(to\s+)?never|思い出させ(ないで|んといて|んで)|言わんといて|言わないで",
    ),
    # "リマインド頼むの恥ずかしい", "set a reminder? nah I'll forget anyway": the asking as a topic.
    cue(
        "a remark on asking",
        CHAT,
        6,
        regex=r"(頼む|たのむ|する|かける|入れる|使う)の(が|って|は)?(恥ずかし|はずかし|めんど|面倒|嫌|いや|怖|苦手|好き|嫌い)|"
        r"(?<![a-z])(nah|nope|meh)(?![a-z]).*(forget|anyway|never|pointless)",
    ),
    cue("talk about a topic", CHAT, 2, needs=TALK),
    cue("a feeling", CHAT, 2, needs=FEELING),
    cue("a film or song", CHAT, 2, needs=TITLE, unless=f"{KNOWLEDGE} {TOPICAL}"),
    cue("forgetful", CHAT, 2, regex=r"忘れ|わすれ|(?<![a-z])forg[eo]t|remember"),
    cue("musing", CHAT, 1, regex=r"(しよう|しよ|しようかな)\s*$"),
    cue(
        "asking otomo's taste",
        CHAT,
        2,
        regex=r"(と|って)思う\s*[?？]|どう思う|(何|なに|どれ)が(いい|おすすめ|好き)|好きな(食べ物|もの|色|曲)|"
        r"(?<![a-z])(your\s+fav(ou?rite)?|what\s+do\s+you\s+think|do\s+you\s+like|would\s+you\s+rather|"
        r"(who|why|what)\s+even|why\s+(do|does|is|are)\s.*always|(who|anyone)\s+else|does\s+anyone\s+else)(?![a-z])",
    ),
    cue("listen to me", CHAT, 2, regex=r"(ねえ|ねぇ)(ねえ|ねぇ)|聞いて\s*(よ|ー|〜)?\s*$"),
    cue(
        "how are you doing",
        CHAT,
        2,
        regex=r"(何|なに)(して(た|る)|してるの|にしてる|使ってる)|どう思っ|(?<![a-z])(how\s+was\s+your|how'?s\s+your|"
        r"how\s+is\s+your|what\s+are\s+you\s+doing|(you|u)\s+there|"
        r"wyd|what'?s\s+up|whats\s+up|sup)(?![a-z])",
    ),
)

GENERAL_CUES: tuple[Cue, ...] = (
    # The notebook's tools live in the general (and chat) handler: "雨の日の集合場所をメモして"
    # must not reach the weather handler, which cannot write notes; "リマインドして" still wins.
    cue(
        "notebook words",
        GENERAL,
        4,
        regex=r"(?<![a-z])memo(?![a-z])",
        words="めも|のーと|備忘録|note this|note that|note it|note down|take a note|"
        "make a note|the notes|our notes|my notes|notebook|write this down|write that down|"
        "write it down|jot",
        lemmas="メモる|書き留める",
    ),
    cue("a knowledge question", GENERAL, 3, needs=KNOWLEDGE, unless=PAST),
    cue("about the server", GENERAL, 3, needs=TOPICAL, unless=PAST),
    # Below a weather cue: "洗濯物いつ干せばいい？" asks the forecast.
    cue("when something happens", GENERAL, 2, needs=WHEN, unless=PAST),
    cue("do you remember", GENERAL, 3, regex=r"覚えて(る|ます|い(る|ます))\s*(\?|？|か)"),
)

# Read after the features' cues.
SHARED_CUES = CHAT_CUES + GENERAL_CUES
