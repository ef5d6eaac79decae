"""Admin editing of knowledge-base files: safe paths, size cap, atomic writes, history, reindex.

Every call names its `ServerScope`. In a server, paths are the server's view: its own files
(`servers/<id>/` on disk) over the shared base; new files go to its own folder, and a shared
file is changed from Discord only by one of the bot's owners. A DM scope (the host, tests) sees
the shared base only.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import Text
from bot.knowledge.changes import ChangeAction, ChangeEntry, list_changes, record_change
from bot.knowledge.edit_terms import (
    FileContent,
    KnowledgeEditError,
    KnowledgeFile,
    exists_text,
    other_server_text,
    owners_only_text,
    read_or_none,
    shared_file_text,
    too_large_text,
)
from bot.knowledge.files import (
    FileSignature,
    UnsafePath,
    atomic_write,
    content_hash,
    decode,
    resolve_inside,
    scan,
)
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.places import Place, place_of
from bot.knowledge.ranking import RefreshReport
from bot.members.permissions import Person
from bot.runtime.clock import Clock
from bot.servers import SERVERS_FOLDER, ServerScope
from bot.settings import Settings

__all__ = ["FileContent", "KnowledgeEditError", "KnowledgeEditor", "KnowledgeFile"]

DM = ServerScope.DM


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
        """How a path relative to the base is shown and cited: `knowledge_base/faq.md`."""
        return self._index.source_of(path)

    def change_source(self, entry: ChangeEntry) -> str:
        """How a change's file is shown: `knowledge_base/faq.md`, or the server's own path."""
        return self.source_of(Place(entry.guild_id, entry.path).full_path)

    # -- paths ------------------------------------------------------------------------------

    def _relative(self, path: str, scope: ServerScope) -> str:
        """A typed path as a path inside the scope's view (`faq.md`), checked for safety.

        `knowledge_base/faq.md` and the server's own `servers/<id>/faq.md` (as listed) are
        accepted; any other path into `servers/` is refused.
        """
        try:
            relative, _ = resolve_inside(self.root, path)
        except UnsafePath as exc:
            raise KnowledgeEditError(exc.text) from None
        place = place_of(relative)
        if place is None or (place.owner is not None and place.owner != scope.guild_id):
            raise KnowledgeEditError(other_server_text())
        return place.path

    def _target(self, place: Place) -> Path:
        try:
            return resolve_inside(self.root, place.full_path)[1]
        except UnsafePath as exc:
            raise KnowledgeEditError(exc.text) from None

    async def _locate(self, path: str, scope: ServerScope) -> tuple[Place, Path, bytes | None]:
        """The file a scope means by a path: the server's own if it has one, else the shared."""
        relative = self._relative(path, scope)
        if scope.guild_id is not None:
            own = Place(scope.guild_id, relative)
            target = self._target(own)
            data = await asyncio.to_thread(read_or_none, target)
            if data is not None:
                return own, target, data
        shared = Place(None, relative)
        target = self._target(shared)
        return shared, target, await asyncio.to_thread(read_or_none, target)

    def _new_place(self, path: str, scope: ServerScope, *, shared: bool) -> Place:
        """Where a new file goes: the server's folder, or the shared base (shared, or a DM)."""
        relative = self._relative(path, scope)
        if not shared and scope.guild_id is not None:
            return Place(scope.guild_id, relative)
        if relative.split("/", 1)[0] == SERVERS_FOLDER:
            raise KnowledgeEditError(other_server_text())
        return Place(None, relative)

    # -- reading ----------------------------------------------------------------------------

    async def list_files(self, folder: str = "", *, scope: ServerScope = DM) -> list[KnowledgeFile]:
        """Every file the scope reads (optionally only under folder), sorted by path: the
        server's own, and the shared ones it does not replace."""
        own: dict[str, FileSignature] = {}
        if scope.knowledge_folder is not None:
            own = await asyncio.to_thread(scan, self.root / scope.knowledge_folder)
        shared = await asyncio.to_thread(scan, self.root, exclude_top=(SERVERS_FOLDER,))
        places = {p: (Place(None, p), sig) for p, sig in shared.items()}
        places.update({p: (Place(scope.guild_id, p), sig) for p, sig in own.items()})
        prefix = folder.strip().strip("/")
        if prefix.startswith(f"{self.root.name}/") or prefix == self.root.name:
            prefix = prefix[len(self.root.name) :].lstrip("/")
        files: list[KnowledgeFile] = []
        for path, (place, signature) in sorted(places.items()):
            if prefix and not path.startswith(prefix + "/"):
                continue
            analysis = self._index.analysis_of(place.full_path)
            files.append(
                KnowledgeFile(
                    path=path,
                    source=self.source_of(place.full_path),
                    title=analysis.title if analysis else PurePosixPath(path).stem,
                    size=signature.size,
                    modified_at=datetime.fromtimestamp(signature.mtime_ns / 1e9, UTC),
                    shared=place.owner is None,
                )
            )
        return files

    async def read(self, path: str, *, scope: ServerScope = DM) -> FileContent:
        """A file's text as the scope sees it, or a KnowledgeEditError saying it does not exist."""
        place, _, data = await self._locate(path, scope)
        if data is None:
            raise KnowledgeEditError(self._missing(place.path))
        return FileContent(
            place.path,
            self.source_of(place.full_path),
            decode(data),
            content_hash(data),
            len(data),
            shared=place.owner is None,
        )

    async def check_new(self, path: str, *, scope: ServerScope = DM, shared: bool = False) -> str:
        """The relative path for a new file, or a KnowledgeEditError if it is unsafe or taken.

        Lets `/kb new` refuse before the admin types the text; `create` checks again.
        """
        place = self._new_place(path, scope, shared=shared)
        if await asyncio.to_thread(self._target(place).exists):
            raise KnowledgeEditError(exists_text(place.path))
        return place.path

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
                Text(
                    ja=(
                        "添付ファイルが UTF-8 のテキストではありません。"
                        "Markdown を UTF-8 で保存して、"
                        "もう一度添付してください。"
                    ),
                    en=(
                        "The attachment is not UTF-8 text: save the markdown "
                        "as UTF-8 and attach it again."
                    ),
                )
            )
        return text

    # -- writing ----------------------------------------------------------------------------

    async def create(
        self,
        path: str,
        text: str,
        editor: Person,
        *,
        scope: ServerScope = DM,
        shared: bool = False,
    ) -> ChangeEntry:
        """Write a new file in the server's folder (the shared base with shared, or in a DM);
        refuses to overwrite an existing one. A server's file may have a shared file's path: it
        then replaces that file for this server."""
        async with self._lock:
            place = self._new_place(path, scope, shared=shared)
            if place.owner is None and not editor.bot_owner:
                raise KnowledgeEditError(owners_only_text())
            target = self._target(place)
            data = self._encode(text)
            if await asyncio.to_thread(target.exists):
                raise KnowledgeEditError(exists_text(place.path))
            return await self._write(place, target, data, None, ChangeAction.CREATE, editor)

    async def replace(
        self,
        path: str,
        text: str,
        editor: Person,
        *,
        scope: ServerScope = DM,
        expected_hash: str | None = None,
    ) -> ChangeEntry:
        """Overwrite a file as the scope sees it; with expected_hash, refuse if it changed since
        it was read."""
        async with self._lock:
            place, target, before = await self._locate(path, scope)
            relative = place.path
            data = self._encode(text)
            if before is None:
                raise KnowledgeEditError(
                    Text(
                        ja=(f"`{relative}` はまだありません。/kb new で作ってください。"),
                        en=(f"`{relative}` does not exist yet: create it with /kb new."),
                    )
                )
            self._check_may_write(place, editor)
            if expected_hash is not None and content_hash(before) != expected_hash:
                raise KnowledgeEditError(
                    Text(
                        ja=(
                            f"`{relative}` は開いた後でほかの人が変更しました。"
                            "/kb edit で開き直して、"
                            "もう一度変更してください。"
                        ),
                        en=(
                            f"`{relative}` was changed by someone else since "
                            "you opened it: open it again with /kb "
                            "show or /kb edit and redo your change."
                        ),
                    )
                )
            return await self._write(place, target, data, len(before), ChangeAction.REPLACE, editor)

    async def delete(
        self,
        path: str,
        editor: Person,
        *,
        scope: ServerScope = DM,
        expected_hash: str | None = None,
    ) -> ChangeEntry:
        """Remove a file as the scope sees it and take it out of the index; with expected_hash,
        only if unchanged. Deleting a server's own file brings back a shared one it replaced."""
        async with self._lock:
            place, target, before = await self._locate(path, scope)
            relative = place.path
            if before is None:
                raise KnowledgeEditError(self._missing(relative))
            self._check_may_write(place, editor)
            if expected_hash is not None and content_hash(before) != expected_hash:
                raise KnowledgeEditError(
                    Text(
                        ja=(
                            f"`{relative}` は確認の後で変更されたので、"
                            "削除していません。内容を確かめて"
                            "から /kb delete をやり直してください。"
                        ),
                        en=(
                            f"`{relative}` changed after you "
                            "were asked to confirm, so it was not "
                            "deleted: check it and run /kb delete "
                            "again."
                        ),
                    )
                )
            await asyncio.to_thread(target.unlink)
            entry = await record_change(
                self._sessions,
                guild_id=place.owner,
                path=relative,
                action=ChangeAction.DELETE,
                editor=editor,
                size_before=len(before),
                size_after=None,
                now=self._clock.now(),
            )
            await self._index.refresh_file(place.full_path)
            return entry

    async def history(
        self, path: str | None = None, limit: int = 20, *, scope: ServerScope = DM
    ) -> list[ChangeEntry]:
        """The latest changes the scope sees (its server's and the shared base's), newest first,
        to one file (a checked path) or to all files."""
        relative = self._relative(path, scope) if path else None
        return await list_changes(self._sessions, scope, relative, limit)

    async def reload(self) -> RefreshReport:
        """Re-scan the whole directory now (for files changed outside the bot)."""
        return await self._index.refresh()

    @staticmethod
    def _check_may_write(place: Place, editor: Person) -> None:
        """A shared file is changed from Discord only by one of the bot's owners."""
        if place.owner is None and not editor.bot_owner:
            raise KnowledgeEditError(shared_file_text(place.path))

    def _encode(self, text: str) -> bytes:
        if not text.strip():
            raise KnowledgeEditError(
                Text(
                    ja=(
                        "ファイルが空になります。本文を書くか、消すなら "
                        "/kb delete を使ってください。"
                    ),
                    en=(
                        "The file would be empty: write some text, or use /kb delete to remove it."
                    ),
                )
            )
        body = text.replace("\r\n", "\n")
        data = (body if body.endswith("\n") else body + "\n").encode("utf-8")
        self.check_size(len(data))
        return data

    async def _write(
        self,
        place: Place,
        target: Path,
        data: bytes,
        size_before: int | None,
        action: ChangeAction,
        editor: Person,
    ) -> ChangeEntry:
        relative = place.path
        if await asyncio.to_thread(target.is_symlink):
            raise KnowledgeEditError(
                Text(
                    ja=(
                        f"`{relative}` は別のファイルへのリンクです。リンク先のファイルを編集して"
                        "ください。"
                    ),
                    en=(
                        f"`{relative}` is a link to another file: edit the file it points "
                        "to instead."
                    ),
                )
            )
        await asyncio.to_thread(atomic_write, target, data)
        entry = await record_change(
            self._sessions,
            guild_id=place.owner,
            path=relative,
            action=action,
            editor=editor,
            size_before=size_before,
            size_after=len(data),
            now=self._clock.now(),
        )
        await self._index.refresh_file(place.full_path)
        return entry

    def _missing(self, relative: str) -> Text:
        return Text(
            ja=(
                f"`{relative}` はナレッジベースにありません。"
                "/kb list でファイルの一覧を見られます。"
            ),
            en=(f"There is no `{relative}` in the knowledge base: /kb list shows the files."),
        )
