"""Keyword routing of a mention to a handler: reminder → notes → chat → weather, else general."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.text import katakana_to_hiragana, normalize, tokenize

REMINDER = "reminder"
CHAT = "chat"
WEATHER = "weather"
GENERAL = "general"

# A clock time or a relative offset: what turns "教えて" into "remind me".
_TIME_EXPRESSION = re.compile(
    r"(\d{1,2}\s*[時じ:：]|\d+\s*(分|時間|日|秒)\s*(後|ご)|あとで|後で|"
    r"\b(at|in)\s+\d|\b\d{1,2}\s*(am|pm)\b|tomorrow morning|tonight at)"
)


@dataclass(frozen=True)
class Rule:
    """Words that send a message to a handler.

    lemmas match janome base forms; sequences match consecutive base forms; phrases match
    the normalised text (NFKC, lower case, katakana folded to hiragana); with needs_time the
    rule applies only when the text also holds a clock time or a relative offset.
    """

    route: str
    lemmas: frozenset[str] = frozenset()
    sequences: tuple[tuple[str, ...], ...] = ()
    phrases: tuple[str, ...] = ()
    needs_time: bool = False
    name: str = field(default="", compare=False)


def _fold(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(katakana_to_hiragana(normalize(w)) for w in words)


# Order is precedence: the first rule that matches wins.
RULES: tuple[Rule, ...] = (
    Rule(
        REMINDER,
        lemmas=frozenset({"リマインド", "リマインダー", "覚える", "知らせる", "アラーム"}),
        sequences=(("忘れる", "ない"), ("忘れる", "ぬ")),
        phrases=_fold(
            (
                "リマインド",
                "りまいんど",
                "remind",
                "reminder",
                "don't let me forget",
                "dont let me forget",
                "don't forget",
                "remember to",
                "set an alarm",
                "通知して",
                "予定を登録",
                "起こして",
            )
        ),
        name="reminder words",
    ),
    Rule(
        REMINDER,
        lemmas=frozenset({"教える", "言う", "呼ぶ", "声", "連絡"}),
        phrases=_fold(("tell me", "ping me", "let me know", "notify me")),
        needs_time=True,
        name="tell me + a time",
    ),
    # The notebook's tools live in the general (and chat) handler: "雨の日の集合場所をメモして"
    # must not reach the weather handler, which cannot write notes.
    Rule(
        GENERAL,
        lemmas=frozenset({"メモ", "メモる", "ノート", "備忘録", "書き留める"}),
        phrases=_fold(
            (
                "メモ",
                "めも",
                "memo",
                "note this",
                "note that",
                "note it",
                "note down",
                "take a note",
                "make a note",
                "the notes",
                "our notes",
                "my notes",
                "notebook",
                "write this down",
                "write that down",
                "write it down",
                "jot",
            )
        ),
        name="notebook words",
    ),
    Rule(
        CHAT,
        lemmas=frozenset(
            {
                "暇",
                "雑談",
                "退屈",
                "豆知識",
                "トリビア",
                "おすすめ",
                "オススメ",
                "お勧め",
                "話す",
                "つまらない",
                "眠い",
                "疲れる",
                "癒す",
            }
        ),
        phrases=_fold(
            (
                "ひま",
                "暇",
                "雑談",
                "tips",
                "豆知識",
                "なんか話",
                "何か話",
                "おすすめ",
                "オススメ",
                "bored",
                "chat with me",
                "let's talk",
                "tell me something",
                "fun fact",
                "trivia",
                "recommend",
                "どうでもいい",
            )
        ),
        name="chit-chat words",
    ),
    Rule(
        WEATHER,
        lemmas=frozenset(
            {
                "天気",
                "天候",
                "気温",
                "雨",
                "晴れ",
                "曇り",
                "雪",
                "傘",
                "洗濯",
                "洗濯物",
                "外干し",
                "部屋干し",
                "予報",
                "台風",
                "湿度",
                "降る",
                "暑い",
                "寒い",
                "梅雨",
                "花粉",
                "気圧",
                "雷",
            }
        ),
        phrases=_fold(
            (
                "天気",
                "洗濯",
                "外干し",
                "部屋干し",
                "傘",
                "降水",
                "weather",
                "forecast",
                "rain",
                "umbrella",
                "laundry",
                "temperature",
                "snow",
                "sunny",
                "humid",
                "typhoon",
            )
        ),
        name="weather words",
    ),
)


@dataclass(frozen=True)
class Route:
    """Where a message goes and the rule that sent it there (for logs and tests)."""

    handler: str
    rule: str


def _phrase_in(phrase: str, folded: str) -> bool:
    """Substring match; ASCII phrases must start a word ("rain" is in "rainy", not "train")."""
    if phrase.isascii():
        return re.search(rf"(?<![a-z]){re.escape(phrase)}", folded) is not None
    return phrase in folded


def _has_sequence(lemmas: list[str], sequence: tuple[str, ...]) -> bool:
    size = len(sequence)
    return any(tuple(lemmas[i : i + size]) == sequence for i in range(len(lemmas) - size + 1))


def route(text: str) -> Route:
    """Pick the handler for a mention's text (without the mention itself)."""
    folded = katakana_to_hiragana(normalize(text))
    lemmas = [token.base for token in tokenize(text)]
    lemma_set = set(lemmas) | {katakana_to_hiragana(x) for x in lemmas}
    has_time = bool(_TIME_EXPRESSION.search(folded))
    for rule in RULES:
        if rule.needs_time and not has_time:
            continue
        if (
            (rule.lemmas & lemma_set)
            or any(_has_sequence(lemmas, seq) for seq in rule.sequences)
            or any(_phrase_in(phrase, folded) for phrase in rule.phrases)
        ):
            return Route(rule.route, rule.name)
    return Route(GENERAL, "no keyword")
