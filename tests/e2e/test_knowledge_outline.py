"""The knowledge base's outline and the read tool end to end: the model receives the outline of
the pages its server reads, picks a page by meaning, reads the section with read_knowledge and
cites it; another server's pages never appear."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.e2e.harness import running_bot
from tests.fakes.discord_server import (
    GUILD_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SORA_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ChatRequest, ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

SUPPORT = """---
title: サーバーの支援
tags: [寄付]
---
# サーバーの支援

## 支援のしかた

Ko-fi のページから、1 回 300 円から支援できます。支援者には専用ロールが付きます。

## 使いみち

集まったお金はボットのサーバー代に使います。
"""
MOCHI = "# 餅つき大会\n\n## 開催日\n\n餅つき大会は毎年十二月の第二土曜日に公園で開きます。\n"
KARAOKE = "# カラオケ部\n\n## 集合場所\n\nカラオケ部は駅前に集まります。\n"


def _knowledge_base(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge_base"
    (root / "servers" / str(GUILD_ID)).mkdir(parents=True)
    (root / "servers" / str(SECOND_GUILD_ID)).mkdir(parents=True)
    (root / "support.md").write_text(SUPPORT, "utf-8")
    (root / "servers" / str(GUILD_ID) / "mochi.md").write_text(MOCHI, "utf-8")
    (root / "servers" / str(SECOND_GUILD_ID) / "karaoke.md").write_text(KARAOKE, "utf-8")
    return root


def _system(request: ChatRequest) -> str:
    return str(request.messages_with_role("system")[0]["content"])


def _outline(request: ChatRequest) -> str:
    prompt = _system(request)
    start = prompt.index("<knowledge_outline>")
    return prompt[start : prompt.index("</knowledge_outline>", start)]


async def test_the_model_picks_a_page_from_the_outline_reads_its_section_and_cites_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    _knowledge_base(tmp_path)
    llm.queue(
        tool_call("read_knowledge", {"page": "support.md", "section": "支援のしかた"}),
        text("Ko-fi から 300 円で支援できます。\n\n出典: knowledge_base/support.md"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 10)
        # No word of the question is on the page: the outline is how the model finds it.
        _, replies = await otomo.ask("運営さんにコーヒーおごれる？")

    first, second = llm.requests
    outline = _outline(first)
    assert "support.md: サーバーの支援 [寄付] — 支援のしかた | 使いみち" in outline
    assert f"servers/{GUILD_ID}/mochi.md: 餅つき大会 — 開催日" in outline
    assert "karaoke" not in outline and "カラオケ" not in _system(first)
    assert {"search_knowledge", "read_knowledge"} <= set(first.tool_names)
    result = json.loads(second.messages_with_role("tool")[-1]["content"])
    read = result.get("output", result)
    assert read["source"] == "knowledge_base/support.md"
    assert "1 回 300 円から支援できます" in read["text"] and "サーバー代" not in read["text"]
    assert replies[-1]["content"].endswith("出典: knowledge_base/support.md")
    # A read is no approval: no card asked anyone anything.
    assert not any(message.get("components") for message in replies)


async def test_each_server_gets_the_outline_of_the_shared_pages_and_its_own_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    _knowledge_base(tmp_path)
    llm.rule = lambda request: text("はい。")
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 10)
        await otomo.ask("何かイベントある？")
        first = _outline(llm.last_request)
        await otomo.ask("何かイベントある？", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        second = _outline(llm.last_request)

    assert "support.md: サーバーの支援" in first and "support.md: サーバーの支援" in second
    assert "餅つき大会" in first and "餅つき大会" not in second
    assert "カラオケ部" in second and "カラオケ部" not in first
    assert str(SECOND_GUILD_ID) not in first and str(GUILD_ID) not in second


async def test_a_page_of_another_server_cannot_be_read_even_when_the_model_names_it(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    _knowledge_base(tmp_path)
    llm.queue(
        tool_call("read_knowledge", {"page": f"servers/{GUILD_ID}/mochi.md"}),
        text("わかりません。"),
    )
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 10)
        await otomo.ask("餅つき大会いつ？", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)

    tool_result = llm.last_request.messages_with_role("tool")[-1]["content"]
    assert "There is no page" in tool_result
    assert "第二土曜日" not in tool_result
