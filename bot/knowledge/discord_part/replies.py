"""What /kb answers with: text that fits one message, files as attachments, saving forms."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import PurePosixPath
from typing import Any

import discord

from bot.discord_ui.commands.private_replies import MESSAGE_CHARS, say
from bot.i18n import Language, language_of_locale, replies
from bot.knowledge import ChangeAction, ChangeEntry, KnowledgeEditError, KnowledgeEditor
from bot.knowledge.discord_part.forms import refusal
from bot.knowledge.display import format_size
from bot.members.permissions import Person

# Room kept free in a message for a closing line such as "(+12 more)".
MESSAGE_BUDGET = MESSAGE_CHARS - 100

Write = Callable[[str, Person], Awaitable[ChangeEntry]]


def discord_length(text: str) -> int:
    """Length as Discord counts it for limits (UTF-16 code units: an emoji may count as two)."""
    return len(text.encode("utf-16-le")) // 2


def as_file(text: str, path: str) -> discord.File:
    """Text as an attachment named like the knowledge-base file."""
    return discord.File(io.BytesIO(text.encode("utf-8")), filename=PurePosixPath(path).name)


def saved_message(entry: ChangeEntry, source: str, language: Language = "ja") -> str:
    """What an admin is told after a create or an edit."""
    if entry.action is ChangeAction.CREATE:
        return replies.KB_CREATED(language, source=source, size=format_size(entry.size_after))
    sizes = f"{format_size(entry.size_before)} → {format_size(entry.size_after)}"
    return replies.KB_SAVED(language, source=source, sizes=sizes)


def fit(
    lines: list[str], header: str, language: Language = "ja", budget: int = MESSAGE_BUDGET
) -> str:
    """Header and as many lines as fit in one message, then how many were left out."""
    kept: list[str] = []
    used = len(header)
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    text = "\n".join([header, *kept])
    left = len(lines) - len(kept)
    return text + (replies.KB_MORE(language, count=left) if left else "")


async def write_submitted(
    interaction: discord.Interaction[Any],
    files: KnowledgeEditor,
    editor: Person | None,
    text: str,
    write: Write,
    path: str,
) -> None:
    """Save a submitted form; a refused text is sent back so the admin's work is not lost."""
    language = language_of_locale(interaction.locale)
    if editor is None:
        await say(interaction, refusal(interaction))
        return
    # Writing re-indexes the file, which may outlast the 3-second deadline.
    await interaction.response.defer(ephemeral=True, thinking=True)
    try:
        entry = await write(text, editor)
    except KnowledgeEditError as exc:
        await say(
            interaction,
            f"⚠️ {exc.said(language)}\n{replies.KB_TEXT_ATTACHED(language)}",
            file=as_file(text, path),
        )
        return
    await say(interaction, saved_message(entry, files.change_source(entry), language))


async def write_uploaded(
    interaction: discord.Interaction[Any],
    files: KnowledgeEditor,
    file: discord.Attachment,
    editor: Person,
    write: Callable[[str, str, Person], Awaitable[ChangeEntry]],
    path: str,
) -> None:
    """Create or replace a file with an uploaded one (checked before it is downloaded)."""
    files.check_size(file.size)
    await interaction.response.defer(ephemeral=True, thinking=True)
    text = files.text_of_upload(await file.read())
    entry = await write(path, text, editor)
    language = language_of_locale(interaction.locale)
    await say(interaction, saved_message(entry, files.change_source(entry), language))
