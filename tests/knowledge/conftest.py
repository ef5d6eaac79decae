"""Fixtures: a manual clock, a copy of the fixture corpus and its index."""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import ToolContext
from bot.knowledge.analysis import DocumentAnalysis, analyse_document
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.tools import NoteSearch
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
# 09:00 in Tokyo on Sunday 2025-11-30.
NOW = datetime(2025, 11, 30, 0, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def sessions(database: Database) -> async_sessionmaker[AsyncSession]:
    return database.sessions


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A writable copy of the fixture corpus, named like the real folder."""
    target = tmp_path / "knowledge_base"
    shutil.copytree(CORPUS, target)
    return target


@functools.cache
def remembered_analysis(text: str, fallback_title: str) -> DocumentAnalysis:
    # The same fixture files are analysed for every test: janome once per text keeps tests fast.
    return analyse_document(text, fallback_title)


@pytest.fixture
async def index(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> KnowledgeIndex:
    loaded = KnowledgeIndex(kb_dir, sessions, clock, analyse=remembered_analysis)
    await loaded.load()
    return loaded


@pytest.fixture
def settings(kb_dir: Path) -> Settings:
    return Settings(knowledge_base_dir=kb_dir, kb_max_file_bytes=2000)


@dataclass(frozen=True)
class KnowledgeOnly:
    """The part of the bot's dependencies the knowledge tools use: the index, and a notebook
    when the test gives one."""

    knowledge: KnowledgeIndex
    notebook: NoteSearch | None = None


def make_context(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    index: KnowledgeIndex,
) -> ToolContext[KnowledgeOnly]:
    """A ToolContext for a member asking in a guild channel, with the index as its service."""
    return ToolContext(
        user_id=111,
        user_name="hanako",
        guild_id=1,
        channel_id=2,
        clock=clock,
        sessions=sessions,
        settings=settings,
        timezone=ZoneInfo("Asia/Tokyo"),
        deps=KnowledgeOnly(index),
    )


def write_files(root: Path, **files: str) -> Path:
    """Create root holding `name.md` files with the given texts (a test knowledge base)."""
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        (root / f"{name}.md").write_text(text, "utf-8")
    return root
