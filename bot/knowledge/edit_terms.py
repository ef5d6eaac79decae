"""What editing the knowledge base speaks in: files as listed, refusals."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.i18n import Refusal, Text


class KnowledgeEditError(Refusal):
    """An edit the knowledge base refuses: a sentence in both languages telling the admin what
    to do instead."""


@dataclass(frozen=True, slots=True)
class KnowledgeFile:
    """A file as listed for admins."""

    path: str
    source: str
    title: str
    size: int
    modified_at: datetime
    # From the shared base (the operator's) rather than the server's own folder.
    shared: bool = False


@dataclass(frozen=True, slots=True)
class FileContent:
    """A file's text and the hash to pass back to `replace` to detect a concurrent edit."""

    path: str
    source: str
    text: str
    content_hash: str
    size: int
    # From the shared base (the operator's) rather than the server's own folder.
    shared: bool = False


def exists_text(relative: str) -> Text:
    """The refusal for creating a file that exists."""
    return Text(
        ja=(f"`{relative}` はもうあります。/kb edit で編集するか、別の名前にしてください。"),
        en=(f"`{relative}` already exists: edit it with /kb edit, or pick another name."),
    )


def shared_file_text(relative: str) -> Text:
    """The refusal for a server admin changing a file of the shared base."""
    return Text(
        ja=(
            f"`{relative}` はすべてのサーバー共通のファイルで、"
            "変更できるのはボットの管理者だけです。"
            f"`/kb new path:{relative}` "
            "でこのサーバー用のファイルを作ると、このサーバーではそちらが"
            "使われます。"
        ),
        en=(
            f"`{relative}` is a shared file of every server: only the bot's owners "
            f"change it. `/kb new path:{relative}` makes this server's own version, which replaces "
            "it here."
        ),
    )


def owners_only_text() -> Text:
    """The refusal for writing to the shared base without being one of the bot's owners."""
    return Text(
        ja=(
            "共通のナレッジベースを変更できるのはボットの管理者（アプリのオーナーか OWNER_IDS）"
            "だけです。"
        ),
        en=(
            "Only the bot's owners (the application's owner or OWNER_IDS) change the "
            "shared knowledge base."
        ),
    )


def other_server_text() -> Text:
    """The refusal for a path into the servers/ folder that is not this server's."""
    return Text(
        ja=(
            "`servers/` には各サーバー専用のファイルが入っています。このサーバーのファイルは "
            "`faq.md` のようにそのままのパスで指定してください。"
        ),
        en=(
            "`servers/` holds each server's "
            "own files: name this server's files by their plain path, such as `faq.md`."
        ),
    )


def too_large_text(size: int, limit: int) -> Text:
    """The refusal for a text over KB_MAX_FILE_BYTES."""
    return Text(
        ja=(
            f"{size:,} バイトあります。1ファイルは {limit:,} "
            "バイト（KB_MAX_FILE_BYTES）までなので、"
            "いくつかのファイルに分けてください。"
        ),
        en=(
            f"That text is {size:,} bytes; a file may hold at "
            f"most {limit:,} (KB_MAX_FILE_BYTES). Split it into several files."
        ),
    )


def read_or_none(path: Path) -> bytes | None:
    """The file's bytes, or None when it is missing or unreadable."""
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None
