"""The server notebook: notes members ask Otomo to keep, searchable with the knowledge base."""

from bot.notes.instructions import NOTES_INSTRUCTIONS
from bot.notes.notebook import (
    NOTE_MAX_CHARS,
    NoteAuthor,
    Notebook,
    NoteError,
    NoteHit,
    NotePage,
    NoteView,
)
from bot.notes.tools import NOTE_TOOLS

__all__ = [
    "NOTES_INSTRUCTIONS",
    "NOTE_MAX_CHARS",
    "NOTE_TOOLS",
    "NoteAuthor",
    "NoteError",
    "NoteHit",
    "NotePage",
    "NoteView",
    "Notebook",
]
