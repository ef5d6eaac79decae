"""Keyword routing: how members ask for reminders and weather, and the chat that only sounds so."""

from __future__ import annotations

import pytest

from bot.handlers.router import CHAT, GENERAL, REMINDER, WEATHER, route
from tests.handlers.routing_corpus import (
    HELD_OUT,
    TOOL_HANDLERS,
    TUNE,
    batches,
    evaluate,
    load_corpus,
)

CORPUS = load_corpus()
# Batches collected before the router learned what they hold (see routing_corpus/README.md).
NOT_LEARNED_YET = {"2-variants"}
PARTS = [
    pytest.param(
        batch,
        split,
        marks=[pytest.mark.xfail(strict=True)] if batch in NOT_LEARNED_YET else [],
        id=f"{batch}-{split}",
    )
    for batch in batches(CORPUS)
    for split in (TUNE, HELD_OUT)
    if any(m.batch == batch and m.split == split for m in CORPUS)
]


def _pick(text: str) -> str:
    return route(text).handler


@pytest.mark.parametrize(("batch", "split"), PARTS)
def test_the_router_sends_at_least_97_percent_of_each_batch_to_the_right_handler(
    batch: str, split: str
) -> None:
    score = evaluate([m for m in CORPUS if m.batch == batch and m.split == split], _pick)
    assert score.accuracy >= 0.97, [(m.text, got) for m, got in score.misses]


def test_the_corpus_is_large_bilingual_near_a_third_traps_with_a_fifth_held_out() -> None:
    assert len(CORPUS) >= 300
    assert {m.lang for m in CORPUS} == {"ja", "en"}
    traps = [m for m in CORPUS if m.group.startswith("trap-")]
    held_out = [m for m in CORPUS if m.split == HELD_OUT]
    assert len(traps) * 100 >= len(CORPUS) * 28
    assert len(held_out) * 5 >= len(CORPUS)


@pytest.mark.parametrize(
    "batch",
    [
        pytest.param(b, marks=[pytest.mark.xfail(strict=True)] if b in NOT_LEARNED_YET else [])
        for b in batches(CORPUS)
    ],
)
def test_almost_no_chat_or_question_in_a_batch_reaches_a_tool_handler(batch: str) -> None:
    calm = [m for m in CORPUS if m.batch == batch and m.handler not in TOOL_HANDLERS]
    score = evaluate(calm, _pick)
    sent_to_tools = [(m.text, got) for m, got in score.misses if got in TOOL_HANDLERS]
    assert len(sent_to_tools) <= len(calm) // 100, sent_to_tools


@pytest.mark.parametrize(
    "text",
    [
        "明後日って曇る？",
        "今夜けっこう冷え込むかな",
        "明日の朝って肌寒い？",
        "週末蒸し暑いかな",
        "明日の朝 路面凍結してる？",
        "明日ってコートいる？",
        "what should i wear on saturday",
        "今日シャツ外に干して乾くかな",
        "will my towels dry outside this afternoon",
    ],
)
def test_weather_asked_without_a_weather_noun_goes_to_the_weather_handler(text: str) -> None:
    assert route(text).handler == WEATHER


@pytest.mark.parametrize(
    "text",
    [
        "明日7時にアラームお願い",
        "5分のタイマーかけといて",
        "set a timer for 4 minutes",
        "土曜18時 同窓会 予定に入れといて",
        "add the vet to my calendar on tuesday at 10",
        "21時に通知して",
        "明後日 燃えるゴミって言って",
        "nudge me at 3 to call the plumber",
        "忘れそうだから日曜に教えて",
        "i'll forget, tell me on monday to renew it",
    ],
)
def test_reminders_asked_with_other_words_go_to_the_reminder_handler(text: str) -> None:
    assert route(text).handler == REMINDER


@pytest.mark.parametrize(
    "text",
    [
        "雨ばっかりでやだなー",
        "寒すぎて布団から出られない",
        "天気の子のサントラ聴いてる",
        "目覚まし鳴る前に起きた",
        "my alarm went off at 4 for no reason",
        "覚えた単語すぐ忘れる",
        "また傘忘れた",
    ],
)
def test_chat_with_a_weather_or_reminder_word_goes_to_chat(text: str) -> None:
    assert route(text).handler == CHAT


@pytest.mark.parametrize(
    "text",
    [
        "ルール覚えてる？",
        "チャンネルの使い分け覚えてる？",
        "お知らせってどのチャンネルで知らせてる？",
        "how do i mute notifications here",
    ],
)
def test_knowledge_questions_with_remember_or_notify_go_to_the_general_handler(
    text: str,
) -> None:
    assert route(text).handler == GENERAL


@pytest.mark.parametrize("text", ["雨", "アラーム", "snow", "予定"])
def test_a_bare_word_without_a_request_or_question_never_reaches_a_tool_handler(
    text: str,
) -> None:
    assert route(text).handler in {CHAT, GENERAL}


def test_the_route_names_the_cues_that_sent_it() -> None:
    assert "tell me at a time" in route("30分後に教えて").rule
    assert route("サーバーのルールは？").rule == "about the server"
    assert route("雨ってなんで降るの").rule == "a knowledge question"
    assert route("雨やだなー").rule == "a feeling"


@pytest.mark.parametrize("text", ["明後日10時に面接", "土曜 引っ越し"])
def test_a_plan_with_a_time_but_no_request_goes_to_general_which_can_still_remind(
    text: str,
) -> None:
    assert route(text).handler == GENERAL
