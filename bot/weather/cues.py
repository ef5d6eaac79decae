"""How members ask for the forecast, with or without a weather noun: the weather handler's cues.

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
    PLACE,
    QUESTION,
    REQUEST,
    SHORT,
    TALK,
    TITLE,
    TOPICAL,
    VERBLESS,
    Cue,
    cue,
)

WEATHER = "weather"

# Weather: a forecast asked for, even without a weather noun.
_AWAY_FROM_WEATHER = f"{PAST} {FEELING} {TITLE} {KNOWLEDGE} {TOPICAL} {TALK}"
_OUTDOORS = (
    r"(ばーべきゅー|bbq|ぴくにっく|花見|運動会|きゃんぷ|ごるふ|はいきんぐ|登山|釣り|海水浴|遠足|花火大会|祭り|"
    r"ぷーる|公園|動物園|遊園地|ゆうえんち|野球|さっかー|てにす|試合|部活|まらそん|つーりんぐ|うぉーきんぐ|"
    r"自転車|ちゃり|ろーどばいく|ばいく|じょぎんぐ|らんにんぐ|散歩|通勤|通学|どらいぶ|のーまるたいや|"
    r"鉢植え|植木|苗|花壇|畑|家庭菜園|洗車|水やり|すたっどれす|たいや|ちぇーん規制|"
    r"(?<![a-z])(picnic|hike|hiking|camping|beach|golf|bike|biking|motorbike|cycle|cycling|ride|run|jog|"
    r"walk|drive|commute|plants?|garden|lawn|seedlings?|tomatoes|basil|barbecue|bbq|festival|park|pool|"
    r"zoo|fishing|match|game|football|soccer|tennis|baseball|snow\s+tires|winter\s+tires)(?![a-z]))"
)
_GO_AHEAD = (
    r"(大丈夫|平気|できそう|できる|[行い]け(る|そう|ます)|帰れ(る|そう)|出(られ|れ)(る|そう)|決行|中止|延期|やれそう|もつ|外に出し|しまっ|入れ|日和|要る|いる\s*[?？]|"
    r"(?<![a-z])(ok|okay|fine|alright|go\s+ahead|be\s+on|happen|cancell?ed|good\s+(\w+\s+)?day|bring|"
    r"can\s+i|should\s+i|ok\s+to|safe\s+to|"
    r"rained\s+out|hold|safe|inside|nice\s+enough|cover|worth)(?![a-z]))"
)
_FALLING = r"((?<!梅)雨|雪|台風|嵐|降[るらりっ]|ふる|荒れ|(?<![a-z])(rain|snow|storm|typhoon|pour))"
_HEARD = (
    r"(本当|ほんと|ほんま|まじ|って聞い|(?<![a-z])(is\s+it\s+true|is\s+that\s+(right|true)|true\s*[?？]|"
    r"is\s+(she|he|it|that)\s+right|really))"
)
WEATHER_CUES: tuple[Cue, ...] = (
    cue(
        "weather noun",
        WEATHER,
        4,
        words="天気|てんき|天候|予報|よほう|気温|降水|注意報|警報|空模様|そらもよう|weather|wether|weathr|forecast|"
        "temperature|chance of rain|chance of snow|precipitation",
        regex=r"(?<![a-z])temps?(?![a-z])",
        needs_any=f"{QUESTION} {REQUEST} {SHORT} {NOW} {DAY}",
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "weather word in a question",
        WEATHER,
        3,
        words="あめ|雪|晴れ|曇り|くもり|台風|雷|花粉|湿度|風|豪雨|傘|かさ|rain|snow|sunny|humid|"
        "windy|umbrella|brolly|typhoon|storm|outside|nice out|clear up|cloudy|overcast|drizzle|"
        "shower|sunshine|pour|pouring|thunderstorm|rainstorm|snowstorm|downpour|折りたたみ|折り畳み|"
        "濡れ|ぬれ|wet|soaked",
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
        regex=r"凍結|むしむし|じめじめ|じめっ|むしっ|じとじと|べたべた|さむい|あつい|寒な|暑な|さむな|あつな|ふる[?？]|霧|霜|雹|あられ|みぞれ|夕立|嵐|吹雪|積雪|"
        r"暴風|強風|寒波|猛暑|熱中症|紫外線|黄砂|晴れ間|日差し|快晴|晴天|最高気温|最低気温|湿気|氷点下|"
        # Highs and lows, and the air: 最高何度, どこまで下がる, 真夏日, からっと, 乾燥する.
        r"最高|最低|(どこ|何度|\d+\s*度)まで|(下が|上が|超え)る|まいなす|真夏日|猛暑日|夏日|冬日|真冬日|"
        r"からっと|乾燥(する|し|気味)|冷え込み|寒さ|暑さ|"
        # Regional and casual words for the air: ぬくい, しばれる, さぶい, あっつい, 寒か.
        r"ぬく[いな]|しばれ|さぶ[いな]|さむっ|あっつ|あちい|あちぃ|さみい|さみぃ|(寒|暑)か(と|ね|ろ|\s*[?？])|"
        r"降り(そう|出|だ)|ふりそう|"
        r"(?<![a-z])(the\s+(high|low)|highs|lows|below\s+(zero|freezing)|how\s+(low|warm|hot|high)\s+(does|will|is)|"
        r"hit\s+\d+|(will|is)\s+it\s+(be\s+)?(nice|lovely|pleasant|bad|nasty)|sticky|dry\s+air|air\s+.*dry|black\s+ice)(?![a-z])|"
        r"何度|"
        r"(?<![a-z])(hot|cold|chilly|nippy|mild|muggy|balmy|rainy|snowy|stormy|icy|warm|freezing|cool|"
        r"fog|foggy|frost|freeze|hail|sleet|heat|heatwave|"
        r"uv|pollen|thunder|lightning|blizzard|gusty|breezy|degrees|celsius)(?![a-z])",
        needs=QUESTION,
        needs_any=f"{NOW} {DAY} {CLOCK} {SHORT}",
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "what to wear",
        WEATHER,
        3,
        lemmas="着る",
        regex=r"服装|上着|こーと|じゃけっと|まふらー|手袋|だうん|半袖|長袖|かーでぃがん|せーたー|にっと|"
        r"厚着|薄着|毛布|暖房|冷房|えあこん|ひーたー|こたつ|あうたー|ひーとてっく|帽子|日傘|れいんこーと|長靴|かっぱ|厚手|ぱーかー|羽織|じゃんぱー|"
        r"着(て|れ|る|た(ら|ほう))|"
        r"日焼け止め|"
        r"(?<![a-z])(wear|jacket|coat|sweater|shorts|jeans|hoodie|gloves|scarf|boots|layers|"
        r"raincoat|sandals|t-?shirt|jumper|pullover|fleece|parka|windbreaker|hat|beanie|sunscreen|sunglasses|long\s+sleeves|short\s+sleeves)"
        r"(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    # The rainy season's start and end this year: 梅雨入りした？ 梅雨明けまだ？
    cue(
        "rainy season",
        WEATHER,
        4,
        regex=r"梅雨.{0,4}(入り|入っ|いり|明け|明|あけ)|(?<![a-z])(tsuyu|rainy\s+season)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    # "今夜雨って本当？", "is it true it's gonna rain tonight": a forecast checked, not a fact.
    cue(
        "a forecast heard",
        WEATHER,
        5,
        regex=rf"{_FALLING}.*{_HEARD}|{_HEARD}.*{_FALLING}",
        needs_any=f"{NOW} {DAY} {CLOCK}",
        unless=f"{PAST} {TOPICAL} {TALK}",
    ),
    # "チャリ日和？", "is it a good day to bike to work": today's conditions for something.
    cue(
        "a good day for it",
        WEATHER,
        3,
        regex=r"日和|(?<![a-z])(good\s+(\w+\s+)?day\s+(to|for)|good\s+(beach|bike|biking|cycling|picnic|"
        r"hiking|laundry|running|walking)\s+(day|weather)|nice\s+enough\s+(for|to))(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
    # Outdoors on a day: a plan, the walk home, a ride, plants left out — "明日BBQ大丈夫そう？".
    cue(
        "outdoors on a day",
        WEATHER,
        3,
        regex=rf"{_OUTDOORS}.*{_GO_AHEAD}|{_GO_AHEAD}.*{_OUTDOORS}",
        needs=QUESTION,
        needs_any=f"{NOW} {DAY} {CLOCK}",
        unless=f"{PAST} {FEELING} {TITLE} {KNOWLEDGE} {TOPICAL} {TALK}",
    ),
    # "札幌 明日", "あしたの東京どんな感じ？": a place and a day, nothing else, asks the forecast.
    cue(
        "a place on a day",
        WEATHER,
        3,
        regex=r"どう\s*[?？]?\s*$|どんな感じ|^\S+\s+\S+$",
        needs=f"{PLACE} {VERBLESS}",
        needs_any=f"{DAY} {NOW}",
        unless=_AWAY_FROM_WEATHER,
    ),
    cue(
        "will it dry",
        WEATHER,
        3,
        lemmas="乾く|干す|干せる",
        regex=r"洗濯(?!機)|せんたく(?!き)|洗たく|布団(干|ほ)|ふとん(干|ほ)|しーつ|部屋干し|外干し|日和|生乾き|乾燥機|"
        r"(?<![a-z])(laundry|dry|drying|hang|dryer)(?![a-z])",
        needs=QUESTION,
        unless=_AWAY_FROM_WEATHER,
    ),
)
