"""A mention is analysed once however many readers (router, knowledge, notes, word pool) ask."""

from __future__ import annotations

import pytest

from bot.text import analysis


def test_the_same_short_text_is_analysed_once_and_each_reader_gets_its_own_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = analysis._analyse

    def counting(normalized: str) -> tuple[analysis.Token, ...]:
        calls.append(normalized)
        return real(normalized)

    monkeypatch.setattr(analysis, "_analyse", counting)
    monkeypatch.setattr(analysis, "_remembered", type(analysis._remembered)())

    first = analysis.tokenize("明日の天気は？ test-analysis-once")
    first.clear()
    second = analysis.tokenize("明日の天気は？ TEST-ANALYSIS-ONCE")

    assert len(calls) == 1
    assert [t.base for t in second][:3] == ["明日", "の", "天気"]


def test_long_texts_are_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = analysis._analyse

    def counting(normalized: str) -> tuple[analysis.Token, ...]:
        calls.append(normalized)
        return real(normalized)

    monkeypatch.setattr(analysis, "_analyse", counting)
    long_text = "ナレッジベースの長い文章です。" * 200

    analysis.tokenize(long_text)
    analysis.tokenize(long_text)

    assert len(calls) == 2
