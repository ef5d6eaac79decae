"""Which messages in a listening channel ask Otomo something, in Japanese and English."""

from __future__ import annotations

import pytest

from bot.channels.heuristic import looks_like_a_question


@pytest.mark.parametrize(
    "text",
    [
        "明日の会議って何時からですか",
        "このサーバーのルールを教えて",
        "誰かおすすめのラーメン屋ある？",
        "雨降るかな",
        "資料の場所どこだっけ",
        "リマインドお願いします",
        "Python の環境どうやって作る",
        "おとも、今日の天気は",
        "what time does the event start",
        "Can you summarise the rules",
        "could you remind me later",
        "please explain the server rules",
        "is the meeting still on?",
        "does anyone know where the slides are?",
        "Otomo tell me a joke",
    ],
)
def test_questions_and_requests_are_heard(text: str) -> None:
    assert looks_like_a_question(text)


@pytest.mark.parametrize(
    "text",
    [
        "おはよう",
        "www",
        "え？",
        "今日は疲れたなあ",
        "ラーメン食べてきた",
        "会議の資料はここにある",
        "nice",
        "lol that was great",
        "I went to the park today",
        "see you tomorrow",
    ],
)
def test_chatter_is_not(text: str) -> None:
    assert not looks_like_a_question(text)


def test_the_bots_display_name_counts_as_addressing_it() -> None:
    assert looks_like_a_question("ねえ ボットくん 元気", names=["ボットくん"])
    assert not looks_like_a_question("ねえ 元気", names=["ボットくん"])
