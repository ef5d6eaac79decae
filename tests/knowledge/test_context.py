"""Knowledge-base excerpts for the system prompt, and the citation instructions."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.feature import context_for, knowledge_instructions
from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from tests.knowledge.conftest import CORPUS


async def test_context_holds_the_best_section_with_its_citation(index: KnowledgeIndex) -> None:
    block = await context_for(index, "サーバーに入るには？", budget_chars=1500)

    assert block.startswith(
        "<knowledge>\n[1] knowledge_base/faq.md — よくある質問 > サーバーへの参加方法"
    )
    assert "招待リンク" in block
    assert "出典: knowledge_base/faq.md" in block
    assert block.endswith("</knowledge>")


async def test_context_never_exceeds_its_budget(index: KnowledgeIndex) -> None:
    for budget in (150, 200, 300, 600, 1500):
        block = await context_for(index, "サーバーのルールと参加方法", budget_chars=budget)
        assert len(block) <= budget
    question = "how do I report spam"
    full = await context_for(index, question, budget_chars=1500, threshold=0.5)  # one section
    cut = await context_for(index, question, budget_chars=len(full) - 40, threshold=0.5)
    assert len(cut) <= len(full) - 40
    assert "…\n出典: knowledge_base/moderation.md" in cut


async def test_no_context_for_an_unrelated_question_or_a_zero_budget(index: KnowledgeIndex) -> None:
    assert await context_for(index, "量子コンピュータの仕組み", budget_chars=1500) == ""
    assert await context_for(index, "暇だなー", budget_chars=1500) == ""
    assert await context_for(index, "サーバーに入るには？", budget_chars=0) == ""


async def test_a_weak_match_is_left_out_by_the_threshold(index: KnowledgeIndex) -> None:
    question = "サーバーで使える絵文字の種類と値段"  # shares only サーバー with the files

    assert index.search(question, 1)  # something matches a little
    assert await context_for(index, question, budget_chars=1500) == ""
    assert await context_for(index, question, budget_chars=1500, threshold=0.0) != ""


def test_instructions_ask_for_citations_and_mention_web_search_only_when_offered() -> None:
    with_web = knowledge_instructions(web_search_available=True)
    without = knowledge_instructions()

    assert "出典: knowledge_base/faq.md" in without
    assert "search_knowledge" in without
    assert "web_search" in with_web and "web_search" not in without


async def test_a_knowledge_base_of_one_file_still_puts_its_match_in_the_prompt(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    # Words every section shares score little here, and synonyms the file never uses
    # (規約, rule…) must not count against the match: it is the best this file can do.
    root = tmp_path / "only" / "knowledge_base"
    root.mkdir(parents=True)
    shutil.copy(CORPUS / "rules.md", root / "rules.md")
    single = KnowledgeIndex(root, sessions, clock)
    await single.load()

    block = await context_for(single, "サーバーのルールは？", budget_chars=1500)

    assert "出典: knowledge_base/rules.md" in block
    assert await context_for(single, "量子コンピュータの仕組み", budget_chars=1500) == ""
