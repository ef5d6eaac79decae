"""The tool-call card: one embed per call, edited in place as the call changes state."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

import discord

from bot.text.clip import clip

ARGUMENT_VALUE_LIMIT = 300
RESULT_LIMIT = 900


class CardState(StrEnum):
    """What the card shows."""

    PREPARING = "preparing"
    NEEDS_APPROVAL = "needs_approval"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    REJECTED = "rejected"
    EXPIRED = "expired"
    INVALIDATED = "invalidated"
    INTERRUPTED = "interrupted"
    # It started, then the process running it stopped: it may or may not have happened.
    UNKNOWN_OUTCOME = "unknown_outcome"


FINAL_STATES = frozenset(
    {
        CardState.DONE,
        CardState.FAILED,
        CardState.REJECTED,
        CardState.EXPIRED,
        CardState.INVALIDATED,
        CardState.INTERRUPTED,
        CardState.UNKNOWN_OUTCOME,
    }
)

_LOOK: dict[CardState, tuple[str, discord.Colour]] = {
    CardState.PREPARING: ("⏳ 準備中… / preparing", discord.Colour.light_grey()),
    CardState.NEEDS_APPROVAL: ("🔐 承認待ち / needs approval", discord.Colour.gold()),
    CardState.RUNNING: ("⚙️ 実行中… / running", discord.Colour.blurple()),
    CardState.DONE: ("✅ 完了 / done", discord.Colour.green()),
    CardState.FAILED: ("⚠️ 失敗 / failed", discord.Colour.orange()),
    CardState.REJECTED: ("❌ 却下 / rejected", discord.Colour.red()),
    CardState.EXPIRED: ("⌛ 期限切れ / expired — nothing was run", discord.Colour.dark_grey()),
    CardState.INVALIDATED: ("🚫 無効 / cancelled — nothing was run", discord.Colour.dark_grey()),
    CardState.INTERRUPTED: ("⏹️ 中断 / stopped", discord.Colour.dark_grey()),
    CardState.UNKNOWN_OUTCOME: (
        "❔ 結果不明 / started — the bot restarted before it finished; the outcome is unknown",
        discord.Colour.dark_grey(),
    ),
}


@dataclass
class ToolCard:
    """Everything a card displays; render() turns it into an embed."""

    name: str
    state: CardState = CardState.PREPARING
    arguments: dict[str, Any] | None = None
    result: Any = None
    detail: str | None = None
    requester_id: int | None = None
    expires_at: datetime | None = None
    decided_by: int | None = None
    approval_id: int | None = None
    notes: list[str] = field(default_factory=list)
    # A tool from outside the bot: who provides it, so the approver knows whom they trust.
    source: str | None = None

    def render(self) -> discord.Embed:
        """The embed for the current state (within Discord's embed limits)."""
        title, colour = _LOOK[self.state]
        embed = discord.Embed(title=f"🔧 {self.name}", colour=colour, description=title)
        if self.source:
            embed.add_field(
                name="提供元 / provided by",
                value=f"`{clip(self.source, 100)}` (外部ツール / external tool)",
                inline=False,
            )
        if self.arguments:
            embed.add_field(
                name="引数 / arguments", value=format_arguments(self.arguments), inline=False
            )
        if self.state == CardState.NEEDS_APPROVAL and self.requester_id:
            line = f"<@{self.requester_id}> の承認が必要です / approval needed"
            if self.expires_at:
                line += f" (期限 {discord.utils.format_dt(self.expires_at, 'R')})"
            embed.add_field(name="承認 / approval", value=line, inline=False)
        if self.state in (CardState.DONE, CardState.FAILED) and self.result is not None:
            embed.add_field(name="結果 / result", value=summarize_result(self.result), inline=False)
        if self.detail:
            embed.add_field(name="理由 / reason", value=clip(self.detail, 500), inline=False)
        if self.decided_by:
            embed.set_footer(text=f"decided by user {self.decided_by}")
        return embed


def format_arguments(arguments: dict[str, Any]) -> str:
    """`key: value` lines, readable rather than raw JSON."""
    lines = []
    for key, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"**{key}**: {clip(str(shown), ARGUMENT_VALUE_LIMIT)}")
    return clip("\n".join(lines), 1024)


def summarize_result(result: Any) -> str:
    """A short human summary of a tool result."""
    if isinstance(result, str):
        text = result
    elif isinstance(result, dict) and isinstance(result.get("summary"), str):
        text = result["summary"]
    elif isinstance(result, dict):
        text = "\n".join(
            f"**{k}**: {clip(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False), 200)}"
            for k, v in list(result.items())[:8]
        )
    elif isinstance(result, list):
        text = f"{len(result)} items" + (
            ": " + ", ".join(clip(json.dumps(x, ensure_ascii=False), 80) for x in result[:3])
            if result
            else ""
        )
    else:
        text = json.dumps(result, ensure_ascii=False, default=str)
    return clip(text, min(RESULT_LIMIT, 1024))
