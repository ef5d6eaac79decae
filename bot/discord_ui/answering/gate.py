"""The gate: which messages Otomo answers, the text it reads from them, and the fairness limits;
then what a mention shares, read from Discord objects into plain data for the agent."""

from __future__ import annotations

import logging
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.agent.conversation.parts import (
    MissingReason,
    QuoteRelation,
    Shared,
    SharedFile,
    SharedMessage,
)
from bot.i18n import answers, language_of_text
from bot.settings import Settings

log = logging.getLogger(__name__)

# The rate limiter forgets quiet members once it tracks more than this many.
SWEEP_AT_LEAST = 256


class RateLimiter:
    """At most `limit` events per user in a sliding `window` of seconds."""

    def __init__(
        self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._hits: dict[int, deque[float]] = {}
        self._sweep_at = SWEEP_AT_LEAST

    def retry_after(self, user_id: int) -> float:
        """0 when the user may go now (and the hit is counted), else seconds to wait."""
        now = self._clock()
        hits = self._hits.setdefault(user_id, deque())
        while hits and now - hits[0] >= self.window:
            hits.popleft()
        if len(hits) >= self.limit:
            return self.window - (now - hits[0])
        hits.append(now)
        if len(self._hits) > self._sweep_at:
            self._forget_quiet(now)
        return 0.0

    @property
    def tracked(self) -> int:
        """Members with hits still inside the window (or not yet swept)."""
        return len(self._hits)

    def _forget_quiet(self, now: float) -> None:
        """Drop members whose last hit left the window: a member is tracked only while active."""
        quiet = [user for user, hits in self._hits.items() if now - hits[-1] >= self.window]
        for user in quiet:
            del self._hits[user]
        # Amortised: the next sweep waits until the map doubles again.
        self._sweep_at = max(SWEEP_AT_LEAST, 2 * len(self._hits))


def mention_text(message: discord.Message, bot_id: int) -> str:
    """The message text without mentions of the bot (or of its managed role)."""
    text = message.content
    forms = [f"<@{bot_id}>", f"<@!{bot_id}>"]
    own_role = message.guild.self_role if message.guild else None
    if own_role is not None:
        forms.append(f"<@&{own_role.id}>")
    for form in forms:
        text = text.replace(form, " ")
    return " ".join(text.split()) if "\n" not in text else text.strip()


# Characters that show nothing: a mention made only of them says nothing (no model call).
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def says_nothing(text: str) -> bool:
    """True when text has no visible character (spaces, zero-width and other invisible marks)."""
    return all(
        char.isspace()
        or char in _BLANK_LETTERS
        or unicodedata.category(char) in _INVISIBLE_CATEGORIES
        for char in text
    )


@dataclass(frozen=True)
class Refusal:
    """Why a message for us is not answered: a sentence the first time in a window, then only
    a reaction, so a flood cannot fill the channel's send limit with refusals."""

    kind: str
    sentence: str
    reaction: str


@dataclass(frozen=True)
class Verdict:
    """What the gate decided about one message."""

    answer: bool
    text: str = ""
    # For a message that is for us but is not answered now: the sentence to reply with...
    refusal: str | None = None
    # ...or, when the member was already told within the window, only this reaction.
    reaction: str | None = None


class Gate:
    """Decides whether a message is for Otomo and whether it may be answered right now."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.rate_limiter = RateLimiter(settings.user_rate_limit_per_minute, clock=clock)
        self._clock = clock
        # (member, kind of refusal) -> until when a new refusal of that kind gets no sentence.
        self._told: dict[tuple[int, str], float] = {}
        self._sweep_told_at = SWEEP_AT_LEAST

    def check(
        self,
        message: discord.Message,
        me: discord.ClientUser | None,
        *,
        in_bot_thread: bool = False,
        listened: bool = False,
    ) -> Verdict:
        """Ignore what is not for us; refuse (with a sentence, once a window) what breaks a
        limit. In a thread the bot opened, every member's message is for us; in a listening
        channel, a message the listener heard as a question to us (listened)."""
        if me is None or not self.addressed(message, me, in_bot_thread=in_bot_thread or listened):
            return Verdict(False)
        text = mention_text(message, me.id)
        refusal = self._refusal(message, text)
        if refusal is None:
            return Verdict(True, text)
        if self.already_told(message.author.id, refusal.kind):
            return Verdict(False, text, reaction=refusal.reaction)
        return Verdict(False, text, refusal=refusal.sentence)

    def addressed(
        self, message: discord.Message, me: discord.ClientUser, *, in_bot_thread: bool = False
    ) -> bool:
        """Mentions, replies to the bot, DMs (when enabled) and every message in a thread the
        bot opened; never bots or webhooks."""
        if message.author.bot or message.webhook_id is not None or message.author.id == me.id:
            return False
        if in_bot_thread:
            return True
        if message.guild is None:
            return self.settings.respond_in_dms
        if me in message.mentions:
            return True
        # People often pick the bot's managed role from the autocomplete instead of the bot.
        own_role = message.guild.self_role
        if own_role is not None and own_role in message.role_mentions:
            return True
        resolved = message.reference.resolved if message.reference else None
        return isinstance(resolved, discord.Message) and resolved.author.id == me.id

    def already_told(self, user_id: int, kind: str) -> bool:
        """Whether the member got this refusal's sentence within the window (else: now)."""
        now = self._clock()
        if len(self._told) > self._sweep_told_at:
            self._told = {key: until for key, until in self._told.items() if until > now}
            # Amortised, as the rate limiter's: the next sweep waits until the map doubles.
            self._sweep_told_at = max(SWEEP_AT_LEAST, 2 * len(self._told))
        if self._told.get((user_id, kind), float("-inf")) > now:
            return True
        self._told[(user_id, kind)] = now + self.rate_limiter.window
        return False

    def _refusal(self, message: discord.Message, text: str) -> Refusal | None:
        limit = self.settings.max_input_chars
        language = language_of_text(text, self.settings.default_language)
        if says_nothing(text) and not shares_anything(message):
            return Refusal("empty", answers.EMPTY_MENTION(language), "❓")
        if len(text) > limit:
            return Refusal(
                "too_long", answers.TOO_LONG(language, length=len(text), limit=limit), "📏"
            )
        wait = self.rate_limiter.retry_after(message.author.id)
        if wait > 0:
            return Refusal("rate", answers.TOO_FAST(language, seconds=f"{wait:.0f}"), "⏳")
        return None


# What a mention shares.


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
