"""Note tools for the agent: write a note (approved first), read one, list or search them."""

from __future__ import annotations

from typing import Any, Protocol

from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Language, Text
from bot.members.permissions import Person
from bot.notes.display import NoteError
from bot.notes.notebook import LIST_PAGE_SIZE, Notebook

NO_SERVER = (
    "Notes belong to a server's shared notebook and this is a direct message: tell the user to "
    "ask in a channel of their server."
)
CITE = "Cite a note you use as `出典: メモ #<id>「<title>」`."


class NotesDeps(Protocol):
    """What the note tools need of the bot's dependencies."""

    @property
    def notebook(self) -> Notebook:
        """The server notebook."""
        ...


def _guild(ctx: ToolContext[NotesDeps]) -> int:
    if ctx.guild_id is None:
        raise ToolError(NO_SERVER)
    return ctx.guild_id


def _author(ctx: ToolContext[NotesDeps]) -> Person:
    return Person(ctx.user_id, ctx.user_name, ctx.is_admin)


def _saved(output: Any, language: Language) -> str | None:
    title = str(output.get("title") or "") if isinstance(output, dict) else ""
    if language == "ja":
        return f"メモ「{title}」を保存しました。" if title else "メモを保存しました。"
    return f"Saved the note “{title}”." if title else "Saved the note."


WRITE_LOOK = Look(
    title=Text("メモを書く", "Write a note"),
    labels={"title": Label(Text("タイトル", "Title")), "text": Label(Text("内容", "Text"))},
    summary=_saved,
)
READ_LOOK = Look(
    title=Text("メモを読む", "Read a note"), doing=Text("メモを読む", "Reading a note")
)
LIST_LOOK = Look(
    title=Text("メモの一覧", "Notes"),
    labels={"search": Label(Text("検索語", "Search words"))},
    doing=Text("メモを確認", "Looking through the notes"),
)


@tool(source="notes", servers_only=True, look=WRITE_LOOK)
async def write_note(
    ctx: ToolContext[NotesDeps], text: str, title: str | None = None, note_id: int | None = None
) -> dict[str, Any]:
    """Write a note in the server's shared notebook.

    Args:
        text: what to note, clear later without the chat, in the member's words (max 1500
            characters).
        title: a short title (max 60 characters); omit to use the first line.
        note_id: to rewrite an existing note instead (its author or an admin only).
    """
    guild = _guild(ctx)
    notebook = ctx.deps.notebook
    try:
        if note_id is None:
            note = await notebook.write(guild, ctx.channel_id, _author(ctx), text, title)
        else:
            note = await notebook.rewrite(guild, note_id, _author(ctx), text, title)
    except NoteError as exc:
        raise ToolError(str(exc)) from None
    return {
        "saved": True,
        **note.to_output(ctx.timezone, with_body=False),
        "summary": f"メモ {note.label} を保存しました / saved note {note.label}",
    }


@tool(
    requires_approval=False,
    read_only=True,
    source="notes",
    servers_only=True,
    look=READ_LOOK,
    untrusted="note",
)
async def read_note(ctx: ToolContext[NotesDeps], note_id: int) -> dict[str, Any]:
    """Read one note in full.

    Args:
        note_id: the note's number (12 for #12).
    """
    try:
        note = await ctx.deps.notebook.get(_guild(ctx), note_id)
    except NoteError as exc:
        raise ToolError(str(exc)) from None
    return {**note.to_output(ctx.timezone), "note": CITE}


@tool(
    requires_approval=False,
    read_only=True,
    source="notes",
    servers_only=True,
    look=LIST_LOOK,
    untrusted="note",
)
async def list_notes(
    ctx: ToolContext[NotesDeps], search: str | None = None, page: int = 1
) -> dict[str, Any]:
    """List the server's notes, newest first, or find notes about something.

    Args:
        search: words to look for; omit to list the newest.
        page: page of 10 notes when listing.
    """
    guild = _guild(ctx)
    notebook = ctx.deps.notebook
    if search and search.strip():
        hits = await notebook.search(guild, search.strip(), LIST_PAGE_SIZE)
        return {
            "notes": [
                {**h.note.to_output(ctx.timezone, with_body=False), "snippet": h.snippet}
                for h in hits
            ],
            "note": (CITE + " Use read_note for the whole text.")
            if hits
            else "No note matches; try other words once, or list the newest notes.",
        }
    listing = await notebook.page(guild, page)
    return {
        "notes": [
            {**n.to_output(ctx.timezone, with_body=False), "snippet": n.body[:120]}
            for n in listing.notes
        ],
        "total": listing.total,
        "page": listing.page,
        "pages": listing.pages,
        "note": "Use read_note for a whole note." if listing.total else "The notebook is empty.",
    }


NOTE_TOOLS: list[Tool] = [write_note, read_note, list_notes]
