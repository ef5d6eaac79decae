"""The persona comes from settings, then knowledge_base/persona.md, then the built-in one."""

from __future__ import annotations

from pathlib import Path

from bot.chat.feature import chat_context, chat_instructions
from bot.chat.persona import DEFAULT_PERSONA, MAX_PERSONA_CHARS, persona_text
from bot.settings import Settings


def test_the_persona_setting_wins(tmp_path: Path) -> None:
    (tmp_path / "persona.md").write_text("ファイルの人格", encoding="utf-8")
    settings = Settings(persona="  元気な柴犬として話す  ", knowledge_base_dir=tmp_path)
    assert persona_text(settings) == "元気な柴犬として話す"


def test_persona_md_is_used_without_its_front_matter(tmp_path: Path) -> None:
    (tmp_path / "persona.md").write_text(
        "---\ntitle: persona\ntags: [bot]\n---\n関西弁で話す陽気な猫。\n", encoding="utf-8"
    )
    assert persona_text(Settings(), kb_dir=tmp_path) == "関西弁で話す陽気な猫。"


def test_an_edit_to_persona_md_applies_at_once(tmp_path: Path) -> None:
    settings = Settings(knowledge_base_dir=tmp_path)
    path = tmp_path / "persona.md"
    path.write_text("一つ目", encoding="utf-8")
    assert persona_text(settings) == "一つ目"
    path.write_text("二つ目", encoding="utf-8")
    assert persona_text(settings) == "二つ目"


def test_without_setting_or_file_the_built_in_persona_is_playful_and_japanese_first(
    tmp_path: Path,
) -> None:
    text = persona_text(Settings(knowledge_base_dir=tmp_path))
    assert text == DEFAULT_PERSONA
    assert "おちゃめ" in text and "短く" in text and "英語" in text


def test_an_empty_or_huge_persona_file_is_handled(tmp_path: Path) -> None:
    path = tmp_path / "persona.md"
    path.write_text("---\ntitle: x\n---\n\n", encoding="utf-8")
    assert persona_text(Settings(), kb_dir=tmp_path) == DEFAULT_PERSONA
    path.write_text("猫" * (MAX_PERSONA_CHARS + 50), encoding="utf-8")
    assert len(persona_text(Settings(), kb_dir=tmp_path)) == MAX_PERSONA_CHARS


def test_chat_instructions_carry_the_persona_and_the_tips_habit_but_no_topics() -> None:
    text = chat_instructions("陽気な猫")
    assert text.startswith("陽気な猫")
    assert "どうでもいいTips" in text
    # Topics change with every message: they come with the context, after the history.
    assert "最近よく出る言葉:" not in text and "おすすめの題材:" not in text


def test_chat_context_carries_the_topics_and_the_tips_topic() -> None:
    text = chat_context(topics=["ラーメン", "サウナ"], tip_topic="サウナ")
    assert "「ラーメン」、「サウナ」" in text
    assert "おすすめの題材: 「サウナ」" in text
    assert "この発言の話題" not in text


def test_chat_context_without_topics_says_nothing_about_them() -> None:
    assert chat_context() == ""


def test_a_tip_follows_the_mentions_topic_with_the_pool_topic_as_fallback() -> None:
    instructions = chat_instructions("陽気な猫")
    text = chat_context(topics=["サウナ"], tip_topic="サウナ", mention_topic="富士山")
    assert "この発言の話題: 「富士山」" in text and "おすすめの題材: 「サウナ」" in text
    # The instructions, the same for every message, say which comes first.
    assert "「この発言の話題」についての豆知識" in instructions
    assert "思いつかなければ「おすすめの題材」の豆知識" in instructions
