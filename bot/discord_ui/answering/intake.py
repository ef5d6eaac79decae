"""Reading what a mention shares from Discord objects into plain data for the agent."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.agent.conversation.parts import (
    MissingReason,
    QuoteRelation,
    Shared,
    SharedFile,
    SharedMessage,
)

log = logging.getLogger(__name__)


def shares_anything(message: discord.Message) -> bool:
    """Whether the message has attachments or refers to another message."""
    return bool(message.attachments) or message.reference is not None


def shared_file(attachment: discord.Attachment) -> SharedFile:
    """An attachment as plain data; its bytes are fetched only if the agent reads it."""
    return SharedFile(
        key=str(attachment.id),
        name=attachment.filename,
        content_type=attachment.content_type,
        size=attachment.size,
        read=attachment.read,
    )


def message_text(message: discord.Message) -> str:
    """What a message says: its text (mentions as names) and the text of its embeds."""
    parts = [message.clean_content] if message.content else []
    for embed in message.embeds:
        parts += [text for text in (embed.title, embed.description) if text]
        parts += [f"{field.name}: {field.value}" for field in embed.fields]
        if embed.footer.text:
            parts.append(embed.footer.text)
    return "\n".join(parts)


def quoted(message: discord.Message, relation: QuoteRelation) -> SharedMessage:
    """Another message as plain data: author, text and attachments."""
    return SharedMessage(
        relation=relation,
        message_id=message.id,
        author_name=message.author.display_name,
        author_id=message.author.id,
        text=message_text(message),
        files=tuple(shared_file(a) for a in message.attachments),
    )


def _missing(relation: QuoteRelation, message_id: int | None, why: MissingReason) -> SharedMessage:
    return SharedMessage(relation=relation, message_id=message_id, missing=why)


async def replied_to(message: discord.Message, client: discord.Client) -> SharedMessage | None:
    """The message this one replies to: from the event, the cache, or fetched."""
    reference = message.reference
    if reference is None or reference.message_id is None:
        return None
    if reference.type is not discord.MessageReferenceType.default:
        return None  # a forward carries its own snapshot, not a reply
    resolved = reference.resolved
    if isinstance(resolved, discord.DeletedReferencedMessage):
        return _missing("reply", reference.message_id, "deleted")
    if isinstance(resolved, discord.Message):
        return quoted(resolved, "reply")
    if reference.cached_message is not None:
        return quoted(reference.cached_message, "reply")
    # Discord left the reply out of the event (its state unknown): ask for it.
    channel: Any = client.get_channel(reference.channel_id) or client.get_partial_messageable(
        reference.channel_id
    )
    try:
        return quoted(await channel.fetch_message(reference.message_id), "reply")
    except discord.NotFound:
        return _missing("reply", reference.message_id, "deleted")
    except discord.Forbidden:
        return _missing("reply", reference.message_id, "no_access")
    except discord.HTTPException as exc:
        log.warning("Could not fetch replied-to message %s: %s", reference.message_id, exc.status)
        return _missing("reply", reference.message_id, "unavailable")


async def thread_starter(message: discord.Message) -> SharedMessage | None:
    """The first message of the thread the mention is in (its id is the thread's id)."""
    thread = message.channel
    if not isinstance(thread, discord.Thread) or message.id == thread.id:
        return None
    starter = thread.starter_message
    if starter is None:
        # A forum post's first message is inside the thread; a channel thread's is in the
        # channel it was started from.
        source: Any = thread if isinstance(thread.parent, discord.ForumChannel) else thread.parent
        if source is None:
            return None
        try:
            starter = await source.fetch_message(thread.id)
        except discord.HTTPException:
            # Threads started without a message (or whose first message is gone) have none.
            return None
    return quoted(starter, "thread_starter")


async def read_shared(
    message: discord.Message, client: discord.Client, *, thread_start: bool = True
) -> Shared:
    """Everything the mention shares: its files, the message it replies to, the thread start
    (not in the bot's own threads, where it is the conversation's first turn already)."""
    quotes: list[SharedMessage] = []
    starter = await thread_starter(message) if thread_start else None
    if starter is not None:
        quotes.append(starter)
    reply = await replied_to(message, client)
    if reply is not None and not (starter is not None and reply.message_id == starter.message_id):
        quotes.append(reply)
    return Shared(files=tuple(shared_file(a) for a in message.attachments), quotes=tuple(quotes))
