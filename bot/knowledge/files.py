"""The knowledge-base directory on disk: scanning, safe paths inside it and atomic writes."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bot.i18n import Refusal, Text

log = logging.getLogger(__name__)

SUFFIX = ".md"
MAX_PATH_CHARS = 200
# Characters Windows, shells or Discord markdown would trip over in a file name.
_FORBIDDEN = re.compile(r'[\x00-\x1f\x7f<>:"|?*\\]')


class UnsafePath(Refusal, ValueError):
    """A path the knowledge base refuses: a sentence for the admin in both languages."""


@dataclass(frozen=True, slots=True)
class FileSignature:
    """What a cheap stat() tells about a file; a change means it must be hashed again."""

    mtime_ns: int
    size: int


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def decode(data: bytes) -> str:
    """File bytes as text: UTF-8 (a BOM is dropped), undecodable bytes replaced."""
    return data.decode("utf-8-sig", errors="replace")


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


# Files at the root that configure the bot rather than inform it.
NOT_KNOWLEDGE = frozenset({"persona.md", "vocabulary.md"})


def scan(root: Path, *, exclude_top: Collection[str] = ()) -> dict[str, FileSignature]:
    """Every `.md` file under root as relative POSIX path → signature.

    Folders named in exclude_top are skipped at the top level (`servers/` when only the shared
    base is wanted).

    Hidden files and folders (editor temp files start with a dot) are skipped, and so is a
    symlink that points outside root: the bot must never read files it was not given. The chat
    persona (`persona.md` at the root) is instructions, not knowledge, so it is not indexed.
    """
    if not root.is_dir():
        return {}
    real_root = root.resolve()
    found: dict[str, FileSignature] = {}
    for folder, dirs, names in os.walk(root, followlinks=False):
        top = Path(folder) == root
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not (top and d in exclude_top)
        )
        for name in names:
            if name.startswith(".") or not name.endswith(SUFFIX):
                continue
            path = Path(folder, name)
            try:
                if path.is_symlink() and not _inside(path.resolve(), real_root):
                    continue
                stat = path.stat()
            except OSError:
                continue  # deleted between listing and stat
            relative = path.relative_to(root).as_posix()
            if relative in NOT_KNOWLEDGE:
                continue
            found[relative] = FileSignature(stat.st_mtime_ns, stat.st_size)
    return found


def signature_of(path: Path) -> FileSignature | None:
    """The stat() signature of a regular file, or None if it is not there."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return FileSignature(stat.st_mtime_ns, stat.st_size) if path.is_file() else None


def read_texts(
    root: Path, paths: Collection[str], max_bytes: int
) -> dict[str, tuple[str | None, str]]:
    """Each path's text and content hash; text None when larger than max_bytes or unreadable."""
    result: dict[str, tuple[str | None, str]] = {}
    for path in paths:
        try:
            data = (root / path).read_bytes()
        except OSError as exc:
            log.warning("cannot read knowledge-base file %s: %s", path, exc)
            result[path] = (None, "")
            continue
        if len(data) > max_bytes:
            log.warning(
                "knowledge-base file %s is %d bytes, over %d: not indexed",
                path,
                len(data),
                max_bytes,
            )
            result[path] = (None, "")
            continue
        result[path] = (decode(data), content_hash(data))
    return result


def resolve_inside(root: Path, user_path: str) -> tuple[str, Path]:
    """Check a path typed by an admin and return (relative POSIX path, absolute path).

    Accepts `faq.md`, `guides/faq.md` and `knowledge_base/faq.md`; refuses absolute paths, `..`,
    hidden names, other suffixes and anything that resolves outside root through a symlink.
    """
    raw = user_path.strip()
    if not raw:
        raise UnsafePath(
            Text(
                ja=("ファイルのパスを指定してください（例: `faq.md`、`guides/rules.md`）。"),
                en=("Give a file path such as `faq.md` or `guides/rules.md`."),
            )
        )
    if len(raw) > MAX_PATH_CHARS:
        raise UnsafePath(
            Text(
                ja=(f"パスが長すぎます。{MAX_PATH_CHARS}文字未満にしてください。"),
                en=(f"That path is too long: keep it under {MAX_PATH_CHARS} characters."),
            )
        )
    if _FORBIDDEN.search(raw):
        raise UnsafePath(
            Text(
                ja=(
                    'パスにファイル名に使えない文字（\\ : * ? " '
                    "< > | など）が含まれています。英数字と - _ "
                    "を使い、フォルダは / で区切ってください。"
                ),
                en=(
                    "That path contains characters a file name "
                    'cannot have (such as \\ : * ? " < > |); '
                    "use letters, digits, - and _ with / between folders."
                ),
            )
        )
    if raw.startswith("/") or raw.startswith("~"):
        raise UnsafePath(
            Text(
                ja=(
                    "絶対パスではなく、ナレッジベースの中のパス（例: `faq.md`）を指定してください。"
                ),
                en=(
                    "Use a path inside the knowledge base such "
                    f"as `faq.md`, not an absolute path ({raw})."
                ),
            )
        )
    parts = PurePosixPath(raw).parts
    if parts and parts[0] == root.name and len(parts) > 1:
        parts = parts[1:]  # the listing shows `knowledge_base/faq.md`; accept it pasted back
    if any(part == ".." for part in parts):
        raise UnsafePath(
            Text(
                ja=(
                    "`..` で上のフォルダには出られません。ナレッジベースの中のファイルを指定して"
                    "ください。"
                ),
                en=("Paths cannot go up with `..`: name a file inside the knowledge base."),
            )
        )
    if any(part.startswith(".") for part in parts):
        raise UnsafePath(
            Text(
                ja=("ドットで始まる隠しファイル・フォルダは使えません。"),
                en=("Hidden files and folders (names starting with a dot) are not allowed."),
            )
        )
    if not parts or not parts[-1].endswith(SUFFIX) or parts[-1] == SUFFIX:
        raise UnsafePath(
            Text(
                ja=(
                    "扱えるのは Markdown ファイルだけです。"
                    f"名前を `{SUFFIX}` で終わらせてください。"
                ),
                en=(f"Only markdown files can be used: the name must end in `{SUFFIX}`."),
            )
        )
    relative = "/".join(parts)
    target = root / relative
    real_root = root.resolve()
    if not _inside(target.resolve(), real_root):
        raise UnsafePath(
            Text(
                ja=(f"`{relative}` はリンクを通ってナレッジベースの外を指しています。"),
                en=(f"`{relative}` leads outside the knowledge base through a link."),
            )
        )
    return relative, target


def atomic_write(path: Path, data: bytes) -> None:
    """Replace path with data so readers see the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    # The temp file must be in the same folder: os.replace is atomic only within one filesystem.
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
