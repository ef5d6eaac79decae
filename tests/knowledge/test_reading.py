"""Reading a page the model picked from the outline, and searching several phrasings at once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import execute
from bot.knowledge import read_knowledge, search_knowledge
from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from tests.knowledge.conftest import make_context


async def _read(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    guild_id: int = 1,
    **arguments: str,
) -> tuple[bool, object]:
    ctx = replace(make_context(settings, sessions, clock, index), guild_id=guild_id)
    outcome = await execute(read_knowledge, ctx, dict(arguments))
    return outcome.is_error, outcome.output


async def test_a_section_is_read_by_its_heading_with_the_path_to_cite(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    failed, output = await _read(
        index, settings, sessions, clock, page="faq.md", section="ニックネームの変更"
    )

    assert not failed and isinstance(output, dict)
    assert output["source"] == "knowledge_base/faq.md"
    assert output["text"].startswith("## よくある質問 > ニックネームの変更\n")
    assert "サーバープロフィールを編集" in output["text"]
    assert "招待リンク" not in output["text"]
    assert "出典: knowledge_base/faq.md" in output["note"]


async def test_a_page_is_found_by_its_citation_or_title_and_read_whole_without_a_section(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    _, by_citation = await _read(index, settings, sessions, clock, page="knowledge_base/faq.md")
    _, by_title = await _read(index, settings, sessions, clock, page="よくある質問")

    assert isinstance(by_citation, dict) and by_citation == by_title
    assert "招待リンク" in by_citation["text"] and "サーバープロフィール" in by_citation["text"]


async def test_an_unknown_section_is_an_error_naming_the_pages_sections(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    failed, output = await _read(
        index, settings, sessions, clock, page="faq.md", section="存在しない節"
    )

    assert failed
    assert "faq.md has no section '存在しない節'" in str(output)
    assert "ニックネームの変更" in str(output)


async def test_another_servers_page_cannot_be_read(
    index: KnowledgeIndex,
    kb_dir: Path,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    (kb_dir / "servers" / "222").mkdir(parents=True)
    (kb_dir / "servers" / "222" / "secret.md").write_text("# 秘密\n\n## 合言葉\n\nやまかわ\n")
    await index.refresh()

    failed, output = await _read(
        index, settings, sessions, clock, guild_id=111, page="servers/222/secret.md"
    )
    _, own = await _read(index, settings, sessions, clock, guild_id=222, page="secret.md")
    failed_by_title, _ = await _read(index, settings, sessions, clock, guild_id=111, page="秘密")

    assert failed and failed_by_title
    assert "やまかわ" not in str(output)
    assert isinstance(own, dict) and own["source"] == "knowledge_base/servers/222/secret.md"


async def test_other_phrasings_are_searched_with_the_question_and_merged(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    ctx = make_context(settings, sessions, clock, index)

    alone = await execute(search_knowledge, ctx, {"query": "量子コンピュータ"})
    helped = await execute(
        search_knowledge, ctx, {"query": "量子コンピュータ", "also": ["report spam", "スパム"]}
    )

    assert alone.output["results"] == []
    assert helped.output["results"][0]["source"] == "knowledge_base/moderation.md"


async def test_a_weak_match_points_the_model_to_the_outline(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    ctx = make_context(settings, sessions, clock, index)

    weak = await execute(
        search_knowledge, ctx, {"query": "宇宙旅行の量子テレポートと右クリックの歴史"}
    )
    nothing = await execute(search_knowledge, ctx, {"query": "量子コンピュータ"})
    good = await execute(search_knowledge, ctx, {"query": "report spam"})

    assert weak.output["results"]
    assert weak.output["note"].startswith("Nothing matched well")
    assert "<knowledge_outline>" in weak.output["note"] and "read_knowledge" in weak.output["note"]
    assert "<knowledge_outline>" in nothing.output["note"]
    assert good.output["note"].startswith("Cite what you use")


async def test_too_many_phrasings_are_an_error_for_the_model(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    outcome = await execute(
        search_knowledge,
        make_context(settings, sessions, clock, index),
        {"query": "spam", "also": ["a", "b", "c", "d", "e"]},
    )

    assert outcome.is_error and "at most 4" in str(outcome.output)
