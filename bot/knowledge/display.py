"""How knowledge-base files, their history and a reload are shown to admins (plain text)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.i18n import Language, Text, replies
from bot.knowledge.changes import ChangeAction, ChangeEntry
from bot.knowledge.editor import KnowledgeFile
from bot.knowledge.ranking import RefreshReport
from bot.text.clip import clip

# A listed title longer than this is cut: the path is what an admin types back.
TITLE_CHARS = 40
# Paths named one by one after a reload; more are counted, not listed.
LISTED_PATHS = 10

_ACTIONS: dict[ChangeAction, Text] = {
    ChangeAction.CREATE: replies.KB_CREATED_ACTION,
    ChangeAction.REPLACE: replies.KB_EDITED_ACTION,
    ChangeAction.DELETE: replies.KB_DELETED_ACTION,
    ChangeAction.WEB_SEARCH: replies.KB_WEB_SEARCH_ACTION,
}


def format_size(size: int | None) -> str:
    """A file size for people: `1,234 B`, or `—` when there is no file."""
    return "—" if size is None else f"{size:,} B"


def describe_file(file: KnowledgeFile) -> str:
    """One line of `/kb list`: the path to type back, the size and the title."""
    line = f"`{file.source}` {format_size(file.size)}"
    stem = file.path.rsplit("/", 1)[-1].removesuffix(".md")
    if file.title and file.title != stem:
        line += f" — {clip(' '.join(file.title.split()), TITLE_CHARS)}"
    return line


def describe_change(
    entry: ChangeEntry, source: str, tz: ZoneInfo, language: Language = "ja"
) -> str:
    """One line of `/kb history`: when (in tz), what, which file, who, and the sizes."""
    when = entry.changed_at.astimezone(tz)
    sizes = f"{format_size(entry.size_before)} → {format_size(entry.size_after)}"
    who = " ".join(entry.user_name.split()) or str(entry.user_id)
    return (
        f"`{when:%Y-%m-%d %H:%M}` {_ACTIONS[entry.action](language)} `{source}` — {who} ({sizes})"
    )


def _paths(label: str, paths: list[str]) -> str:
    shown = ", ".join(f"`{p}`" for p in paths[:LISTED_PATHS])
    more = len(paths) - LISTED_PATHS
    return f"{label}: {shown}" + (f" (+{more})" if more > 0 else "")


def describe_refresh(report: RefreshReport, language: Language = "ja") -> str:
    """What a reload changed, with the files it touched."""
    lines = [
        replies.KB_RELOADED(
            language,
            added=len(report.added),
            updated=len(report.updated),
            removed=len(report.removed),
            seconds=f"{report.seconds:.1f}",
        )
    ]
    if not report.changed and not report.skipped:
        lines.append(replies.KB_NOTHING_CHANGED(language))
    for label, paths in (
        (replies.KB_ADDED, report.added),
        (replies.KB_UPDATED, report.updated),
        (replies.KB_REMOVED, report.removed),
        (replies.KB_LEFT_OUT, report.skipped),
    ):
        if paths:
            lines.append(_paths(label(language), paths))
    return "\n".join(lines)
