"""Which KnowledgeIndex serves a tool call: the one the composition root registered.

ToolContext carries settings, sessions and clock but no services, so knowledge tools find the
running index by its directory here. Without a registered index (console mode, a test) the
first call builds and loads one from the context, so the tools work without wiring.
"""

from __future__ import annotations

from pathlib import Path

from bot.agent.tools import ToolContext
from bot.knowledge.index import KnowledgeIndex

_indexes: dict[Path, KnowledgeIndex] = {}


def _key(root: Path) -> Path:
    return root.resolve()


def register_index(index: KnowledgeIndex) -> None:
    """Make index the one tools use for its directory (replacing any earlier one)."""
    _indexes[_key(index.root)] = index


def unregister_index(index: KnowledgeIndex) -> None:
    """Forget index if it is the registered one for its directory."""
    key = _key(index.root)
    if _indexes.get(key) is index:
        del _indexes[key]


async def index_for(ctx: ToolContext) -> KnowledgeIndex:
    """The index of `ctx.settings.knowledge_base_dir`, loaded on first use if none is registered."""
    root = ctx.settings.knowledge_base_dir
    index = _indexes.get(_key(root))
    if index is not None:
        # Not waiting for `ready`: a cold start may take minutes; a partial index still helps.
        return index
    # Registered before loading (no await in between), so concurrent first calls share it.
    index = KnowledgeIndex(root, ctx.sessions, ctx.clock)
    register_index(index)
    await index.load()
    return index
