"""Keyword routing: how members ask for reminders and weather, and the chat that only sounds so."""

from __future__ import annotations

import pytest

from bot.app.features import route
from bot.chat.handler import CHAT
from bot.handlers.router import GENERAL
from bot.handlers.typos import correct
from bot.reminders.handler import REMINDER
from bot.text.analysis import normalize
from bot.weather.handler import WEATHER
from tests.handlers.routing_corpus import (
    HELD_OUT,
    TOOL_HANDLERS,
    TUNE,
    batches,
    evaluate,
    load_corpus,
)

CORPUS = load_corpus()
TARGET = 0.97
# Held-out parts written before the router learned what they hold, and measured below the
# target after it did: each is kept from falling below what it reached (see bench/routing.py).
# Batch 3, written after the last change by a hand that never saw the router, reached 92.7 %:
# below the 97 % target, which the router does not meet yet on new mentions.
BELOW_TARGET = {("2-variants", HELD_OUT): 0.93, ("3-after", HELD_OUT): 0.92}
PARTS = [
    pytest.param(batch, split, id=f"{batch}-{split}")
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
    floor = BELOW_TARGET.get((batch, split), TARGET)
    assert score.accuracy >= floor, [(m.text, got) for m, got in score.misses]


def test_the_corpus_is_large_bilingual_near_a_third_traps_with_a_fifth_held_out() -> None:
    assert len(CORPUS) >= 300
    assert {m.lang for m in CORPUS} == {"ja", "en"}
    traps = [m for m in CORPUS if m.group.startswith("trap-")]
    held_out = [m for m in CORPUS if m.split == HELD_OUT]
    assert len(traps) * 100 >= len(CORPUS) * 28
    assert len(held_out) * 5 >= len(CORPUS)


# Chat and questions a batch sends to a tool handler: at most 1 %, but for the held-out traps
# of batch 2 (4 of 98 measured after the router learned its tuning part) and batch 3 (2 of 152).
CALM_SENT_TO_TOOLS = {"2-variants": 4, "3-after": 2}


@pytest.mark.parametrize("batch", batches(CORPUS))
def test_almost_no_chat_or_question_in_a_batch_reaches_a_tool_handler(batch: str) -> None:
    calm = [m for m in CORPUS if m.batch == batch and m.handler not in TOOL_HANDLERS]
    score = evaluate(calm, _pick)
    sent_to_tools = [(m.text, got) for m, got in score.misses if got in TOOL_HANDLERS]
    allowed = CALM_SENT_TO_TOOLS.get(batch, len(calm) // 100)
    assert len(sent_to_tools) <= allowed, sent_to_tools


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


@pytest.mark.parametrize(
    "text",
    [
        "明日の8時に薬のこと言うといてくれへん",
        "夜9時にお薬の時間って教えたってや",
        "20時になったら風呂沸かすって知らせてけろ",
        "明日11時に美容院っての、よろしゅう",
        "金曜に燃えないゴミって言うの頼んだ",
        "リメインドして 明日9時",
        "3分のタイマ頼む",
        "rmeind me in 2 hours to stretch",
        "明日は6時起きやから起こしてな",
        "朝5時にモーニングコールよろ",
        "get me up at 5:30 tomorrow, big day",
        "give me a shout at 8",
        "bug me in 15 min to check the rice",
    ],
)
def test_regional_forms_typos_wake_up_calls_and_shouts_go_to_the_reminder_handler(
    text: str,
) -> None:
    assert route(text).handler == REMINDER


@pytest.mark.parametrize(
    "text",
    [
        "タイマーまだ？",
        "アラーム何時にしてたっけ？",
        "さっきのタイマーキャンセルで",
        "what time is my reminder tomorrow",
        "snooze that for 10 minutes",
        "クリスマスイブの夜に教えて ケーキ取りに行く",
        "お盆明けに歯医者って言って",
        "the night before the exam tell me to sleep early",
        "two days before my exam tell me to stop gaming",
    ],
)
def test_timers_running_and_days_named_by_a_holiday_reach_the_reminder_handler(
    text: str,
) -> None:
    assert route(text).handler == REMINDER


@pytest.mark.parametrize(
    "text",
    [
        "明日って最高気温何度くらいなん",
        "how cold is it going to get tonight",
        "今日じめっとしてる？",
        "関東の梅雨入りまだなん？",
        "has tsuyu ended in kyushu",
        "明日雨予報って聞いたけど、ほんまに降る？",
        "is it true there's a typhoon coming friday",
        "日曜の試合、天気大丈夫かな",
        "駅から歩いて帰るんだけど傘いるかな",
        "今夜鉢植え中に入れたほうがええ？",
        "will my plants be ok outside tonight",
        "can i bike to work today",
        "今日ランニング日和？",
    ],
)
def test_weather_asked_by_highs_humidity_season_hearsay_or_an_outdoor_plan_goes_to_weather(
    text: str,
) -> None:
    assert route(text).handler == WEATHER


@pytest.mark.parametrize(
    "text",
    [
        "明日から雨続くらしいな",
        "台風来るってよ、みんな気をつけてな",
        "天気の話ばっかでごめん",
        "週末晴れたら出かけよかな",
        "天気ええし洗濯しよ",
        "雨の日って何してる？",
        "洗濯って毎日する派？",
        "リマインドって便利よな",
        "リマインダー10個くらい入れてるけど全部無視しとる",
        "明日起こしてくれる人募集",
        "傘いる？って聞いたら母がいらんって言うた",
        "friendly reminder that tomorrow is friday",
        "i keep snoozing my reminders",
        "is it just me or is it really cold today",
    ],
)
def test_chat_that_names_weather_laundry_or_reminding_without_asking_stays_chat(
    text: str,
) -> None:
    assert route(text).handler == CHAT


def test_a_tool_handler_that_scored_without_winning_is_offered_as_the_runner_up() -> None:
    mixed = route("眠いー 明日6時に起こしてー")  # small talk and a feeling outweigh 起こして

    assert (mixed.handler, mixed.also, mixed.name) == (CHAT, REMINDER, "chat+reminder")
    assert route("明日の天気は？").also is None
    assert route("暇だなー").also is None


def test_the_general_handler_never_takes_a_runner_up_since_it_offers_every_tool() -> None:
    asked = route("リマインダーって何個まで登録できるん？")

    assert (asked.handler, asked.also, asked.name) == (GENERAL, None, GENERAL)


@pytest.mark.parametrize(
    ("typed", "read_as"),
    [
        ("set a remider for 5pm", "set a reminder for 5pm"),
        ("remnid me at 6", "remind me at 6"),
        ("wether tmrw", "weather tmrw"),
        ("明日6時にアラ－ムかけて", "明日6時にアラームかけて"),
        ("5分後にタイマ", "5分後にタイマー"),
        ("how many times", "how many times"),
        ("rewind it", "rewind it"),
        ("タイムを測って", "タイムを測って"),
    ],
)
def test_a_cue_word_typed_one_edit_off_reads_as_the_cue_word_and_real_words_stay(
    typed: str, read_as: str
) -> None:
    assert correct(normalize(typed)) == read_as


@pytest.mark.parametrize(
    "text",
    [
        "明日の9時にあいつに電話するって教えてくれっか",
        "20時にドラマ始まるけん知らせてくれんね",
        "明日昼に歯医者さん行くって教えてたもれ",
        "明日の12時に振込せんといけんけぇ教えてくれん？",
        "1時間後にピン飛ばして",
        "5分後にタイマー",
    ],
)
def test_regional_request_forms_reach_the_reminder_handler(text: str) -> None:
    assert route(text).handler == REMINDER


@pytest.mark.parametrize(
    "text",
    ["明日雨降るべか", "あした雪降るんけ", "明日ぬくいんかな", "今夜しばれるかい？", "寒かと？"],
)
def test_regional_weather_questions_reach_the_weather_handler(text: str) -> None:
    assert route(text).handler == WEATHER


@pytest.mark.parametrize(
    "text",
    [
        "my mom reminds me every morning at 7 to eat breakfast lol",
        "the app keeps reminding me to drink water at 3pm",
        "tomorrow my alarm is gonna ring at 5 and I'm gonna cry",
        "ugh don't remind me, exams start next week",
        "remind me never to eat that again lmao",
        "毎朝7時に母さんが起こしてくれるんよ",
        "明日リマインドされても多分無視するわ",
        "明日のこと思い出させないで…",
    ],
)
def test_reminders_told_about_or_waved_away_stay_chat(text: str) -> None:
    assert route(text).handler == CHAT


@pytest.mark.parametrize("text", ["札幌 明日", "あしたの東京どんな感じ？", "大阪は明日どう？"])
def test_a_place_and_a_day_alone_ask_the_forecast(text: str) -> None:
    assert route(text).handler == WEATHER


@pytest.mark.parametrize("text", ["明日大阪でライブ", "東京駅ってどこ？", "京都また行きたいなー"])
def test_a_place_in_a_plan_or_a_question_is_no_forecast_asked(text: str) -> None:
    assert route(text).handler != WEATHER


@pytest.mark.parametrize(
    "text",
    [
        "台風の日ってなんかワクワクせん？",
        "do you like rain or snow better",
        "what's your favourite kind of weather?",
        "rain tomorrow? guess I'm staying in with games",
        "明日も35度とか死ぬ",
    ],
)
def test_opinions_and_complaints_about_the_weather_stay_chat(text: str) -> None:
    assert route(text).handler == CHAT


@pytest.mark.parametrize(
    "text",
    [
        "湿度って何パーセントが快適？",
        "洗濯物を早く乾かすコツある？",
        "how is a typhoon different from a hurricane",
        "what's a good way to dry laundry indoors",
    ],
)
def test_know_how_about_weather_and_laundry_goes_to_the_general_handler(text: str) -> None:
    assert route(text).handler == GENERAL


@pytest.mark.parametrize(
    ("text", "handler"),
    [
        ("any chance of a thunderstorm this afternoon", WEATHER),
        ("明日の朝の冷え込みどう？", WEATHER),
        ("明日暖房いるかな", WEATHER),
        ("今日自転車で帰れそう？", WEATHER),
        ("さっきのアラーム何時やった？", REMINDER),
        ("晴れてたから布団干したらふかふか", CHAT),
        ("what's the best umbrella brand", GENERAL),
        ("should I take a brolly today", WEATHER),
        ("will it be nice tomorrow", WEATHER),
        ("will it freeze overnight", WEATHER),
        ("lemme know when it's 6", REMINDER),
        ("今日の夜8時にゲームのイベントあるから教えて", REMINDER),
        ("明日晴れたら布団干そうかな", CHAT),
        ("梅雨明けまだかなーって毎日言ってる", CHAT),
        ("明日台風やのに出勤とかありえへん", CHAT),
        ("乾燥機でダウン乾かしていい？", GENERAL),
        ("台風の番号ってどう決まる？", GENERAL),
        ("今日って乾燥注意報出てる？", WEATHER),
    ],
)
def test_more_ways_of_asking_and_telling_reach_their_handler(text: str, handler: str) -> None:
    assert route(text).handler == handler


@pytest.mark.parametrize(
    "text",
    [
        "明日の朝7時に起こしとくれやす",
        "6時に起こせ",
        "plz wake me up at 7",
        "3時に会議って教えとくれ",
        "明日9時に電話するって言うちょって",
        "今セットされてるアラーム教えて",
        "5分のタイマーもう終わった？",
    ],
)
def test_the_tell_and_wake_verbs_reach_the_reminder_handler_in_any_request_ending(
    text: str,
) -> None:
    assert route(text).handler == REMINDER


@pytest.mark.parametrize(
    "text", ["母さんに6時に起こせって言われた", "アラーム終わったと思ったらまた鳴った"]
)
def test_the_same_verbs_in_a_story_stay_chat(text: str) -> None:
    assert route(text).handler == CHAT
