"""The outline the model reads to pick a page by meaning: every page the scope reads with its
title, tags and section headings, within its size; the nearest pages and the other titles when
the base is larger; never another server's page."""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.outline import Outliner
from bot.runtime.clock import ManualClock
from bot.servers import ServerScope
from tests.knowledge.conftest import remembered_analysis

ONE, TWO = ServerScope.of(111), ServerScope.of(222)
MOCHI = "# 餅つき大会\n\n## 開催日\n\n餅つき大会は毎年十二月の第二土曜日に公園で開きます。\n"
KARAOKE = "# カラオケ部\n\n## 集合場所\n\nカラオケ部は駅前に集まります。\n"


async def test_the_outline_lists_every_page_with_its_title_tags_and_section_headings(
    index: KnowledgeIndex,
) -> None:
    outline = await Outliner(index, 6000).outline("ニックネーム変えたい")

    assert outline.startswith("<knowledge_outline>\n") and outline.endswith("</knowledge_outline>")
    for path in index.visible_paths(ServerScope.DM):
        analysis = index.page(path, ServerScope.DM)
        assert analysis is not None
        assert f"{path}: {analysis.title}" in outline
    assert (
        "faq.md: よくある質問 [faq, 初心者] — サーバーへの参加方法 | ニックネームの変更" in outline
    )
    assert "read_knowledge(page, section)" in outline
    assert len(outline) <= 6000


async def test_the_outline_is_the_same_for_every_question_until_a_file_changes(
    index: KnowledgeIndex, kb_dir: Path
) -> None:
    outliner = Outliner(index, 6000)
    first = await outliner.outline("ニックネーム変えたい")

    assert await outliner.outline("how do I report spam?") == first

    (kb_dir / "mochi.md").write_text(MOCHI, "utf-8")
    await index.refresh()
    changed = await outliner.outline("ニックネーム変えたい")
    assert changed != first and "mochi.md: 餅つき大会 — 開催日" in changed


async def test_a_server_outline_has_its_own_pages_and_never_another_servers(
    index: KnowledgeIndex, kb_dir: Path
) -> None:
    (kb_dir / "servers" / "111").mkdir(parents=True)
    (kb_dir / "servers" / "222").mkdir(parents=True)
    (kb_dir / "servers" / "111" / "mochi.md").write_text(MOCHI, "utf-8")
    (kb_dir / "servers" / "222" / "karaoke.md").write_text(KARAOKE, "utf-8")
    await index.refresh()
    outliner = Outliner(index, 6000)

    one, two = await outliner.outline("何かある？", ONE), await outliner.outline("何かある？", TWO)
    in_dm = await outliner.outline("何かある？")

    assert "servers/111/mochi.md: 餅つき大会" in one and "faq.md: よくある質問" in one
    assert "カラオケ" not in one and "servers/222" not in one
    assert "servers/222/karaoke.md: カラオケ部" in two
    assert "餅つき" not in two and "servers/111" not in two
    assert "servers/" not in in_dm and "faq.md: よくある質問" in in_dm


async def test_a_servers_page_replaces_the_shared_one_of_the_same_path_in_its_outline(
    index: KnowledgeIndex, kb_dir: Path
) -> None:
    (kb_dir / "servers" / "111").mkdir(parents=True)
    (kb_dir / "servers" / "111" / "faq.md").write_text("# うちのFAQ\n\n## 参加\n\n申請制。\n")
    await index.refresh()

    outline = await Outliner(index, 6000).outline("参加したい", ONE)

    assert "servers/111/faq.md: うちのFAQ — 参加" in outline
    assert "\nfaq.md:" not in outline


async def test_a_larger_base_gets_the_nearest_pages_in_full_and_the_other_titles(
    index: KnowledgeIndex,
) -> None:
    whole = await Outliner(index, 6000).outline("x")
    budget = len(whole) - 60

    outline = await Outliner(index, budget).outline("スパムを通報したい")

    assert len(outline) <= budget
    nearest, _, others = outline.partition("Other pages (page: title):\n")
    assert "The pages nearest the question" in nearest
    first_page = nearest.splitlines()[2]
    assert first_page.startswith("moderation.md: ") and " — " in first_page
    listed = {line.split(":")[0] for line in (nearest + others).splitlines() if ".md:" in line}
    left_out = re.search(r"… and (\d+) more pages", others)
    assert len(listed) + (int(left_out.group(1)) if left_out else 0) == len(
        index.visible_paths(ServerScope.DM)
    )


async def test_an_outline_too_small_for_every_title_says_how_many_pages_it_left_out(
    sessions: async_sessionmaker[AsyncSession], clock: ManualClock, tmp_path: Path
) -> None:
    root = tmp_path / "knowledge_base"
    root.mkdir()
    for number in range(60):
        (root / f"page-{number:02d}.md").write_text(
            f"# お知らせ {number}\n\n## 詳細\n\nお知らせ番号 {number} の詳細です。\n", "utf-8"
        )
    index = KnowledgeIndex(root, sessions, clock, analyse=remembered_analysis)
    await index.load()

    outline = await Outliner(index, 1200).outline("お知らせ 7 の詳細")

    assert len(outline) <= 1200
    assert "more pages: search_knowledge finds them." in outline
    assert "page-07.md: お知らせ 7 — 詳細" in outline


async def test_no_outline_when_its_size_is_zero_or_the_base_is_empty(
    index: KnowledgeIndex,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    tmp_path: Path,
) -> None:
    empty_root = tmp_path / "empty"
    empty_root.mkdir()
    empty = KnowledgeIndex(empty_root, sessions, clock)
    await empty.load()

    assert await Outliner(index, 0).outline("ルール") == ""
    assert await Outliner(empty, 6000).outline("ルール") == ""
