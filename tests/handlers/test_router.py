"""Keyword routing: reminder → chat → weather, else general, in Japanese and English."""

from __future__ import annotations

import pytest

from bot.handlers.router import CHAT, GENERAL, REMINDER, WEATHER, route

CASES = [
    # reminders, including inflected and colloquial forms
    ("明日の9時に歯医者ってリマインドして", REMINDER),
    ("覚えといて、明日ゴミ出し", REMINDER),
    ("明日の会議のこと覚えておいて", REMINDER),
    ("忘れないで！牛乳買う", REMINDER),
    ("忘れないように言って、金曜の10時に", REMINDER),
    ("30分後に教えて", REMINDER),
    ("9時に起こして", REMINDER),
    ("15:30に声かけて", REMINDER),
    ("リマインド一覧見せて", REMINDER),
    ("ﾘﾏｲﾝﾄﾞして", REMINDER),
    ("remind me to call mom at 9", REMINDER),
    ("Don't let me forget the meeting tomorrow", REMINDER),
    ("ping me in 20 minutes", REMINDER),
    # chit-chat, including traps with weather words
    ("暇だなー", CHAT),
    ("ひまー何か話そう", CHAT),
    ("雨の日におすすめの映画", CHAT),
    ("どうでもいいTips教えて", CHAT),
    ("I'm so bored", CHAT),
    ("tell me a fun fact", CHAT),
    # weather
    ("明日の天気教えて", WEATHER),
    ("傘いる？", WEATHER),
    ("明日洗濯できる？", WEATHER),
    ("外干しできそう？", WEATHER),
    ("今日は寒いね", WEATHER),
    ("東京の気温は", WEATHER),
    ("週末は雪降るかな", WEATHER),
    ("Is it going to rain tomorrow?", WEATHER),
    ("weather in Osaka", WEATHER),
    ("ＵＭＢＲＥＬＬＡ needed?", WEATHER),
    # everything else
    ("サーバーのルールは？", GENERAL),
    ("how do I join the server", GENERAL),
    ("昨日の会議の内容忘れた", GENERAL),
    ("I missed my train", GENERAL),
    ("明日は何の日？", GENERAL),
]


@pytest.mark.parametrize(("text", "handler"), CASES)
def test_phrase_routes_to_its_handler(text: str, handler: str) -> None:
    assert route(text).handler == handler


def test_the_route_names_the_rule_that_matched() -> None:
    assert route("30分後に教えて").rule == "tell me + a time"
    assert route("サーバーのルールは？").rule == "no keyword"
