"""The tool-call card: one embed per call, edited in place as the call changes state."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

import discord

from bot.agent.conversation.messages import RejectionReason
from bot.agent.tools import Tool
from bot.agent.tools.presentation import Label, Look
from bot.discord_ui.cards import wording
from bot.i18n import Language, Text, moment
from bot.text.clip import clip

ARGUMENT_VALUE_LIMIT = 300
RESULT_LIMIT = 900


class CardState(StrEnum):
    """What the card shows."""

    PREPARING = "preparing"
    NEEDS_APPROVAL = "needs_approval"
    # Approved, and waiting until the other calls of the same answer are decided.
    APPROVED_WAITING = "approved_waiting"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    REJECTED = "rejected"
    EXPIRED = "expired"
    INVALIDATED = "invalidated"
    INTERRUPTED = "interrupted"
    # It started, then the process running it stopped: it may or may not have happened.
    UNKNOWN_OUTCOME = "unknown_outcome"
    # Approved, but the name's provider (or definition) changed before it ran.
    CHANGED = "changed"


FINAL_STATES = frozenset(
    {
        CardState.DONE,
        CardState.FAILED,
        CardState.REJECTED,
        CardState.EXPIRED,
        CardState.INVALIDATED,
        CardState.INTERRUPTED,
        CardState.UNKNOWN_OUTCOME,
        CardState.CHANGED,
    }
)

# How a call that did not run ends on its card (the one mapping: runs, clicks and recovery).
REJECTION_STATE: dict[RejectionReason, CardState] = {
    "rejected": CardState.REJECTED,
    "timed_out": CardState.EXPIRED,
    "interrupted": CardState.INTERRUPTED,
    "invalidated": CardState.INVALIDATED,
    "unknown_outcome": CardState.UNKNOWN_OUTCOME,
    "tool_changed": CardState.CHANGED,
    "after_rejection": CardState.INVALIDATED,
    "after_expiry": CardState.INVALIDATED,
    "after_stop": CardState.INVALIDATED,
    "after_shutdown": CardState.INVALIDATED,
}

# Each state's emoji, sentence (in the card's language) and colour.
_LOOK: dict[CardState, tuple[str, Text, discord.Colour]] = {
    CardState.PREPARING: ("⏳", wording.PREPARING, discord.Colour.light_grey()),
    CardState.NEEDS_APPROVAL: ("🔐", wording.NEEDS_APPROVAL, discord.Colour.gold()),
    CardState.APPROVED_WAITING: ("⏳", wording.APPROVED_WAITING_STATE, discord.Colour.gold()),
    CardState.RUNNING: ("⚙️", wording.RUNNING, discord.Colour.blurple()),
    CardState.DONE: ("✅", wording.DONE, discord.Colour.green()),
    CardState.FAILED: ("⚠️", wording.FAILED, discord.Colour.orange()),
    CardState.REJECTED: ("❌", wording.REJECTED, discord.Colour.red()),
    CardState.EXPIRED: ("⌛", wording.EXPIRED, discord.Colour.dark_grey()),
    CardState.INVALIDATED: ("🚫", wording.INVALIDATED, discord.Colour.dark_grey()),
    CardState.INTERRUPTED: ("⏹️", wording.INTERRUPTED, discord.Colour.dark_grey()),
    CardState.UNKNOWN_OUTCOME: ("❔", wording.UNKNOWN_OUTCOME, discord.Colour.dark_grey()),
    CardState.CHANGED: ("🔄", wording.CHANGED, discord.Colour.dark_grey()),
}


def state_line(state: CardState, language: Language) -> str:
    """The line at the top of a card in state, in language."""
    emoji, words, _ = _LOOK[state]
    return f"{emoji} {words(language)}"


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
    # The tool's face for members (None: its name and arguments as sent, tools from outside).
    look: Look | None = None
    # A read-only call: a compact status line, never an approval-style card.
    read_only: bool = False
    # The language of the member the card is for, and the zone their times are written in.
    language: Language = "ja"
    timezone: ZoneInfo | None = None
    # Other calls of the same answer waiting for approval (their titles), listed on this card.
    batch: list[str] = field(default_factory=list)
    # The arguments were changed by a member before the call ran.
    edited: bool = False
    # What the call is about, looked up by its tool (label, value), shown before arguments.
    details: list[tuple[str, str]] = field(default_factory=list)
    # Why the card asks although the member may always allow the tool (untrusted words read).
    because: str | None = None

    def render(self) -> discord.Embed:
        """The embed for the current state (within Discord's embed limits)."""
        emoji, _, colour = _LOOK[self.state]
        say = self.language
        if self.read_only and self.look is not None:
            return discord.Embed(colour=colour, description=self._status_line(emoji))
        title = f"🔧 {self.look.title.form(say)}" if self.look else f"🔧 {self.name}"
        line = state_line(self.state, say)
        embed = discord.Embed(title=clip(title, 256), colour=colour, description=line)
        if self.source:
            embed.add_field(
                name=wording.PROVIDED_BY(say),
                value=f"`{clip(self.source, 100)}` {wording.EXTERNAL_TOOL(say)}",
                inline=False,
            )
        for label, value in self.details[:5]:
            embed.add_field(name=clip(label, 256), value=clip(value, 1024), inline=False)
        if self.arguments:
            if self.look is None:
                embed.add_field(
                    name=wording.ARGUMENTS(say),
                    value=format_arguments(self.arguments),
                    inline=False,
                )
            else:
                for label, value in self._labelled():
                    embed.add_field(name=label, value=value, inline=False)
        if self.state == CardState.NEEDS_APPROVAL and self.requester_id:
            line = wording.WAITING_FOR(say, who=f"<@{self.requester_id}>")
            if self.expires_at:
                line += wording.EXPIRES(say, when=moment(self.expires_at, "R"))
            embed.add_field(name=wording.APPROVAL(say), value=line, inline=False)
            if self.because:
                embed.add_field(
                    name=wording.WHY_ASKED(say), value=clip(self.because, 1024), inline=False
                )
            if self.batch:
                listed = "\n".join(f"• {clip(t, 100)}" for t in self.batch[:10])
                embed.add_field(
                    name=wording.ALSO_WAITING(say), value=clip(listed, 1024), inline=False
                )
        if self.state in (CardState.DONE, CardState.FAILED) and self.result is not None:
            said = self._result_sentence()
            if said:
                embed.add_field(name=wording.RESULT(say), value=said, inline=False)
        if self.detail:
            embed.add_field(name=wording.REASON(say), value=clip(self.detail, 500), inline=False)
        if self.decided_by:
            # A mention inside an embed pings nobody; a footer would show its raw id.
            embed.add_field(
                name=wording.DECIDED_BY(say), value=f"<@{self.decided_by}>", inline=False
            )
        return embed

    def gist(self, arguments: dict[str, Any]) -> str:
        """The call of a tool with arguments in one line, for a list of calls: its title and
        its first shown values, so two calls of one tool can be told apart."""
        title = self.look.title.form(self.language) if self.look else self.name
        if self.look is not None:
            values = [value for _, value in replace(self, arguments=arguments)._labelled()]
        else:
            values = [_one_line(value) for value in arguments.values()]
        about = " · ".join(value for value in values[:2] if value)
        return f"{title} — {clip(about, 80, flatten=True)}" if about else title

    def _status_line(self, emoji: str) -> str:
        """A read-only call in one line: what it does, then what it found."""
        assert self.look is not None
        doing = (self.look.doing or self.look.title).form(self.language)
        if self.state == CardState.DONE:
            said = self.look.summary(self.result, self.language) if self.look.summary else None
            return f"✅ {said or wording.DONE_LINE(self.language, doing=doing)}"
        if self.state in (CardState.PREPARING, CardState.RUNNING):
            return f"⚙️ {wording.RUNNING_LINE(self.language, doing=doing)}"
        if self.state == CardState.FAILED:
            return f"{emoji} {wording.FAILED_LINE(self.language, doing=doing)}"
        return f"{emoji} {doing}"

    def _labelled(self) -> list[tuple[str, str]]:
        """The labelled arguments as members read them; the rest is for the model."""
        assert self.look is not None and self.arguments is not None
        shown: list[tuple[str, str]] = []
        for key, label in self.look.labels.items():
            value = self.arguments.get(key)
            if value is None or isinstance(value, bool) or label.kind == "hidden":
                continue
            text = self._value(value, label)
            if text:
                name = label.words.form(self.language)
                if self.edited:
                    name += wording.EDITED(self.language)
                shown.append((name, clip(text, ARGUMENT_VALUE_LIMIT)))
        return shown

    def _value(self, value: Any, label: Label) -> str | None:
        if label.render is not None:
            return label.render(value, self.language)
        if label.kind == "time":
            instant = _instant(value, self.timezone)
            return moment(instant) if instant is not None else str(value)
        if label.kind == "member":
            return f"<@{value}>" if str(value).isdigit() else str(value)
        if isinstance(value, (dict, list)):
            return json.dumps(value, ensure_ascii=False)
        return str(value)

    def _result_sentence(self) -> str | None:
        if self.look is None or self.source is not None:
            # A tool from outside: its answer as today, since the bot cannot word it.
            return summarize_result(self.result)
        if self.state == CardState.FAILED:
            # The error is written for the model; the member reads why in its reply.
            return wording.DIDNT_WORK(self.language)
        said = self.look.summary(self.result, self.language) if self.look.summary else None
        return clip(said, 1024) if said else None


def _instant(value: Any, timezone: ZoneInfo | None) -> datetime | None:
    """An ISO local time (naive: in the member's zone) as an aware instant."""
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        if timezone is None:
            return None
        parsed = parsed.replace(tzinfo=timezone)
    return parsed


def dressed(card: ToolCard, found: Tool | None) -> ToolCard:
    """The card with its tool's face: look, read-only, and a provider only for tools from
    outside (the bot's own tools are never labelled external)."""
    if found is None:
        return card
    card.look = found.look
    card.read_only = found.read_only
    if found.provider is None:
        card.source = None
    return card


def _one_line(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def format_arguments(arguments: dict[str, Any]) -> str:
    """`key: value` lines, readable rather than raw JSON."""
    lines = []
    for key, value in arguments.items():
        lines.append(f"**{key}**: {clip(_one_line(value), ARGUMENT_VALUE_LIMIT)}")
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
