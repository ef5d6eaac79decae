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

SIGNALS: tuple[Cue, ...] = (
    cue(
        "clock",
        CLOCK,
        regex=r"\d{1,2}\s*(時|じ|:)|\d+\s*(分|秒|時間)|\d{1,2}\s*(am|pm)(?![a-z])|"
        r"(?<![a-z])(at|in|by)\s+(\d|an?\s+(hour|minute)|half)|\d+\s*(min|minute|hour|hr)s?(?![a-z])|"
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
        rf"tomorrow|tmrw|tonight|next\s+(week|month|{_WEEKDAY_EN})|(?<![a-z]){_WEEKDAY_EN}|"
        r"weekday|the\s+\d+(st|nd|rd|th)|this\s+(week|weekend|evening)",
    ),
    cue(
        "now",
        NOW,
        regex=r"今日|きょう|今(?!度|回)|いま|(?<![a-z])(today|tonight|now|this\s+(morning|afternoon|evening|week|weekend))(?![a-z])",
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
        regex=r"[?？]|かな|かしら|(何|なに)(の日|が|を|する|時)|"
        r"(か|かね|の|は|には|どう|どんな感じ|いる|いける|平気|大丈夫|べき|そう|っぽい|かも)\s*$|"
        r"^(will|is|are|do|does|did|should|can|could|any|hows|how's|gonna|would|whats|what's|what|"
        r"which|how|when|where|who|why)(?![a-z'])|(?<![a-z])(is|will)\s+it(?![a-z])|"
        r"(?<![a-z])or(?![a-z])",
    ),
    cue(
        "request",
        REQUEST,
        regex=r"[ぁ-ゖ一-龥]て(ね|ー|〜|よ|や)?\s*$|(とい|ておい|てて)て?|"
        r"て(くれ|ほしい|ください|ちょうだい|もらえ)|ちょうだい|お願い|おねがい|よろしく|よろ|頼む|たのむ|"
        r"ほしい|せっと|(?<![a-z])(please|pls|plz|can\s+you|could\s+you|can\s+u|can\s+i\s+(get|have)|"
        r"i\s+need|need\s+an?)(?![a-z])|"
        r"^(set|start|wake|remind|put|add|give|ping|nudge|poke|alert|notify|tell|make)(?![a-z])",
    ),
    cue(
        "knowledge",
        KNOWLEDGE,
        regex=r"なんで|なぜ|どうして|どうやって|どうやったら|方法|(?<!夕)(?<!両)方(\s*$|は|を|って|が|教え|おしえ|知りたい)|とは|どう決め|仕組み|どのように|由来|って(何|なに)(?=\s*$|[?？]|だ|です|なの)|英語|英訳|日本語で|翻訳|"
        r"意味|誰|だれ|どこ(?!か)|何色|なんていう|なんて言う|英語で|調べて|って本当|本当に|ほんとに(いる|ある)|"
        r"^(why|who|where)(?![a-z])|is\s+it\s+true|(?<![a-z])(translate|in\s+english|in\s+japanese)(?![a-z])|(?<![a-z])(explain|search|look\s+up)(?![a-z])|"
        r"^what\s+(is|are|does|causes|makes)(?![a-z])|how\s+come|違い|(?<![a-z])(difference|meaning)(?![a-z])|how\s+(do|does|did|can|to)(?![a-z])|(do|did)\s+you\s+remember|"
        r"remind\s+me\s+(what|how|who|where|why|which)(?![a-z])",
    ),
    cue(
        "about the server",
        TOPICAL,
        regex=r"ルール|決まり|サーバー|チャンネル|ロール|コマンド|設定|管理者|イベント|招待|"
        r"(?<![a-z])(api|app|plugin|install|server|channel|rules?|role|mods?|announcements?|"
        r"nickname|command)(?![a-z])",
    ),
    cue("when", WHEN, regex=r"何時|何曜|いつ(?!も)|^when(?![a-z])|what\s+time"),
    cue(
        "feeling",
        FEELING,
        regex=r"好き|嫌い|きらい|やだ|いやだ|最高|最悪|気持ちいい|きれい|綺麗|つらい|辛い|うれしい|嬉しい|"
        r"すご(い|かった)|やばかった|かゆい|すぎ|溶け|って感じ|(ね|よね|(?<!か)なー|(?<!か)なぁ|わ|やつ|あるある)\s*$|[ー〜~]\s*$|"
        r"(?<![a-z])(ugh|love|hate|can'?t\s+stand|yay|lol|lmao|haha|so\s+(hot|cold|weird|nice|good|bad|pretty))(?![a-z])|!!",
    ),
    cue(
        "title",
        TITLE,
        regex=r"「|『|映画|曲|歌|天気の子|雪の女王|ラスト|結末|最終回|ネタバレ|主人公|あにめ|どらま|からおけ|名作|主題歌|監督|見た|観た|見て|観て|聴|聞きながら|"
        r"(?<![a-z])(movie|song|film|album|listening|listen\s+to|watching|rewatching|watched|seen|"
        r"directed|sang|sung)(?![a-z])",
    ),
    cue(
        "past",
        PAST,
        regex=r"ちゃった|じゃった|しまった|(?<![a-z])(didn'?t|was|were|has been|have been|lately|"
        r"forgot|slept|broke|went|got|woke|burned|burnt|overslept|missed|snoozed|had)(?![a-z])",
        unless=QUESTION,
    ),
)
