"""How knowledge-base files, their history and a reload are shown to admins (plain text)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.knowledge.changes import ChangeAction, ChangeEntry
from bot.knowledge.editor import KnowledgeFile
from bot.knowledge.results import RefreshReport
from bot.text.clip import clip

# A listed title longer than this is cut: the path is what an admin types back.
TITLE_CHARS = 40
# Paths named one by one after a reload; more are counted, not listed.
LISTED_PATHS = 10

_ACTIONS = {
    ChangeAction.CREATE: "🆕 作成 / created",
    ChangeAction.REPLACE: "✏️ 編集 / edited",
    ChangeAction.DELETE: "🗑️ 削除 / deleted",
    ChangeAction.WEB_SEARCH: "🔎 Web検索 / web search",
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


def describe_change(entry: ChangeEntry, source: str, tz: ZoneInfo) -> str:
    """One line of `/kb history`: when (in tz), what, which file, who, and the sizes."""
    when = entry.changed_at.astimezone(tz)
    sizes = f"{format_size(entry.size_before)} → {format_size(entry.size_after)}"
    who = " ".join(entry.user_name.split()) or str(entry.user_id)
    return f"`{when:%Y-%m-%d %H:%M}` {_ACTIONS[entry.action]} `{source}` — {who} ({sizes})"


def _paths(label: str, paths: list[str]) -> str:
    shown = ", ".join(f"`{p}`" for p in paths[:LISTED_PATHS])
    more = len(paths) - LISTED_PATHS
    return f"{label}: {shown}" + (f" (+{more})" if more > 0 else "")


def describe_refresh(report: RefreshReport) -> str:
    """What a reload changed, in Japanese then English, with the files it touched."""
    lines = [
        f"🔄 再読み込みしました: 追加 {len(report.added)}、更新 {len(report.updated)}、"
        f"削除 {len(report.removed)}（{report.seconds:.1f} 秒）。/ Reloaded: "
        f"{len(report.added)} added, {len(report.updated)} updated, {len(report.removed)} "
        f"removed ({report.seconds:.1f} s).",
    ]
    if not report.changed and not report.skipped:
        lines.append("変更はありませんでした。/ Nothing had changed.")
    for label, paths in (
        ("追加 / added", report.added),
        ("更新 / updated", report.updated),
        ("削除 / removed", report.removed),
        ("⚠️ 大きすぎるか読めないため除外 / left out (too large or unreadable)", report.skipped),
    ):
        if paths:
            lines.append(_paths(label, paths))
    return "\n".join(lines)
