"""Topic words in chat messages: janome nouns, minus stop words, numbers, links and markup."""

from __future__ import annotations

import re

from bot.text.analysis import Token, tokenize

MIN_WORD_CHARS = 2
MAX_WORD_CHARS = 32
MAX_COMPOUND_PARTS = 3  # 機械+学習 → 機械学習, but not a whole sentence of nouns


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words too common or too vague to be a topic: pronouns and formal nouns (これ, こと, もの),
# people and time words (人, 今日, 最近), fillers, verdicts and laughter (感じ, 最高, 笑, 草),
# and the bot itself.
STOP_WORDS_JA = _word_set(
    """
    これ それ あれ どれ ここ そこ あそこ どこ こっち そっち あっち どっち こちら そちら
    こと もの 物 事 人 方 時 とき ところ 所 ため 為 よう 様 そう わけ はず つもり
    今日 明日 昨日 今 今回 今度 前 後 中 上 下 外 内 間 次 最近 毎日 一番 以上 以下 時間
    件 度 回 点 順 側 系 感 分 日 年 月曜 火曜 水曜 木曜 金曜 土曜 日曜
    感じ 気 自分 みんな 皆 皆さん 何 なに 誰 他 ほか 本当 ほんと 普通 全部 意味 場合 部分
    大丈夫 お願い 話 質問 了解 最高 最強 最悪 無理 微妙 笑 草 さん くん ちゃん 的 おとも お供
    """
)
STOP_WORDS_EN = _word_set(
    """
    a an the and or but if then than so to of in on at by for with from into about as
    is are was were be been being am do does did done have has had having
    i me my mine you your yours he him his she her it its we us our they them their
    this that these those there here what which who whom whose when where why how
    all any some no not yes yeah yep nope ok okay just like really very too also only
    can could will would shall should may might must get got go going gone make made
    know think want need lol lmao omg thanks thank please hi hello hey bye
    good great nice sure well now today tomorrow yesterday time thing things
    something anything nothing everything one two https http www com otomo bot
    """
)

# Discord markup and things that are not words: removed before tokenizing.
_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE)
# <@123> <@!123> <@&123> <#123> <:name:123> <a:name:123> <t:1700000000:R> </command:123>
_DISCORD_TAG = re.compile(r"<(?:@[!&]?\d+|#\d+|a?:\w+:\d+|t:-?\d+(?::\w)?|/[\w -]+:\d+)>")
_SHORTCODE = re.compile(r":[a-z0-9_+-]+:", re.IGNORECASE)
_ASCII_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z0-9]+)*")
_LAUGH = re.compile(r"w+")

# Noun kinds that name things. Left out: 代名詞, 数, 非自立, 接尾, 副詞可能 (今日, 最近) and
# 形容動詞語幹 (好き, 大変, 綺麗), which describe rather than name.
_TOPIC_NOUNS = ("一般", "固有名詞", "サ変接続")


def strip_markup(text: str) -> str:
    """The message without code, links, mentions, channel links, custom or :short: emoji."""
    for pattern in (_CODE_BLOCK, _INLINE_CODE, _URL, _DISCORD_TAG, _SHORTCODE):
        text = pattern.sub(" ", text)
    return text


def _is_kanji(word: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in word)


def _is_topic_noun(token: Token) -> bool:
    # People's names would turn members into tip topics: never collect them.
    return (
        token.pos == "名詞"
        and token.pos_detail.startswith(_TOPIC_NOUNS)
        and not token.pos_detail.startswith("固有名詞,人名")
    )


def _acceptable(word: str) -> bool:
    # A lone kanji noun is a real topic (猫, 海, 月); a lone kana or letter never is.
    if len(word) > MAX_WORD_CHARS or (len(word) < MIN_WORD_CHARS and not _is_kanji(word)):
        return False
    if word in STOP_WORDS_JA or word in STOP_WORDS_EN or word.isdigit():
        return False
    if word.isascii():
        return bool(_ASCII_WORD.fullmatch(word)) and len(word) >= 3 and not _LAUGH.fullmatch(word)
    # Symbols and emoji are not alphanumeric; the long-vowel mark ー counts as a letter.
    return all(ch.isalnum() for ch in word)


def extract_words(text: str) -> list[str]:
    """Distinct topic words of a message in order of appearance, compound nouns joined."""
    words: list[str] = []
    run: list[str] = []

    def add(word: str) -> None:
        if _acceptable(word) and word not in words:
            words.append(word)

    def close_run() -> None:
        if run:
            add("".join(run))
            run.clear()

    for token in tokenize(strip_markup(text)):
        word = token.surface
        if not _is_topic_noun(token) or word in STOP_WORDS_JA:
            close_run()
        elif word.isascii():
            # janome reads every ASCII run as a proper noun; never glue it to Japanese.
            close_run()
            add(word)
        else:
            if len(run) == MAX_COMPOUND_PARTS:
                close_run()
            run.append(word)
    close_run()
    return words


# Words that ask for a tip or for company rather than name what the tip should be about.
_NOT_A_TOPIC = _word_set(
    """
    暇 退屈 雑談 雑学 豆知識 トリビア tips tip ネタ 話題 おすすめ オススメ
    tell give share say talk chat love hate fun fact facts trivia random joke story bored
    interesting cool please
    """
)


def mention_topic(text: str) -> str | None:
    """What a chat mention is about: its first topic word that is not "tips" or "暇", if any."""
    for word in extract_words(text):
        if word not in _NOT_A_TOPIC:
            return word
    return None
