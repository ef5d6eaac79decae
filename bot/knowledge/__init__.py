"""The markdown knowledge base: BM25 index with hot reload, its outline and reading tools, admin
editing, web search archive."""

from bot.knowledge.changes import ChangeAction, ChangeEntry
from bot.knowledge.editor import KnowledgeEditError, KnowledgeEditor, KnowledgeFile
from bot.knowledge.feature import context_for, knowledge_instructions
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.ranking import KnowledgeHit, RefreshReport
from bot.knowledge.tools import (
    KNOWLEDGE_TOOLS,
    KnowledgeDeps,
    knowledge_index,
    read_knowledge,
    search_knowledge,
)

# The web_search tool itself stays in its module: exporting it here would hide the module.
from bot.knowledge.web_search import web_tools

__all__ = [
    "KNOWLEDGE_TOOLS",
    "ChangeAction",
    "ChangeEntry",
    "KnowledgeDeps",
    "KnowledgeEditError",
    "KnowledgeEditor",
    "KnowledgeFile",
    "KnowledgeHit",
    "KnowledgeIndex",
    "RefreshReport",
    "context_for",
    "knowledge_index",
    "knowledge_instructions",
    "read_knowledge",
    "search_knowledge",
    "web_tools",
]
