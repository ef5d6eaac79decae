"""Topic words are the nouns of a message, without stop words, markup, numbers or names."""

from __future__ import annotations

import pytest

from bot.chat.words import STOP_WORDS_EN, STOP_WORDS_JA, extract_words, mention_topic, strip_markup


def test_japanese_nouns_are_extracted_with_compounds_joined() -> None:
    words = extract_words("今日は機械学習の勉強会で東京タワーに行った")
    assert words == ["機械学習", "勉強", "東京タワー"]


def test_stop_words_pronouns_and_time_words_are_dropped() -> None:
    assert extract_words("これはそれです。こと、もの、人、時、今日、最近") == []
    assert {"これ", "それ", "こと", "もの", "人", "時", "今日"} <= STOP_WORDS_JA


def test_english_words_are_kept_without_stop_words() -> None:
    words = extract_words("I love the new Python release and the coffee here")
    assert words == ["love", "new", "python", "release", "coffee"]
    assert {"the", "and", "here"} <= STOP_WORDS_EN


def test_mentions_channels_custom_emoji_and_links_are_not_words() -> None:
    text = (
        "<@123456789> <@!42> <@&77> <#987654321> <:pepe:112233> <a:dance:445566> <t:1700000000:R> "
        "https://example.com/ramen www.example.org :smile: ラーメン"
    )
    assert extract_words(text) == ["ラーメン"]


def test_code_blocks_and_inline_code_are_ignored() -> None:
    text = "```python\nprint('カレー')\nfor item in items: pass\n```\n`うどん` よりそば"
    assert extract_words(text) == ["そば"]


def test_an_unclosed_code_block_hides_the_rest() -> None:
    assert extract_words("猫の話 ```\nimport antigravity") == ["猫"]


def test_numbers_single_characters_emoji_and_laughter_are_dropped() -> None:
    assert extract_words("2025年に100円のアイス🍦を3個 www 草 ｗｗ") == ["アイス"]


def test_peoples_names_are_never_collected() -> None:
    assert extract_words("田中さんと山田太郎が渋谷でラーメンを食べた") == ["渋谷", "ラーメン"]


def test_each_word_counts_once_per_message() -> None:
    assert extract_words("ラーメン、ラーメン、ラーメン!") == ["ラーメン"]


def test_full_width_text_is_normalised() -> None:
    assert extract_words("ＰＹＴＨＯＮの本") == ["python", "本"]


def test_strip_markup_leaves_plain_text() -> None:
    assert strip_markup("見て <@1> https://x.y/z `code`").split() == ["見て"]


def test_a_lone_kanji_noun_is_a_topic_but_a_lone_kana_or_letter_is_not() -> None:
    assert extract_words("海に行きたい") == ["海"]
    assert extract_words("x と y と ネ") == []


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("暇だから猫の話して", "猫"),
        ("猫のどうでもいいTips教えて", "猫"),
        ("tell me a fun fact about octopuses", "octopuses"),
        ("富士山って何メートルだっけ", "富士山"),
        ("暇だなー", None),
        ("なんか豆知識ちょうだい", None),
    ],
)
def test_the_mentions_topic_is_its_first_word_that_is_not_a_request_for_a_tip(
    text: str, topic: str | None
) -> None:
    assert mention_topic(text) == topic
