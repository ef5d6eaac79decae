"""How members ask for reminders: the cues that score the reminder handler.

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
    REPEAT,
    REQUEST,
    TALK,
    VERBLESS,
    WHEN,
    Cue,
    cue,
)

REMINDER = "reminder"

# Reminders: asking to be told at a time, with every word members use for it.
_ALARM = (
    "あらーむ|alarm|たいまー|timer|目覚まし|めざまし|目ざまし|ぴぴって|countdown|"
    # Typos members send as they are: あらむ, たいま, timr, alrm.
    "あらむ|たいま|timr|alrm|alarn"
)
_TELL = (
    r"(教え|おしえ|をしえ|言っ|いっ|言う|いう|ゆう|声かけ|声掛け|つつい|突っつい|連絡し|知らせ|しらせ|"
    r"伝え|念押しし|思い出させ|送っ|聞い|きい)(て|と[いっ])(?!る|ます|ない|へん)|(めっせーじ|めーる|dm|らいん)\s*(ちょうだい|して|ください|くれ)|(教え|おしえ|言う|いう|ゆう|知らせ|しらせ|伝え|声かけ)たっ?て|"
    r"呼ん(で|どい|どっ)|って(の)?[、,\s]*(よろ|頼|たの|お願|おねが)|"
    r"(言う|いう|教える|知らせる)の\s*(頼|たの|お願|おねが|よろ)|"
    r"(一言|連絡)(ちょうだい|ほしい|ください)|(一声|ひと声|声)\s*(かけ|掛け)|"
    # The same verbs in other request endings: 教えとくれ, 知らせちゃり, 言うちょって, 教えろ.
    r"(教え|おしえ|知らせ|しらせ|伝え|声かけ|思い出させ)(と[いっく]|ちゃ[っりい]|ちょ|ろ\s*$|れ\s*$)|"
    r"(言う|いう|言っ|いっ|ゆう)(ちょ|と[いっく])"
)
REMINDER_CUES: tuple[Cue, ...] = (
    cue(
        "reminder word",
        REMINDER,
        5,
        words="りまいんど|りまいんだ|remind|remnd|rmind|rmd|reminder",
        # Typos of the word: りまいど, りまんど, りまいと, remidn, remimd, reminde, remaind.
        regex=r"り[まめ]い?ん?[どと]|りまいん|(?<![a-z])(re?m[a-z]{0,3}[dn][a-z]?)\s+(me|em|us)(?![a-z])",
        unless=f"{PAST} {KNOWLEDGE} {TALK}",
    ),
    cue(
        "do not let me forget",
        REMINDER,
        4,
        regex=r"忘れない(で|よう|うち)|わすれないで|忘れん(な|よう)|"
        r"(don'?t|do not)\s+(let\s+me\s+)?forget|(don'?t|do not)\s+let\s+me\s+miss",
        unless=PAST,
    ),
    cue("keep this in mind", REMINDER, 4, regex=r"(覚え|おぼえ)(とい|ておい|てて)", unless=PAST),
    # An alarm asked for ("6時にアラームかけて", "タイマー5分"), not one in a story.
    cue(
        "alarm or timer",
        REMINDER,
        4,
        words=_ALARM,
        regex=r"\d+\s*分.*(はか|測|計)っ",
        needs=REQUEST,
        needs_any=f"{CLOCK} {DAY}",
        unless=PAST,
    ),
    cue(
        "alarm or timer",
        REMINDER,
        4,
        words=_ALARM,
        needs=VERBLESS,
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {FEELING} {QUESTION}",
    ),
    cue(
        "wake me",
        REMINDER,
        4,
        regex=r"(起こ|おこ|起)して|(起こ|おこ)した(って|げて)|(起こ|おこ)(し(と[いっく]|ちゃ[っりい]|ちょ)|せ(\s*$|よ|や))|もーにんぐこーる|morning\s+call|wake[\s-]*up\s+call|"
        r"(起き|おき)(れる|られる)ように|寝坊(しない|せん|せえへん)よう|(叩き|たたき)(起こ|おこ)|"
        # Asked, not told about: "wake me at 6", "can you wake me", not "mum calls to wake me up".
        r"(^|please\s+|pls\s+|plz\s+|can\s+(you|u)\s+|could\s+you\s+|,\s*|and\s+)"
        r"(w[ak]{2}e\s+me|get\s+me\s+up|make\s+sure\s+i'?m\s+up|(don'?t|do\s+not)\s+let\s+me\s+oversleep)",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE} {TALK}",
    ),
    cue(
        "put it in the schedule",
        REMINDER,
        4,
        regex=r"(予定|すけじゅーる|かれんだー)\s*(に|を|へ|として)?\s*(入れ|いれ|追加|登録|記入)|"
        r"(put|add|block|mark|pencil)(?![a-z]).*(schedule|calendar)|pencil\s+(in|it)(?![a-z])|(?<![a-z])schedule\s+(a|it|this)",
        unless=f"{PAST} {KNOWLEDGE} {WHEN}",
    ),
    cue(
        "notify me at a time",
        REMINDER,
        4,
        regex=r"通知\s*(して|ちょうだい|おねがい|お願い|ほしい|ください|くれ|よろ)|お知らせ(して|ください|ちょうだい|ほしい|お願い)|一報|ぴんぐ|"
        r"(notify|alert|ping|nudge|poke|dm|mention|message|text|email|buzz)\s+me|shoot\s+me\s+a|a\s+nudge|send\s+me\s+a\s+notification|"
        r"(let\s+me|lemme)\s+know|heads[\s-]*up|(ping|dm|めんしょん|ぴん)\s*(して|ちょうだい|ください|飛ばし|とばし|くれ)|"
        # "Give me a shout at 5", "holler at me", "bug me", "ring me": a call that is a reminder.
        r"(?<![a-z])(give\s+me\s+a\s+(shout|buzz|call|ring)|(holler|shout|yell)\s+at\s+me|hit\s+me\s+up|"
        r"(bug|nag|call|ring)\s+me|drop\s+me\s+a\s+line|make\s+sure\s+i|time\s+me|count\s*down)(?![a-z])",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE} {WHEN}",
    ),
    cue(
        "tell me at a time",
        REMINDER,
        3,
        regex=_TELL
        + r"|^say\s|(?<![a-z])tell\s+me\s+(?!(a|an|something|what|why|how|who|where|more|your)"
        r"(?![a-z]))",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE} {WHEN}",
    ),
    # Ending on the request itself at a clock time ("8時にイベントあるから教えて"): a reminder, even
    # when the thing named is one of the server's own.
    cue(
        "ends asking to be told",
        REMINDER,
        1,
        regex=r"(教え|おしえ|知らせ|しらせ|言っ|伝え|声かけ)(て|と[いっ]て)(ね|な|や|よ)?\s*[。!！]?\s*$",
        needs=CLOCK,
        unless=f"{PAST} {KNOWLEDGE} {WHEN}",
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
        unless=f"{KNOWLEDGE} {WHEN} {FEELING} {TALK} {PAST}",
    ),
    # A question about a running timer or one's own reminders: "タイマーあと何分？".
    cue(
        "my timers and reminders",
        REMINDER,
        4,
        regex=r"(たいまー|あらーむ|りまいんど|りまいんだー|目覚まし).*(あと|残り|のこり|動いて|うごいて|入って|はいって|"
        r"登録され|せっとされ|何時に(せっと|して|なっ[てと]|鳴る)|(終わっ|おわっ|鳴っ)(た|てる)?\s*[?？]|何時(やった|だった|だっけ|やっけ)|止め|とめ|消し|けし|取り消|きゃんせる|ずらし|遅らせ|まだ|"
        r"一覧|見せ|すぬーず|(鳴|な)る|鳴ら)|(?<![a-z])snooze(?![a-z])|(私|俺|僕|うち|わたし|おれ|ぼく)の(たいまー|あらーむ|りまいんど|りまいんだー)|"
        r"(?<![a-z])(my|the)\s+(\w+\s+)?(timer|alarm|reminders?)(?![a-z])|"
        r"(せっとされ|登録され|入っ)て?(る|た|い)?\s*(たいまー|あらーむ|りまいんど|りまいんだー)|(left|still\s+running)\s+.*timer|"
        r"timer\s+.*(left|still\s+running)|did\s+you\s+set|my\s+next\s+reminder",
        needs_any=f"{QUESTION} {REQUEST}",
        unless=f"{PAST} {KNOWLEDGE} {TALK}",
    ),
    cue(
        "change reminder #n",
        REMINDER,
        4,
        regex=r"#\s*\d+.*(取り消|消して|けして|きゃんせる|変更|延期|ずらして)|"
        r"(cancel|delete|edit|move)\s+.*#?\d+",
    ),
)
