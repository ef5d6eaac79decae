"""Admin editing of knowledge-base files: safe paths, size cap, atomic writes, history, reindex."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.changes import ChangeAction, ChangeEntry, Editor, list_changes, record_change
from bot.knowledge.edit_terms import (
    FileContent,
    KnowledgeEditError,
    KnowledgeFile,
    exists_text,
    read_or_none,
    too_large_text,
)
from bot.knowledge.files import UnsafePath, atomic_write, content_hash, decode, resolve_inside, scan
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.results import RefreshReport
from bot.runtime.clock import Clock
from bot.settings import Settings

__all__ = ["FileContent", "KnowledgeEditError", "KnowledgeEditor", "KnowledgeFile"]


class KnowledgeEditor:
    """Lists, reads, creates, replaces and deletes files for `/kb` commands."""

    def __init__(
        self,
        index: KnowledgeIndex,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        max_file_bytes: int,
    ) -> None:
        self._index = index
        self._sessions = sessions
        self._clock = clock
        self._max_file_bytes = max_file_bytes
        # One edit at a time: a read-check-write sequence must not interleave with another.
        self._lock = asyncio.Lock()

    @classmethod
    def from_settings(
        cls,
        index: KnowledgeIndex,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
    ) -> KnowledgeEditor:
        """An editor with the size cap from settings."""
        return cls(index, sessions, clock, max_file_bytes=settings.kb_max_file_bytes)

    @property
    def root(self) -> Path:
        """The knowledge-base directory."""
        return self._index.root

    @property
    def max_file_bytes(self) -> int:
        """The size cap of one file (KB_MAX_FILE_BYTES)."""
        return self._max_file_bytes

    def source_of(self, path: str) -> str:
        """How a relative path is shown and cited: `knowledge_base/faq.md`."""
        return self._index.source_of(path)

    def _resolve(self, path: str) -> tuple[str, Path]:
        try:
            return resolve_inside(self.root, path)
        except UnsafePath as exc:
            raise KnowledgeEditError(str(exc)) from None

    async def list_files(self, folder: str = "") -> list[KnowledgeFile]:
        """Every markdown file (optionally only under folder), sorted by path."""
        listing = await asyncio.to_thread(scan, self.root)
        prefix = folder.strip().strip("/")
        if prefix.startswith(f"{self.root.name}/") or prefix == self.root.name:
            prefix = prefix[len(self.root.name) :].lstrip("/")
        files: list[KnowledgeFile] = []
        for path, signature in sorted(listing.items()):
            if prefix and not path.startswith(prefix + "/"):
                continue
            analysis = self._index.analysis_of(path)
            files.append(
                KnowledgeFile(
                    path=path,
                    source=self._index.source_of(path),
                    title=analysis.title if analysis else PurePosixPath(path).stem,
                    size=signature.size,
                    modified_at=datetime.fromtimestamp(signature.mtime_ns / 1e9, UTC),
                )
            )
        return files

    async def read(self, path: str) -> FileContent:
        """A file's text, or a KnowledgeEditError saying it does not exist."""
        relative, target = self._resolve(path)
        data = await asyncio.to_thread(read_or_none, target)
        if data is None:
            raise KnowledgeEditError(self._missing(relative))
        return FileContent(
            relative, self._index.source_of(relative), decode(data), content_hash(data), len(data)
        )

    async def check_new(self, path: str) -> str:
        """The relative path for a new file, or a KnowledgeEditError if it is unsafe or taken.

        Lets `/kb new` refuse before the admin types the text; `create` checks again.
        """
        relative, target = self._resolve(path)
        if await asyncio.to_thread(target.exists):
            raise KnowledgeEditError(exists_text(relative))
        return relative

    def check_size(self, size: int) -> None:
        """Refuse, with a KnowledgeEditError, a file of size bytes over the cap."""
        if size > self._max_file_bytes:
            raise KnowledgeEditError(too_large_text(size, self._max_file_bytes))

    def text_of_upload(self, data: bytes) -> str:
        """An uploaded file's bytes as text, or a KnowledgeEditError if too large or not text."""
        self.check_size(len(data))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = None
        if text is None or "\x00" in text:
            raise KnowledgeEditError(
                "添付ファイルが UTF-8 のテキストではありません。Markdown を UTF-8 で保存して、"
                "もう一度添付してください。/ The attachment is not UTF-8 text: save the markdown "
                "as UTF-8 and attach it again."
            )
        return text

    async def create(self, path: str, text: str, editor: Editor) -> ChangeEntry:
        """Write a new file; refuses to overwrite an existing one."""
        async with self._lock:
            relative, target = self._resolve(path)
            data = self._encode(text)
            if await asyncio.to_thread(target.exists):
                raise KnowledgeEditError(exists_text(relative))
            return await self._write(relative, target, data, None, ChangeAction.CREATE, editor)

    async def replace(
        self, path: str, text: str, editor: Editor, *, expected_hash: str | None = None
    ) -> ChangeEntry:
        """Overwrite a file; with expected_hash, refuse if it changed since it was read."""
        async with self._lock:
            relative, target = self._resolve(path)
            data = self._encode(text)
            before = await asyncio.to_thread(read_or_none, target)
            if before is None:
                raise KnowledgeEditError(
                    f"`{relative}` はまだありません。/kb new で作ってください。/ "
                    f"`{relative}` does not exist yet: create it with /kb new."
                )
            if expected_hash is not None and content_hash(before) != expected_hash:
                raise KnowledgeEditError(
                    f"`{relative}` は開いた後でほかの人が変更しました。/kb edit で開き直して、"
                    f"もう一度変更してください。/ `{relative}` was changed by someone else since "
                    "you opened it: open it again with /kb show or /kb edit and redo your change."
                )
            return await self._write(
                relative, target, data, len(before), ChangeAction.REPLACE, editor
            )

    async def delete(
        self, path: str, editor: Editor, *, expected_hash: str | None = None
    ) -> ChangeEntry:
        """Remove a file and take it out of the index; with expected_hash, only if unchanged."""
        async with self._lock:
            relative, target = self._resolve(path)
            before = await asyncio.to_thread(read_or_none, target)
            if before is None:
                raise KnowledgeEditError(self._missing(relative))
            if expected_hash is not None and content_hash(before) != expected_hash:
                raise KnowledgeEditError(
                    f"`{relative}` は確認の後で変更されたので、削除していません。内容を確かめて"
                    f"から /kb delete をやり直してください。/ `{relative}` changed after you "
                    "were asked to confirm, so it was not deleted: check it and run /kb delete "
                    "again."
                )
            await asyncio.to_thread(target.unlink)
            entry = await record_change(
                self._sessions,
                path=relative,
                action=ChangeAction.DELETE,
                editor=editor,
                size_before=len(before),
                size_after=None,
                now=self._clock.now(),
            )
            await self._index.refresh_file(relative)
            return entry

    async def history(self, path: str | None = None, limit: int = 20) -> list[ChangeEntry]:
        """The latest changes, newest first, to one file (a checked path) or to all files."""
        relative = self._resolve(path)[0] if path else None
        return await list_changes(self._sessions, relative, limit)

    async def reload(self) -> RefreshReport:
        """Re-scan the whole directory now (for files changed outside the bot)."""
        return await self._index.refresh()

    def _encode(self, text: str) -> bytes:
        if not text.strip():
            raise KnowledgeEditError(
                "ファイルが空になります。本文を書くか、消すなら /kb delete を使ってください。/ "
                "The file would be empty: write some text, or use /kb delete to remove it."
            )
        body = text.replace("\r\n", "\n")
        data = (body if body.endswith("\n") else body + "\n").encode("utf-8")
        self.check_size(len(data))
        return data

    async def _write(
        self,
        relative: str,
        target: Path,
        data: bytes,
        size_before: int | None,
        action: ChangeAction,
        editor: Editor,
    ) -> ChangeEntry:
        if await asyncio.to_thread(target.is_symlink):
            raise KnowledgeEditError(
                f"`{relative}` は別のファイルへのリンクです。リンク先のファイルを編集して"
                f"ください。/ `{relative}` is a link to another file: edit the file it points "
                "to instead."
            )
        await asyncio.to_thread(atomic_write, target, data)
        entry = await record_change(
            self._sessions,
            path=relative,
            action=action,
            editor=editor,
            size_before=size_before,
            size_after=len(data),
            now=self._clock.now(),
        )
        await self._index.refresh_file(relative)
        return entry

    def _missing(self, relative: str) -> str:
        return (
            f"`{relative}` はナレッジベースにありません。/kb list でファイルの一覧を見られます。/ "
            f"There is no `{relative}` in the knowledge base: /kb list shows the files."
        )
