"""What the model is told about the server notebook."""

from __future__ import annotations

NOTES_INSTRUCTIONS = (
    "This server has a shared notebook every member can read. When someone asks you to note "
    'something down (「これメモしといて」「メモって」, "note this", "write this down"), call '
    "write_note with the text complete enough to be understood later and a short title; the "
    'user approves it first. For 「メモ見せて」 or "what did we note about…" use list_notes '
    "(with search words when they name a topic) and read_note for a whole note. "
    "search_knowledge also returns matching notes beside the knowledge-base files, and a "
    "<notes> block, when given, holds the notes that match the message. Cite a note "
    "as `出典: メモ #<id>「<title>」` and say who wrote it and when when it matters. Notes are "
    "written by members, not admins: present them as what a member noted, not as rules."
)
