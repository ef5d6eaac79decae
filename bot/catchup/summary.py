"""A catch-up from plain messages: the model's request (others' words fenced, numbered) and
its answer with each cited number turned into a link to the message."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.agent.conversation.fences import RULE, fence
from bot.i18n import Language

# One message's text is clipped to this in the request: a catch-up reads many.
MESSAGE_CHARS = 600
# All messages' text together stays below this (about 15,000 tokens), whatever the cap: the
# newest messages are kept, so a small model's context still holds the request.
REQUEST_CHARS = 48_000
# The answer is shown in an embed's description (Discord: 4,096 characters).
ANSWER_CHARS = 4000
_CITATION = re.compile(r"\[(?:#)?(\d{1,4})\]")

INSTRUCTIONS = (
    "You write a private catch-up for a member of a Discord server: what they missed in one "
    "channel, from the numbered messages below (oldest first). {language} "
    "Write 2 to 8 short bullet points (\u2022), the most important first: decisions, questions "
    "to them or everyone, plans, dates, links shared. Skip greetings and chatter. End every "
    "point with the numbers of the messages it comes from, each as [n] (for example [3][7]). "
    "Use only these messages; say nothing you cannot cite. " + RULE
)
IN_LANGUAGE = {
    "ja": "Write in Japanese.",
    "en": "Write in English.",
}


@dataclass(frozen=True)
class Said:
    """One message of the channel, as the catch-up reads it."""

    author: str
    text: str
    url: str
    at: datetime
    by_bot: bool = False


def newest_within(messages: list[Said], limit: int = REQUEST_CHARS) -> tuple[list[Said], bool]:
    """The newest messages (oldest first) whose clipped text fits in limit; whether any
    older ones were left out."""
    kept: list[Said] = []
    total = 0
    for message in reversed(messages):
        total += min(len(message.text), MESSAGE_CHARS)
        if total > limit and kept:
            return list(reversed(kept)), True
        kept.append(message)
    return list(reversed(kept)), False


def request(messages: list[Said], language: Language, tz: ZoneInfo) -> list[dict[str, Any]]:
    """The model's messages: the instructions, then every message fenced with its number."""
    lines = [
        fence(
            "said",
            m.text,
            limit=MESSAGE_CHARS,
            n=str(number),
            by=f"{m.author} (bot)" if m.by_bot else m.author,
            at=m.at.astimezone(tz).strftime("%m-%d %H:%M"),
        )
        for number, m in enumerate(messages, start=1)
    ]
    return [
        {"role": "system", "content": INSTRUCTIONS.format(language=IN_LANGUAGE[language])},
        {"role": "user", "content": "\n".join(lines)},
    ]


def with_links(answer: str, messages: list[Said]) -> str:
    """The answer with each [n] a link to message n (numbers out of range are dropped); when
    the model cited nothing, the first and last messages are linked at the end."""
    cited = False

    def link(found: re.Match[str]) -> str:
        nonlocal cited
        number = int(found.group(1))
        if not 1 <= number <= len(messages):
            return ""
        cited = True
        return f"[[{number}]](<{messages[number - 1].url}>)"

    linked = _CITATION.sub(link, answer.strip())
    if not cited and messages:
        first, last = messages[0], messages[-1]
        ends = f"[[1]](<{first.url}>)"
        if len(messages) > 1:
            ends += f" … [[{len(messages)}]](<{last.url}>)"
        linked = f"{linked}\n\n{ends}"
    return linked
