"""The message catalog: every sentence in both languages, and how a member's language is read."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from bot.catchup import words as catchup_words
from bot.channels import words as channel_words
from bot.i18n import (
    Text,
    answers,
    commands,
    language_of_locale,
    language_of_text,
    parse_language,
    replies,
)
from bot.i18n import posts as posted

CATALOG: tuple[ModuleType, ...] = (answers, posted, replies, catchup_words, channel_words)
KANA = re.compile(r"[\u3040-\u30ff]")


def _texts() -> list[tuple[str, Text]]:
    named = [
        (f"{module.__name__}.{name}", value)
        for module in CATALOG
        for name, value in vars(module).items()
        if isinstance(value, Text)
    ]
    return named + [(f"slash {text.en!r}", text) for text in commands.SLASH]


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[name for name, _ in _texts()])
def test_every_sentence_has_a_japanese_and_an_english_form_with_the_same_fields(
    name: str, text: Text
) -> None:
    ja_fields, en_fields = text.fields()

    assert ja_fields == en_fields, name
    words = re.sub(r"\{[^}]*\}", "", text.ja)
    japanese = KANA.search(words) or re.search(r"[\u4e00-\u9fff]", words)
    assert japanese or not re.search(r"[A-Za-z]", words), name
    assert not KANA.search(text.en), name
    # Not two languages glued together: 「日本語 / English」.
    assert not re.search(r" ?/ [A-Za-z]", words), name


def test_each_slash_command_text_has_one_japanese_form() -> None:
    english = [text.en for text in commands.SLASH]

    assert len(english) == len(set(english))
    assert all(len(text.ja) <= 100 and len(text.en) <= 100 for text in commands.SLASH)


def test_a_sentence_is_said_in_one_language_with_its_fields_filled() -> None:
    assert answers.TOO_LONG("ja", length=2500, limit=2000) == (
        "メッセージが長すぎます（2500文字）。2000文字以内にしてください。"
    )
    assert answers.TOO_LONG("en", length=2500, limit=2000) == (
        "That message is too long (2500 characters); please keep it under 2000."
    )


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("明日の天気は？", "ja"),
        ("リマインドして", "ja"),
        ("ｱﾗｰﾑ", "ja"),
        ("remind me at 9", "en"),
        ("what's the weather in 東京", "ja"),
        ("Café?", "en"),
    ],
)
def test_the_language_of_a_message_is_japanese_with_any_kana_or_kanji(
    text: str, language: str
) -> None:
    assert language_of_text(text) == language


def test_a_message_without_letters_keeps_the_fallback() -> None:
    assert language_of_text("👍 123", fallback="en") == "en"
    assert language_of_text("👍 123", fallback="ja") == "ja"


@pytest.mark.parametrize(
    ("locale", "language"), [("ja", "ja"), ("en-US", "en"), ("fr", "en"), (None, "en")]
)
def test_a_discord_locale_is_japanese_only_for_ja(locale: str | None, language: str) -> None:
    assert language_of_locale(locale) == language


def test_a_language_setting_is_ja_or_en() -> None:
    assert parse_language(" EN ") == "en"
    with pytest.raises(ValueError, match="ja, en"):
        parse_language("de")


# Where member-facing sentences are written outside the catalog; the one bilingual post (the
# welcome when the bot joins a server, which issue #20 asks for in both languages) is left out.
SOURCES = ("bot/discord_ui", "bot/servers", "bot/knowledge")
BILINGUAL_ON_PURPOSE = frozenset({"bot/discord_ui/welcome.py"})
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
GLUED = re.compile(r"[^\sA-Za-z] ?/ [A-Za-z]")


def _glued(value: str) -> bool:
    """Japanese, then " / " and English, in one literal: 「日本語 / English」."""
    return bool(JAPANESE.search(value) and GLUED.search(value))


def _literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each string literal (an f-string's text pieces joined), docstrings left out."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    pieces = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v for v in node.values if isinstance(v, ast.Constant)]
            pieces.update(id(v) for v in parts)
            yield node.lineno, "{}".join(str(v.value) for v in parts)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings | pieces
        ):
            yield node.lineno, node.value


def test_no_sentence_in_the_discord_layer_or_servers_glues_japanese_and_english() -> None:
    root = Path(__file__).resolve().parents[2]
    glued = [
        f"{path.relative_to(root)}:{line}: {value!r}"
        for folder in SOURCES
        for path in sorted((root / folder).rglob("*.py"))
        if str(path.relative_to(root)) not in BILINGUAL_ON_PURPOSE
        for line, value in _literals(ast.parse(path.read_text("utf-8")))
        if _glued(value)
    ]

    assert glued == []


def test_the_glue_check_finds_a_glued_sentence() -> None:
    source = (
        'TITLE = "このサーバーの設定 / This server\'s settings"\n'
        'x = f"{n}個まで。/ At most {n}."\n'
        'PATH = "フォルダは / で区切ってください。"\n'
        'def f():\n    """承認 / Approve: a docstring."""\n'
    )

    found = [value for _, value in _literals(ast.parse(source)) if _glued(value)]

    assert found == ["個まで。/ At most {}.", "このサーバーの設定 / This server's settings"]
