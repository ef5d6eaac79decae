"""Vocabulary of the search: words too common to search by, and the groups of words that mean
the same (`vocabulary.md` beside this module, extended by `knowledge_base/vocabulary.md`)."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

# Stop words change what is indexed: bump ANALYZER_VERSION (bot/knowledge/analysis.py) after
# editing them, so cached analyses are redone. Synonym groups apply to questions only and need
# no bump.

# Function words of English questions and texts; they only slow queries down.
_ENGLISH = """
a about after again all also am an and another any are as at be because been before being both
but by can could did do does doing each every few for from further get got had happen has have
he her here him his how i if in into is it its itself just let like me more most much must my
need no nor not now of off on once only or other our out over own please same she should so
some such tell than that the their them then there these they this those to too us very want
was we were what when where which while who whom why will with would you your
anyone someone something anything okay ok
"""
# Verbs and words janome keeps as content words that appear in nearly every Japanese text or
# question (する, ある, 教える, 仕方 …) without saying what it is about, and the question words
# and hedges of casual questions (どう, いつ, 大丈夫, 平気 …): FAQ headings are full of them, so
# they would match every heading rather than the one that answers.
_JAPANESE = """
する ある いる なる できる いう おる くる ない れる られる せる やる みる 教える 知る わかる 分かる
仕方 やり方 方法
どう どうやって どの どれ どこ いつ なに 何 なん なぜ なんで 誰 だれ いくつ いくら
大丈夫 平気 いい 良い よい ok おk 問題 ほしい 欲しい 思う 感じ 的 みたい っぽい
ちゃう しまう くれる もらう あげる いける 行ける 行く ください 下さい 気軽
"""

ENGLISH_STOP_WORDS = frozenset(_ENGLISH.split())
JAPANESE_STOP_WORDS = frozenset(_JAPANESE.split())

# The file an admin adds to the knowledge base to extend the groups (not indexed as knowledge).
VOCABULARY_FILE = "vocabulary.md"

_GROUP_LINE = re.compile(r"^\s*[-*+]\s+(.+)$")
_SEPARATORS = re.compile(r"[,、，;；]")

Group = tuple[str, ...]


def parse_vocabulary(text: str) -> list[Group]:
    """The groups of a vocabulary file: each `- a, b, c` line (other lines are prose)."""
    groups: list[Group] = []
    for line in text.splitlines():
        match = _GROUP_LINE.match(line)
        if match is None:
            continue
        words = tuple(
            dict.fromkeys(w.strip().strip("`") for w in _SEPARATORS.split(match.group(1)))
        )
        words = tuple(w for w in words if w)
        if len(words) >= 2:
            groups.append(words)
    return groups


@cache
def builtin_groups() -> tuple[Group, ...]:
    """The groups shipped with the bot (`bot/search/vocabulary.md`)."""
    text = resources.files("bot.search").joinpath("vocabulary.md").read_text("utf-8")
    return tuple(parse_vocabulary(text))
