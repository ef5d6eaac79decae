"""Posting due reminders: the Discord side of the reminder delivery engine."""

from __future__ import annotations

import logging
from datetime import timedelta

import discord

from bot.discord_ui.reminders.buttons import reminder_view
from bot.discord_ui.sends import classify, only
from bot.reminders.delivery.sender import ReminderDelivery
from bot.reminders.times import ENGLISH_UNITS, duration_text
from bot.runtime.send_failures import RetryableSendError
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
    """The message text: the mention (the only ping) and a one-line preview."""
    return f"<@{delivery.user_id}> ⏰ {clip(delivery.content, PREVIEW_CHARS, flatten=True)}"


def reminder_embed(delivery: ReminderDelivery) -> discord.Embed:
    """The delivered reminder: its content, when it was due, lateness, repeat and origin."""
    embed = discord.Embed(
        title="⏰ リマインド / Reminder",
        description=delivery.content,
        colour=REMINDER_COLOUR,
        # Discord shows this in each reader's own time zone.
        timestamp=delivery.due_at,
    )
    when = [f"{delivery.due_text} の予定"]
    if delivery.late_by is not None and delivery.late_text:
        when.append(
            f"（{delivery.late_text}でのお届けです / late by {english_duration(delivery.late_by)}）"
        )
    embed.add_field(name="予定 / When", value="\n".join(when), inline=False)
    if delivery.repeat_text:
        embed.add_field(name="繰り返し / Repeats", value=f"🔁 {delivery.repeat_text}", inline=False)
    if delivery.origin_url:
        embed.add_field(
            name="元のメッセージ / Original request",
            value=f"[ジャンプ / Jump]({delivery.origin_url})",
            inline=False,
        )
    embed.set_footer(text=f"#{delivery.reminder_id}")
    return embed


class DiscordReminderSender:
    """Implements ReminderSender: posts in the origin channel, pinging only the requester."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def send(self, delivery: ReminderDelivery) -> int:
        """Post one occurrence with its deterministic nonce; map failures for the engine."""
        # REST works once the gateway said READY (user is set); on_ready comes seconds later.
        if self.client.user is None or self.client.is_closed():
            raise RetryableSendError("the Discord client is not connected", NOT_READY_RETRY_SECONDS)
        channel = self.client.get_partial_messageable(delivery.channel_id)
        try:
            message = await channel.send(
                content=reminder_content(delivery),
                embed=reminder_embed(delivery),
                view=reminder_view(delivery.reminder_id),
                # Discord drops a second message with this nonce: a resend after a crash
                # between posting and recording cannot post twice.
                nonce=delivery.nonce,
                allowed_mentions=only(delivery.user_id),
            )
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
        text = (
            f"⚠️ リマインド「{quoted}」（#{delivery.reminder_id}、{delivery.due_text}）を "
            f"<#{delivery.channel_id}> に投稿できませんでした（{reason}）。"
            "チャンネルでの私の権限（メッセージの送信・埋め込みリンク）を確認するか、"
            "別のチャンネルでもう一度頼んでください。\n"
            f'I could not post your reminder "{quoted}" (#{delivery.reminder_id}) in '
            f"<#{delivery.channel_id}> ({reason}). Check that I may send messages and embed "
            "links there, or ask me again in another channel."
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
