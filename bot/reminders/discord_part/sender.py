"""Posting due reminders: the Discord side of the reminder delivery engine."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import discord

from bot.discord_ui.sends import classify, only
from bot.i18n import LANGUAGES, Language, moment, posts
from bot.reminders.delivery.sender import ASK, EXPIRE, ReminderDelivery
from bot.reminders.discord_part.buttons import consent_view, reminder_view
from bot.runtime.send_failures import RetryableSendError
from bot.schedule.times import ENGLISH_UNITS, duration_text
from bot.servers.directory import ServerDirectory
from bot.text.clip import clip

log = logging.getLogger(__name__)

REMINDER_COLOUR = discord.Colour.from_rgb(255, 170, 60)
# The text next to the mention is what a phone notification shows; the embed has it all.
PREVIEW_CHARS = 120
# The failure DM quotes the reminder; keep it well inside Discord's 2,000 characters.
DM_QUOTE_CHARS = 300
# When the client is not connected (starting, closing), look again this soon.
NOT_READY_RETRY_SECONDS = 5.0


def english_duration(delta: timedelta) -> str:
    """A rounded duration for the English half of a message: `45 s`, `1 h 5 min`, `2 d 3 h`."""
    return duration_text(delta, ENGLISH_UNITS)


def reminder_content(delivery: ReminderDelivery) -> str:
    """The message text: the mention (the only ping; none in a channel's reminder) and a
    one-line preview."""
    preview = f"⏰ {clip(delivery.content, PREVIEW_CHARS, flatten=True)}"
    return preview if delivery.to_channel else f"<@{delivery.recipient_id}> {preview}"


def reminder_mentions(delivery: ReminderDelivery) -> discord.AllowedMentions:
    """Who the reminder may ping: the member it is for; no one in a channel's reminder."""
    return discord.AllowedMentions.none() if delivery.to_channel else only(delivery.recipient_id)


def reminder_embed(delivery: ReminderDelivery, language: Language = "ja") -> discord.Embed:
    """The delivered reminder: its content, when it was due, lateness, repeat and origin."""
    embed = discord.Embed(
        title=posts.REMINDER_TITLE(language),
        description=delivery.content,
        colour=REMINDER_COLOUR,
        # Discord shows this in each reader's own time zone.
        timestamp=delivery.due_at,
    )
    japanese = language == "ja"
    # In English, a Discord timestamp: each reader sees it in their own zone and words.
    due = delivery.due_text if japanese else moment(delivery.due_at)
    when = [posts.REMINDER_DUE(language, when=due)]
    if delivery.late_by is not None and delivery.late_text:
        late = duration_text(delivery.late_by) if japanese else english_duration(delivery.late_by)
        when.append(posts.REMINDER_LATE(language, late=late))
    embed.add_field(name=posts.REMINDER_WHEN(language), value="\n".join(when), inline=False)
    repeat = delivery.repeat_text if japanese else delivery.repeat_text_en
    if repeat:
        embed.add_field(name=posts.REMINDER_REPEATS(language), value=f"🔁 {repeat}", inline=False)
    if delivery.origin_url:
        embed.add_field(
            name=posts.REMINDER_ORIGIN(language),
            value=f"[{posts.REMINDER_JUMP(language)}]({delivery.origin_url})",
            inline=False,
        )
    if delivery.target_user_id is not None or delivery.to_channel:
        embed.add_field(
            name=posts.REMINDER_FROM(language), value=f"<@{delivery.asker_id}>", inline=False
        )
    embed.set_footer(text=f"#{delivery.reminder_id}")
    return embed


def consent_request(delivery: ReminderDelivery, language: Language) -> str:
    """The request to the member a reminder is for, mentioning them."""
    return posts.CONSENT_REQUEST(
        language,
        target=delivery.recipient_id,
        asker=delivery.user_display_name,
        when=moment(delivery.due_at),
        what=clip(delivery.content, PREVIEW_CHARS, flatten=True),
    )


def consent_expired(delivery: ReminderDelivery, language: Language) -> str:
    """The word to the asker that the member did not accept in time (the mention of the
    member shows their name; only the asker is pinged)."""
    return posts.CONSENT_EXPIRED(
        language,
        asker=delivery.asker_id,
        target=delivery.recipient_id,
        what=clip(delivery.content, PREVIEW_CHARS, flatten=True),
    )


class DiscordReminderSender:
    """Implements ReminderSender: posts in the origin channel, pinging only the requester."""

    def __init__(self, client: discord.Client, servers: ServerDirectory) -> None:
        self.client = client
        self.servers = servers

    async def language(self, delivery: ReminderDelivery) -> Language:
        """The language of the request that made the reminder, else the server's default."""
        for language in LANGUAGES:
            if delivery.language == language:
                return language
        return await self.servers.post_language(delivery.guild_id)

    async def send(self, delivery: ReminderDelivery) -> int:
        """Post one occurrence with its deterministic nonce; map failures for the engine."""
        # REST works once the gateway said READY (user is set); on_ready comes seconds later.
        if self.client.user is None or self.client.is_closed():
            raise RetryableSendError("the Discord client is not connected", NOT_READY_RETRY_SECONDS)
        channel = self.client.get_partial_messageable(delivery.channel_id)
        language = await self.language(delivery)
        post: dict[str, Any]
        if delivery.step == ASK:
            # In the channel it was asked in, mentioning the member: it reaches them even
            # with their DMs closed, and the asker sees the answer stamped on it.
            post = {
                "content": consent_request(delivery, language),
                "view": consent_view(delivery.reminder_id, language),
                "allowed_mentions": only(delivery.recipient_id),
            }
        elif delivery.step == EXPIRE:
            post = {
                "content": consent_expired(delivery, language),
                "allowed_mentions": only(delivery.asker_id),
            }
        else:
            post = {
                "content": reminder_content(delivery),
                "embed": reminder_embed(delivery, language),
                "view": reminder_view(delivery.reminder_id, language),
                "allowed_mentions": reminder_mentions(delivery),
            }
        try:
            # Discord drops a second message with this nonce: a resend after a crash between
            # posting and recording cannot post twice.
            message = await channel.send(nonce=delivery.nonce, **post)
        except Exception as exc:
            failure = classify(exc)
            if failure is None and self.client.is_closed():
                # The bot is shutting down under this send; not the channel's fault.
                raise RetryableSendError("the bot was closing", NOT_READY_RETRY_SECONDS) from exc
            if failure is None:
                raise
            raise failure from exc
        return message.id

    async def notify_owner(self, delivery: ReminderDelivery, reason: str) -> None:
        """Tell the requester by DM that a reminder could not be delivered, and what to do."""
        quoted = clip(delivery.content, DM_QUOTE_CHARS, flatten=True)
        language = await self.language(delivery)
        text = posts.REMINDER_NOT_POSTED(
            language,
            quoted=quoted,
            reminder_id=delivery.reminder_id,
            when=delivery.due_text if language == "ja" else moment(delivery.due_at),
            channel=f"<#{delivery.channel_id}>",
            reason=reason,
        )
        try:
            user = self.client.get_user(delivery.user_id) or await self.client.fetch_user(
                delivery.user_id
            )
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            # Members can close their DMs; the failure stays visible in the row and the log.
            log.warning(
                "Could not DM user %s about failed reminder %s: %s %s",
                delivery.user_id,
                delivery.reminder_id,
                exc.status,
                exc.text,
            )
