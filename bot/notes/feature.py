"""The notes feature: the notebook's tools and instructions in the general and chat handlers,
with the notes that match a mention in the prompt."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.notes.context import notes_context
from bot.notes.instructions import NOTES_INSTRUCTIONS
from bot.notes.tools import NOTE_TOOLS, NotesDeps

HANDLERS = (router.GENERAL, router.CHAT)


def register(app: AppBuilder, deps: NotesDeps) -> None:
    """Offer the note tools and add the notes instructions and matching notes."""
    notebook = deps.notebook

    async def notes_section(prompt: PromptInput) -> str:
        if prompt.guild_id is None:
            return NOTES_INSTRUCTIONS
        found = await notes_context(notebook, prompt.guild_id, prompt.text, prompt.timezone)
        return "\n\n".join(part for part in (NOTES_INSTRUCTIONS, found) if part)

    app.add_tools(NOTE_TOOLS, offered_in=HANDLERS)
    app.add_section(notes_section, handlers=HANDLERS)
