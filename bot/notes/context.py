"""Notes matching a mention, as a system-prompt block beside the knowledge-base excerpts."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.notes.notebook import Notebook
from bot.text.clip import clip

# A note must hold at least this share of the question's words to be put before the model:
# a chat line that shares one word with a note must not drag the note into the answer.
CONTEXT_THRESHOLD = 0.5
CONTEXT_NOTES = 2
CONTEXT_CHARS = 800
# Only the start of a long message is searched.
MAX_QUERY_CHARS = 500


async def notes_context(notebook: Notebook, guild_id: int, query: str, tz: ZoneInfo) -> str:
    """The best matching notes in a `<notes>` block with their citation, or "" if none."""
    if not query.strip():
        return ""
    hits = await notebook.search(guild_id, query[:MAX_QUERY_CHARS], CONTEXT_NOTES)
    entries: list[str] = []
    remaining = CONTEXT_CHARS
    for hit in hits:
        if hit.relevance < CONTEXT_THRESHOLD or remaining <= 0:
            continue
        note = hit.note
        written = note.created_at.astimezone(tz).strftime("%Y-%m-%d")
        body = clip(note.body, remaining)
        entries.append(
            f"[メモ {note.label} — {note.author_name}, {written}]\n{body}\n出典: メモ {note.label}"
        )
        remaining -= len(body)
    if not entries:
        return ""
    return "<notes>\n" + "\n\n".join(entries) + "\n</notes>"
