"""Posting due reminders: the Discord side of the reminder delivery engine."""

from __future__ import annotations

import logging

import aiohttp
import discord

from bot.discord_ui.reminder_buttons import reminder_view
from bot.reminders.sending import DeliveryRejected, DeliveryRetryable, ReminderDelivery

log = logging.getLogger(__name__)

REMINDER_COLOUR = discord.Colour.from_rgb(255, 170, 60)


def reminder_embed(delivery: ReminderDelivery) -> discord.Embed:
    """The delivered reminder: its content, when it was due, repeat and lateness notes."""
    embed = discord.Embed(title="⏰ リマインド / Reminder", description=delivery.content,
                          colour=REMINDER_COLOUR)
    notes = [f"{delivery.due_text} の予定"]
    if delivery.late_text:
        notes.append(f"({delivery.late_text} / late by {delivery.late_text.removesuffix('遅れ')})")
    if delivery.repeat_text:
        notes.append(f"🔁 {delivery.repeat_text}")
    embed.add_field(name="予定 / When", value="\n".join(notes), inline=False)
    if delivery.origin_url:
        embed.add_field(name="元のメッセージ / Request",
                        value=f"[ジャンプ / Jump]({delivery.origin_url})", inline=False)
    return embed


class DiscordReminderSender:
    """Implements ReminderSender: posts in the origin channel, pinging only the requester."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def send(self, delivery: ReminderDelivery) -> int:
        """Post one occurrence with its deterministic nonce; map failures for the engine."""
        if not self.client.is_ready():
            raise DeliveryRetryable(5.0, "the Discord client is not ready yet")
        channel = self.client.get_partial_messageable(delivery.channel_id)
        try:
            message = await channel.send(
                content=f"<@{delivery.user_id}>",
                embed=reminder_embed(delivery),
                view=reminder_view(delivery.reminder_id),
                nonce=delivery.nonce,
                allowed_mentions=discord.AllowedMentions(
                    everyone=False, roles=False, users=[discord.Object(delivery.user_id)]
                ),
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            raise DeliveryRejected(f"{exc.status} {exc.text or 'refused'}") from exc
        except discord.HTTPException as exc:
            if exc.status == 429 or exc.status >= 500:
                raise DeliveryRetryable(None, f"Discord answered {exc.status}") from exc
            raise DeliveryRejected(f"{exc.status} {exc.text}") from exc
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise DeliveryRetryable(None, f"network error: {exc!r}") from exc
        return message.id

    async def notify_owner(self, delivery: ReminderDelivery, reason: str) -> None:
        """Tell the requester by DM that a reminder could not be delivered."""
        text = (
            f"リマインド「{delivery.content}」を <#{delivery.channel_id}> に投稿できませんでした"
            f"（{reason}）。チャンネルの権限を確認するか、別のチャンネルで登録し直してください。\n"
            f"I could not post your reminder \"{delivery.content}\" in <#{delivery.channel_id}> "
            f"({reason}). Check the channel's permissions or set it again elsewhere."
        )
        try:
            user = self.client.get_user(delivery.user_id) or await self.client.fetch_user(
                delivery.user_id
            )
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("Could not DM user %s about failed reminder %s: %s", delivery.user_id,
                        delivery.reminder_id, exc.status)
