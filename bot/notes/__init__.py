"""The server notebook: notes members ask Otomo to keep, searchable with the knowledge base."""

from bot.notes.display import NoteError, NoteHit, NotePage, NoteView
from bot.notes.feature import NOTES_INSTRUCTIONS
from bot.notes.notebook import MAX_NOTES_PER_SERVER, NOTE_MAX_CHARS, Notebook
from bot.notes.tools import NOTE_TOOLS, NotesDeps

__all__ = [
    "MAX_NOTES_PER_SERVER",
    "NOTES_INSTRUCTIONS",
    "NOTE_MAX_CHARS",
    "NOTE_TOOLS",
    "NoteError",
    "NoteHit",
    "NotePage",
    "NoteView",
    "Notebook",
    "NotesDeps",
    "Person",
]
