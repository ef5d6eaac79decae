"""Knowledge-base tables: the per-file tokenisation cache and the log of admin edits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class KnowledgeDocument(Base):
    """A file's analysis (sections and weighted terms), valid while its content hash matches."""

    __tablename__ = "kb_documents"

    # Relative to the knowledge-base directory, with forward slashes: `guides/faq.md`, or
    # `servers/<guild id>/faq.md` for a server's own file.
    path: Mapped[str] = mapped_column(String(512), primary_key=True)
    # The server whose folder holds the file; None for the shared base.
    guild_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    analyzer_version: Mapped[int] = mapped_column(Integer)
    analysis: Mapped[dict[str, Any]] = mapped_column(JSON)
    indexed_at: Mapped[datetime] = mapped_column(UTCDateTime())


class KnowledgeChange(Base):
    """One create, replace or delete of a knowledge-base file, by whom and when."""

    __tablename__ = "kb_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The server whose file changed (path inside its folder); None for the shared base.
    guild_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    path: Mapped[str] = mapped_column(String(512), index=True)
    action: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[int] = mapped_column(BigInteger)
    user_name: Mapped[str] = mapped_column(String(100))
    size_before: Mapped[int | None] = mapped_column(Integer)
    size_after: Mapped[int | None] = mapped_column(Integer)
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime())


class KnowledgeEmbedding(Base):
    """A text's embedding by one model (float32, unit length), kept while a section has the text."""

    __tablename__ = "kb_embeddings"

    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    # SHA-256 of the exact text embedded: a section's title, headings and body.
    text_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    dimensions: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
