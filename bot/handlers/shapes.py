"""The shape of a mention (a time, a question, a story…) and the Cue both signals and handlers use.

Every pattern runs on the normalised text (NFKC, lower case, katakana folded to hiragana), so
write them in hiragana and lower case; `lemmas` match janome base forms. A cue applies when the
signals in `needs` are all present, at least one of `needs_any` is, and none of `unless`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.text.analysis import katakana_to_hiragana, normalize

# Signals: the shape of the mention rather than its subject.
CLOCK = "clock"  # a clock time or an offset: 9時, 15:30, 7pm, 30分後, in 20 minutes
DAY = "day"  # a day: 明日, 金曜, 12日, 月末, tomorrow, next week, on the 15th
REPEAT = "repeat"  # 毎朝, 平日, every monday
QUESTION = "question"  # ？, 〜かな, 〜る？, "will it…", a bare "東京の気温は"
KNOWLEDGE = "knowledge"  # why / how to / who / where, or the server's own things
TOPICAL = "topical"  # the server's own things: rules, channels, roles, settings, events
WHEN = "when"  # 何時から, いつ, what time: about an event, unless it is about the weather
FEELING = "feeling"  # a remark: 好き, 最悪, 〜すぎ, 〜ね, ugh, i love
TITLE = "title"  # a film, song or show: 映画, 曲, 「…」, listening to
PAST = "past"  # a story: 〜た at the end, ちゃった, i overslept (computed from tokens too)
REQUEST = "request"  # 〜して, 〜といて, お願い, よろ, please, "set …" / "start …" at the start
NOW = "now"  # today or now: with a weather noun, "temperature in tokyo right now" asks for it
SHORT = "short"  # a few words: "大阪 気温", "weather in Osaka" (from the text's length)
VERBLESS = "verbless"  # no Japanese verb or adjective at all: "タイマー5分" (from tokens)
PLACE = "place"  # a place name: 札幌, 東京 (from tokens)
TALK = "talk"  # talk about talking: 天気の話, enough about the weather, friendly reminder that…


@dataclass(frozen=True)
class Cue:
    """A pattern that adds weight to a handler (or, for signals, marks the mention)."""

    name: str
    target: str
    weight: int
    pattern: re.Pattern[str] | None
    lemmas: frozenset[str]
    needs: frozenset[str]
    needs_any: frozenset[str]
    unless: frozenset[str]


def _fold(text: str) -> str:
    return katakana_to_hiragana(normalize(text))


def _word(phrase: str) -> str:
    # An ASCII phrase must start a word ("rain" is in "rainy", not in "train").
    escaped = re.escape(_fold(phrase)).replace(r"\ ", r"\s+")
    if not phrase.isascii():
        return escaped
    # Short words must also end a word ("hi" is not in "his", "ty" not in "typhoon").
    return rf"(?<![a-z']){escaped}(?![a-z])" if len(phrase) <= 3 else rf"(?<![a-z']){escaped}"


def cue(
    name: str,
    target: str,
    weight: int = 0,
    *,
    words: str = "",
    regex: str = "",
    lemmas: str = "",
    needs: str = "",
    needs_any: str = "",
    unless: str = "",
) -> Cue:
    """Build a cue; words and lemmas are separated by `|`, signal names by spaces."""
    alternatives = [_word(w) for w in words.split("|") if w]
    if regex:  # katakana folded like the text; NFKC would turn ？ into a regex metacharacter
        alternatives.append(katakana_to_hiragana(regex))
    return Cue(
        name,
        target,
        weight,
        re.compile("|".join(alternatives)) if alternatives else None,
        frozenset(_fold(x) for x in lemmas.split("|") if x),
        frozenset(needs.split()),
        frozenset(needs_any.split()),
        frozenset(unless.split()),
    )


_WEEKDAY_EN = r"(mon|tues|wednes|thurs|fri|satur|sun)day"
# Named days: holidays, paydays and birthdays, and days counted from one ("お盆の前日").
_NAMED_DAY_JA = (
    r"元日|元旦|大晦日|大みそか|正月|お盆|ごーるでんうぃーく|gw|年末|年始|成人の日|建国記念|天皇誕生日|"
    r"春分の日|秋分の日|昭和の日|憲法記念日|みどりの日|こどもの日|海の日|山の日|敬老の日|"
    r"体育の日|すぽーつの日|文化の日|勤労感謝|母の日|父の日|ばれんたいん|ほわいとでー|はろうぃん|"
    r"くりすます|誕生日|給料日|(前|翌|当)日|前の(日|週)|\d+\s*(日|週間|か月|ヶ月)\s*(前|後)|明け(に|の|て)"
)
_NAMED_DAY_EN = (
    r"christmas|xmas|new\s+year'?s(\s+(eve|day))?|thanksgiving|golden\s+week|valentine'?s|"
    r"halloween|easter|mother'?s\s+day|father'?s\s+day|payday|pay\s+day|birthday"
)

SIGNALS: tuple[Cue, ...] = (
    cue(
        "clock",
        CLOCK,
        regex=r"\d{1,2}\s*(時|じ|:)|(?<![a-z])(when\s+it'?s\s+\d|(alarm|timer)\s+(for|at)\s+\d)|\d+\s*(分|秒|時間)|\d{1,2}\s*(am|pm)(?![a-z])|"
        r"(?<![a-z])(at|in|by)\s+(\d|an?\s+(hour|minute)|half)|\d+\s*(sec|second|min|minute|hour|hr)s?(?![a-z])|"
        r"(?<![a-z])(noon|lunch|lunchtime|dinner|breakfast|midnight)(?![a-z])|正午|昼|夕方|あとで|後で|"
        r"今夜|今晩|朝(?!ご)|夜|午前|午後|朝イチ|お昼|夜中|深夜|明け方|朝方|昼過ぎ|寝る前|出かける前|"
        r"帰ったら|仕事終わり|のちほど|"
        r"(?<![a-z])(tomorrow\s+morning|this\s+(evening|afternoon|morning)|in\s+the\s+(morning|evening)|"
        r"after\s+work|later\s+today|later|before\s+bed|after\s+lunch|soon)(?![a-z])",
    ),
    cue(
        "day",
        DAY,
        regex=r"明日|あした|あす|明後日|あさって|今週|来週|再来週|来月|週末|月末|月初|"
        r"週明け|連休|今度の|次の[月火水木金土日]|[月火水木金土日]曜|\d{1,2}\s*日|\d{1,2}/\d{1,2}|\d{1,2}月|毎朝|毎晩|毎日|毎週|毎月|平日|"
        rf"{_NAMED_DAY_JA}|"
        rf"tomorrow|tmrw|tonight|next\s+(week|month|{_WEEKDAY_EN})|(?<![a-z]){_WEEKDAY_EN}|"
        r"weekday|the\s+\d+(st|nd|rd|th)|this\s+(week|weekend|evening)|"
        r"(\d+|one|two|three|four|five|six|a\s+few|a|an)\s+(days?|weeks?|months?)\s+(before|after|from\s+now|later)|"
        rf"(?<![a-z])({_NAMED_DAY_EN})(?![a-z])|(the\s+)?(day|week|weekend|night|friday)\s+(before|after)\s",
    ),
    cue(
        "now",
        NOW,
        regex=r"今日|きょう|今(?!度|回)|いま|これから|このあと|この後|(?<![a-z])(today|tonight|now|this\s+(morning|afternoon|evening|week|weekend))(?![a-z])",
    ),
    cue(
        "repeat",
        REPEAT,
        regex=r"毎朝|毎晩|毎日|毎週|毎月|平日の|\d+\s*(時間|分|日)\s*(おき|ごと)|"
        rf"every\s+(day|morning|night|week|weekday|month|{_WEEKDAY_EN}|\d+)",
    ),
    cue(
        "question",
        QUESTION,
        # Not a question quoted in a story: 傘いる？って聞いたら…, 寒いのかなーって思ってたら…
        regex=r"[?？](?!って)|かな(?![ー〜~]*って)|かしら|(何|なに)(の日|が|を|する|時)|"
        r"(か|かね|の|は|には|どう|どんな感じ|いる|いける|平気|大丈夫|べき|そう|っぽい|かも)\s*$|"
        # The west's and casual question endings: 寒いん, 降るん, 大丈夫やろか, 何時やっけ.
        r"(るん|いん|やろか|やろ|じゃろ|っけ|かいな)\s*$|"
        # 降るべか, 寒いっぺ, 晴れるけ, 降るかのう, 冷えるっちゃろか, 大丈夫かいね, 雨なんかな.
        r"(べ|べか|べさ|っぺ|だべ|るけ|いけ|かや|かいね|かの|かのう|じゃろうか|やろうか|ちゃろ|ちゃろか|ちゃろうか|"
        r"とや|んかな|んかね|んやろ|んじゃろ|んけ|かい|かと|けぇ)\s*$|かどうか|どうなって(る|ん)|どれ(く|ぐ)らい|どの(く|ぐ)らい|どんくらい|"
        r"^(will|is|are|do|does|did|should|can|could|any|hows|how's|gonna|would|whats|what's|what|has|have|"
        r"which|how|when|where|who|why)(?![a-z'])|(?<![a-z])(is|will)\s+it(?![a-z])|"
        r"(?<![a-z])or(?![a-z])",
    ),
    cue(
        "request",
        REQUEST,
        regex=r"[ぁ-ゖ一-龥]て(ね|ー|〜|よ|や|な|ーや|ーな|ぇ|けろ|ちょ|たも)?\s*$|(とい|ておい|てて|とっ)て?|"
        # Regional and casual request forms: 〜してくれへん？ 〜しといてや 〜してけろ 〜したって
        r"て(くれ|くん|ほしい|欲しい|ください|くだしゃ|くらさ|くだい|くだは|ちょうだい|ちょーだい|もらえ|もろて|もらって|けろ|けれ|けさい|"
        r"ちょ|たも|おくれ|つかあさい|はいよ)|[うっ]たって|"
        r"ちょうだい|お願い|おねがい|よろしく|よろしゅう|よろ|頼む|たのむ|頼んだ|たのんだ|頼んます|たのんます|ぷりーず|"
        r"ほしい|(見|知り|確認し|消し|変え|止め)たい\s*$|せっと|(きゃんせる|取り消し|削除|中止|なし|すとっぷ)で\s*$|(?<![a-z])(please|pls|plz|can\s+you|could\s+you|can\s+u|can\s+i\s+(get|have)|"
        r"i\s+need|need\s+an?)(?![a-z])|"
        r"^(set|start|wake|remind|put|add|give|ping|nudge|poke|alert|notify|tell|make|stop|cancel|delete|"
        r"show|list|clear|snooze|push|move|bug|nag|ring|holler|shout|yell|time|count)(?![a-z])",
    ),
    cue(
        "knowledge",
        KNOWLEDGE,
        regex=r"なんで|なぜ|どうして|どうやって|どうやったら|方法|(?<!夕)(?<!両)方(\s*$|は|を|って|が|教え|おしえ|知りたい)|とは|どう決め|仕組み|どのように|由来|って(何|なに)(?=\s*$|[?？]|だ|です|なの)|英語|英訳|日本語で|翻訳|"
        r"意味|誰|だれ|どこ(?!か|まで)|何色|なんていう|なんて言う|英語で|調べて|って本当|本当に|ほんとに(いる|ある)|"
        r"^(why|who(?!\s+else)|where)(?![a-z])|温度って|何度(で|から|以下|以上)|(?<![a-z])(what\s+temperature\s+(does|do|is|are)|is\s+there\s+a\s+way|any\s+way\s+to|(does|do)\s+\w+\s+(form|freeze|melt|happen|occur))(?![a-z])|is\s+it\s+true|(?<![a-z])(translate|in\s+english|in\s+japanese)(?![a-z])|(?<![a-z])(explain|search|look\s+up)(?![a-z])|"
        r"^what\s+(is|are|does|causes|makes)(?![a-z])|(?<![a-z])(rainiest|snowiest|hottest|coldest|wettest|driest|"
        r"windiest|sunniest|warmest)(?![a-z])|一番(暑|寒|雨|雪|降)|最も|how\s+come|違い|(?<![a-z])(difference|meaning)(?![a-z])|how\s+(do|does|did|can|to)(?![a-z])|(do|did)\s+you\s+remember|"
        r"remind\s+me\s+(what|how|who|where|why|which)(?![a-z])|"
        # How to do a household thing, how things differ, what the bot can do, a limit.
        r"\d+\s*(%|ぱーせんと)\s*って|(乾燥機|洗濯機)(で|に|って)|(洗っ|乾かし)ていい|どう決ま|番号|どうしたら|どうすれば|違う|ちがう|こつ|快適|目安|理想|適温|裏技|くりーにんぐ|手入れ|"
        r"(?<![a-z])(different\s+from|differ|versus|vs|brands?|recommend|recommendations?|(good|best|fastest|quickest)\s+way\s+to|tips?\s+(for|on)|"
        r"hacks?)(?![a-z])|洗え(る|ます)|洗い方|たたみ方|畳み方|(何|なん)(個|件|回)まで|いくつまで|上限|"
        r"(otomo|おとも|ぼっと)\S*(って|は|も)\S*(でき|くれ|られ|使え|わか|知って)(る|ます|ん)|"
        r"(?<![a-z])(can|does)\s+(otomo|the\s+bot|this\s+bot)(?![a-z])",
    ),
    cue(
        "about the server",
        TOPICAL,
        regex=r"ルール|決まり|サーバー|チャンネル|ロール|コマンド|設定|管理者|イベント|招待|"
        r"(?<![a-z])(api|app|plugin|install|server|channel|rules?|role|mods?|announcements?|"
        r"nickname|command)(?![a-z])",
    ),
    cue("when", WHEN, regex=r"何時|何曜|(?<![あこそど])いつ(?!も)|^when(?![a-z])|what\s+time"),
    cue(
        "feeling",
        FEELING,
        regex=r"好き|嫌い|きらい|やだ|いやだ|最高(?!\s*(気温|何|は|って|で|も|の))|最悪|気持ちいい|きれい|綺麗|つらい|辛い|うれしい|嬉しい|"
        r"すご(い|かった)|やばかった|かゆい|すぎ|溶け|って感じ|((?<!て)(?<!か)(?<!くれん)(?<!くれへん)ね|よね|(?<!か)なー|(?<!か)なぁ|わ|やつ|あるある)\s*$|[ー〜~]\s*$|"
        # A remark in the west's endings (〜やわ, 〜よな, 〜やん), a sigh, good weather as a reason.
        r"(よな|やな|やわ|やん|やんな|んよな|っしょ|ますように)\s*$|萎え|勘弁|しんど|かわい|可愛|かっこい|気分(下が|上が|悪|最悪)|てんしょん|あったかくして|暖かくして|無理(せん|しない)|"
        # Musing on one's own plans: 出かけよかな, 干そっと, 家おるし.
        r"[よころ]う?かな\s*$|[おこそとのほもろごぞどぼぽ]うかな\s*$|[よこそろ]っと\s*$|[るいだやた]し\s*$|だる[いっ]|だりぃ|気を(つけ|付け)|(せな|しな|なきゃ|ないと|なあ)(あかん|いけない|だめ)\s*$|夏ばて|(天気|てんき)(が)?(いい|良い|ええ|悪い|わるい)し|"
        r"(晴れ|明け|止ん|やん|降らない|涼しくなっ|暖かくなっ|あったかくなっ|来ないで|こないで)[てで]?(ほしい|欲しい)|"
        r"(晴れ|降らない)と(いい|ええ)な|"
        r"(?<![a-z])(ugh|love|hate|can'?t\s+stand|yay|lol|lmao|haha|so\s+(hot|cold|weird|nice|good|bad|pretty)|"
        r"kill\s+me|not\s+looking\s+forward|of\s+course|sad|unreal|the\s+worst|hope|sucks|dreading|"
        r"is\s+it\s+just\s+me|depressing|gloomy|miserable|awful|terrible|gorgeous|"
        r"can'?t\s+wait|tired\s+of|sick\s+of|so\s+over|i\s+keep|i\s+always|i\s+never|finally|at\s+last)(?![a-z])|"
        r"(?P<onomatopoeia>[ぁ-ゖ])か(?P=onomatopoeia)か\s*$|のに(\s*$|[、,…]|まだ|全然|もう)|死ぬ|しぬ|もうええ|もういい|わくわく|どきどき|いやや|嫌や|"
        r"(?<![a-z])(do\s+you\s+(like|prefer|love|hate)|would\s+you\s+rather|(your|ur)\s+fav(ou?rite)?|prefer|"
        r"guess\s+i'?(m|ll)|hot\s+take)(?![a-z])|かよ\s*$|ばっか|いい加減|ええ加減|ありえな|あり得な|ありえへん|ありえん|あり得へん|飽きた|うざ|めんど|面倒|"
        r"憂鬱|ゆううつ|うんざり|もう無理|泣きそう|やっと|ようやく|(草|笑|(?<![a-z])w+)\s*$|(来い|こい)\s*$|!!",
    ),
    cue(
        "title",
        TITLE,
        regex=r"「|『|映画|曲|歌|天気の子|雪の女王|ラスト|結末|最終回|ネタバレ|主人公|あにめ|どらま|からおけ|名作|主題歌|監督|見た|観た|見て|観て|聴|聞きながら|"
        r"(?<![a-z])(movie|song|film|album|listening|listen\s+to|watching|rewatching|watched|seen|"
        r"directed|sang|sung)(?![a-z])",
    ),
    cue(
        "talk",
        TALK,
        regex=r"(天気|雨|雪|梅雨)\s*(の|って)?\s*(話|はなし)|(台風|梅雨|夏|冬|春|秋|猛暑|真夏|真冬)の(日|朝|夜|季節|時期)(って|は)|そっちは|そちらは|(雨|晴れ)(女|男)|派\s*[?？]?\s*$|(雨|雪|晴れ)の日(って|は|に|の)|"
        r"(?<![a-z])(rainy|snowy|sunny)\s+days?(?!\s+(tomorrow|today|this))|(天気|りまいんだー|りまいんど|たいまー|あらーむ)\s*(あぷり|app)|"
        r"(?<![a-z])(weather|reminders?|alarm|timer)\s+apps?|(?<![a-z])((talk|talking|enough)\s+about\s+(the\s+)?"
        r"(weather|rain|snow)|(friendly|just\s+a|quick)\s+reminder|reminder\s+that)|"
        # Wishing for someone who would do it: 起こしてくれる人募集, モーニングコールしてくれる彼女.
        r"(くれる|くれへん|くれない)(人|彼女|彼氏|友達|子)",
    ),
    # Hearsay told, not asked: "明日雨らしいよ", "they say it'll snow all week".
    cue(
        "hearsay",
        TALK,
        regex=r"らしい(ね|よ|わ|で|な|やん|けど)?\s*$|らしいし|って(言って|ゆうて|いって)た(よ|わ|で)?\s*$|"
        r"ってよ|(ん|の)やって\s*$|んだって\s*$|ってさ\s*$|"
        r"(?<![a-z])(they\s+said|apparently|supposedly)(?![a-z])",
        unless=QUESTION,
    ),
    cue(
        "past",
        PAST,
        regex=r"ちゃった|じゃった|しまった|(?<![a-z])(didn'?t|was|were|has been|have been|lately|"
        r"forgot|slept|broke|went|got|woke|burned|burnt|overslept|missed|snoozed|had|by\s+accident|"
        r"accidentally|by\s+mistake)(?![a-z])|"
        # What someone else does to me, told not asked: "my mom reminds me at 7", "the app keeps
        # pinging me", "I set four alarms"; 母が起こしてくれるんよ, リマインドされても, かけたけど.
        r"(?<![a-z])((reminds|wakes|calls|texts|pings|tells|nags|bugs|buzzes|nudges|alerts|notifies|"
        r"rings|messages|yells\s+at|shouts\s+at)\s+me|(keeps|kept)\s+\w+ing\s+me|i\s+(set|ignore|ignored|"
        r"snoozed|turned\s+off|usually|already\s+set))(?![a-z])|"
        r"てくれる(んよ|んだ|んです|ねん|んや|んだよ|から|けど)\s*$|(され|られ)(ても|たら)|って\S{0,4}(言|い|思|おも)って(る|た)|てもらっても|てもろても|"
        r"(?<!ん)た(けど|のに|けれど|んだけど|んやけど|けん|けぇ)",
        unless=QUESTION,
    ),
)
