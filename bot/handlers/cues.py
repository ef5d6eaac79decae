"""The cues that score each handler: how members ask for reminders and weather, and chat.

Patterns run on the normalised text (see bot.handlers.shapes); weights add up per handler.
"""

from __future__ import annotations

from bot.handlers.shapes import (
    CLOCK,
    DAY,
    FEELING,
    KNOWLEDGE,
    NOW,
    PAST,
    QUESTION,
    REPEAT,
    REQUEST,
    SHORT,
    TITLE,
    TOPICAL,
    VERBLESS,
    WHEN,
    Cue,
    cue,
)

REMINDER = "reminder"
CHAT = "chat"
WEATHER = "weather"
GENERAL = "general"

# Reminders: asking to be told at a time, with every word members use for it.
_ALARM = "あらーむ|alarm|たいまー|timer|目覚まし|めざまし|ぴぴって|countdown"
_TELL = (
    r"(教え|おしえ|言っ|いっ|声かけ|声掛け|つつい|呼ん|連絡し|知らせ|しらせ|伝え|念押しし)(て|とい)|"
    r"(一言|連絡)(ちょうだい|ほしい|ください)"
)
REMINDER_CUES: tuple[Cue, ...] = (
    cue(
        "reminder word",
        REMINDER,
        5,
        words="りまいんど|りまいんだ|remind|remnd|rmind|rmd|reminder",
        unless=f"{PAST} {KNOWLEDGE}",
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
        regex=r"(起こ|おこ)して|wake\s+me|wake[\s-]*up\s+call",
        unless=PAST,
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
        r"let\s+me\s+know|heads[\s-]*up|(ping|dm|めんしょん)\s*(して|ちょうだい|ください)",
        needs_any=f"{CLOCK} {DAY}",
        unless=f"{PAST} {KNOWLEDGE} {WHEN}",
    ),
    cue(
        "tell me at a time",
        REMINDER,
        3,
        regex=_TELL + r"|(?<![a-z])tell\s+me\s+(?!(a|an|something|what|why|how|who|where|more|your)"
        r"(?![a-z]))",
        needs_any=f"{CLOCK} {DAY}",
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
        unless=f"{KNOWLEDGE} {WHEN}",
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
_AWAY_FROM_WEATHER = f"{PAST} {FEELING} {TITLE} {KNOWLEDGE} {TOPICAL}"
WEATHER_CUES: tuple[Cue, ...] = (
    cue(
        "weather noun",
        WEATHER,
        4,
        words="天気|てんき|天候|予報|よほう|気温|降水|weather|wether|weathr|forecast|temperature",
        needs_any=f"{QUESTION} {REQUEST} {SHORT} {NOW} {DAY}",
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "weather word in a question",
        WEATHER,
        3,
        words="あめ|雪|晴れ|曇り|くもり|台風|雷|花粉|湿度|風|豪雨|傘|かさ|rain|snow|sunny|humid|"
        "windy|umbrella|typhoon|storm|outside|nice out|clear up|cloudy|overcast|drizzle|shower|"
        "sunshine|pour|pouring",
        regex=r"(?<!梅)雨",  # 梅雨 is a season people ask about, not a forecast
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "condition in a question",
        WEATHER,
        3,
        lemmas="暑い|寒い|蒸し暑い|肌寒い|涼しい|暖かい|あたたかい|あったかい|冷える|凍る|曇る|晴れる|"
        "降る|ふる|積もる|冷え込む|蒸す|止む|やむ|荒れる|崩れる|降り出す|吹く",
        regex=r"凍結|むしむし|じめじめ|さむい|あつい|寒な|暑な|さむな|あつな|ふる[?？]|霧|霜|雹|あられ|みぞれ|夕立|嵐|吹雪|積雪|"
        r"暴風|強風|寒波|猛暑|熱中症|紫外線|黄砂|晴れ間|日差し|快晴|晴天|最高気温|最低気温|湿気|氷点下|"
        r"何度|"
        r"(?<![a-z])(hot|cold|chilly|nippy|mild|muggy|balmy|rainy|snowy|stormy|icy|warm|freezing|cool|"
        r"fog|foggy|frost|hail|sleet|heat|heatwave|"
        r"uv|pollen|thunder|lightning|blizzard|gusty|breezy|degrees|celsius)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "what to wear",
        WEATHER,
        3,
        lemmas="着る",
        regex=r"服装|上着|こーと|じゃけっと|まふらー|手袋|だうん|半袖|長袖|かーでぃがん|せーたー|にっと|"
        r"厚着|薄着|あうたー|ひーとてっく|帽子|日傘|れいんこーと|長靴|かっぱ|厚手|ぱーかー|羽織|じゃんぱー|"
        r"着(て|れ|る|た(ら|ほう))|"
        r"日焼け止め|"
        r"(?<![a-z])(wear|jacket|coat|sweater|shorts|jeans|hoodie|gloves|scarf|boots|layers|"
        r"raincoat|sandals|t-?shirt|jumper|pullover|fleece|parka|windbreaker|hat|beanie|sunscreen|sunglasses|long\s+sleeves|short\s+sleeves)"
        r"(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "will it dry",
        WEATHER,
        3,
        lemmas="乾く|干す|干せる",
        regex=r"洗濯|せんたく|洗たく|布団|ふとん|しーつ|部屋干し|外干し|日和|生乾き|乾燥機|"
        r"(?<![a-z])(laundry|dry|drying|hang|dryer)(?![a-z])",
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
    cue("a feeling", CHAT, 2, needs=FEELING),
    cue("a film or song", CHAT, 2, needs=TITLE, unless=f"{KNOWLEDGE} {TOPICAL}"),
    cue("forgetful", CHAT, 2, regex=r"忘れ|わすれ|(?<![a-z])forg[eo]t|remember"),
    cue("musing", CHAT, 1, regex=r"(しよう|しよ|しようかな)\s*$"),
    cue(
        "asking otomo's taste",
        CHAT,
        2,
        regex=r"(と|って)思う\s*[?？]|どう思う|(何|なに)がいいかな|好きな(食べ物|もの|色|曲)|"
        r"(?<![a-z])(your\s+fav(ou?rite)?|what\s+do\s+you\s+think|do\s+you\s+like|would\s+you\s+rather|"
        r"(who|why|what)\s+even|why\s+(do|does|is|are)\s.*always)(?![a-z])",
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

HANDLER_CUES = REMINDER_CUES + WEATHER_CUES + CHAT_CUES + GENERAL_CUES
