"""The shape of a mention (a time, a question, a story…) and the Cue both signals and handlers use.

Every pattern runs on the normalised text (NFKC, lower case, katakana folded to hiragana), so
write them in hiragana and lower case; `lemmas` match janome base forms. A cue applies when the
signals in `needs` are all present, at least one of `needs_any` is, and none of `unless`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.text import katakana_to_hiragana, normalize

# Signals: the shape of the mention rather than its subject.
CLOCK = "clock"  # a clock time or an offset: 9時, 15:30, 7pm, 30分後, in 20 minutes
DAY = "day"  # a day: 明日, 金曜, 12日, 月末, tomorrow, next week, on the 15th
REPEAT = "repeat"  # 毎朝, 平日, every monday
QUESTION = "question"  # ？, 〜かな, 〜る？, "will it…", a bare "東京の気温は"
KNOWLEDGE = "knowledge"  # why / how to / who / where, or the server's own things
FEELING = "feeling"  # a remark: 好き, 最悪, 〜すぎ, 〜ね, ugh, i love
TITLE = "title"  # a film, song or show: 映画, 曲, 「…」, listening to
PAST = "past"  # a story: 〜た at the end, ちゃった, i overslept (computed from tokens too)


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
    return rf"(?<![a-z']){escaped}" if phrase.isascii() else escaped


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
    alternatives = [_word(w) for w in words.split("|") if w] + ([regex] if regex else [])
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
        r"(?<![a-z])noon|正午|昼|夕方|あとで|後で|今夜|今晩|朝(?!ご)|tomorrow morning",
    ),
    cue(
        "day",
        DAY,
        regex=r"明日|あした|あす|明後日|あさって|今週|来週|再来週|来月|週末|月末|月初|"
        r"[月火水木金土日]曜|\d{1,2}\s*日|\d{1,2}/\d{1,2}|\d{1,2}月|毎朝|毎晩|毎日|毎週|毎月|平日|"
        rf"tomorrow|tmrw|tonight|next\s+(week|month|{_WEEKDAY_EN})|(?<![a-z]){_WEEKDAY_EN}|"
        r"weekday|the\s+\d+(st|nd|rd|th)|this\s+(week|weekend|evening)",
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
        regex=r"[?？]|かな|かしら|(か|かね|の|は|には|どう|どんな感じ|いる|いける|平気|大丈夫|べき)\s*$|"
        r"^(will|is|are|do|does|did|should|can|could|any|hows|how's|gonna|would|whats|what's|what|"
        r"which|how|when|where|who|why)(?![a-z])|(?<![a-z])(is|will)\s+it(?![a-z])",
    ),
    cue(
        "knowledge",
        KNOWLEDGE,
        regex=r"なんで|なぜ|どうして|どうやって|どうやったら|方法|(やり|仕|探し|使い|い)方|とは|って何|ってなに|"
        r"意味|誰|だれ|どこ|何色|何時|何曜|なんていう|なんて言う|英語で|調べて|"
        r"ルール|決まり|サーバー|さーばー|ちゃんねる|ろーる|こまんど|設定|管理者|いべんと|"
        r"^(why|who|where|when)(?![a-z])|"
        r"(?<![a-z])(explain|search|look up|api|app|plugin|install|server|"
        r"channel|rules?|role|mods?|announcements?|nickname)(?![a-z])|"
        r"^what\s+(is|are|does|time)(?![a-z])|how\s+(do|does|did|can|to)(?![a-z])|(do|did)\s+you\s+remember",
    ),
    cue(
        "feeling",
        FEELING,
        regex=r"好き|嫌い|きらい|やだ|いやだ|最高|最悪|気持ちいい|きれい|綺麗|つらい|辛い|うれしい|嬉しい|"
        r"すご(い|かった)|やばかった|かゆい|すぎ|溶け|って感じ|(ね|よね|なー|なぁ|わ)\s*$|[ー〜~]\s*$|"
        r"(?<![a-z])(ugh|love|hate|yay|lol|lmao|haha|so\s+(hot|cold|weird|nice|good|bad|pretty))(?![a-z])|!!",
    ),
    cue(
        "title",
        TITLE,
        regex=r"「|『|映画|曲|歌|あにめ|どらま|からおけ|名作|主題歌|監督|見た|観た|見て|観て|聴|聞きながら|"
        r"(?<![a-z])(movie|song|film|album|listening|watched|seen|directed|sang|sung)(?![a-z])",
    ),
    cue(
        "past",
        PAST,
        regex=r"ちゃった|じゃった|しまった|(?<![a-z])(didn'?t|was|were|has been|have been|lately|"
        r"forgot|slept|broke|went|got|woke|burned|burnt|overslept|missed|snoozed|had)(?![a-z])",
        unless=QUESTION,
    ),
)
