"""The handlers: each is a system prompt (shared rules, the current time, its own sections) plus
a tool set, built from what the features offer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace

from bot.agent.conversation.fences import RULE as FENCE_RULE
from bot.agent.loop import Handler, PromptInput
from bot.handlers import router

Section = Callable[[PromptInput], Awaitable[str]]

WEEKDAYS_JA = "月火水木金土日"

BASE_RULES = (
    "あなたは Discord サーバーの相棒ボット「Otomo（お供）」です。"
    "You are Otomo, a companion bot on a Discord server for a Japanese-speaking community.\n"
    "- Reply in the language the user wrote in (Japanese by default), friendly and brief.\n"
    "- Use Discord markdown. Keep answers under about 1,500 characters unless asked for more.\n"
    "- Never write @everyone or @here and never mention roles.\n"
    "- When a tool call is rejected or fails, say so plainly; do not retry a rejected call "
    "unless the user asks again.\n"
    "- Do not invent facts about this server: use the knowledge base when it is offered.\n"
    f"- {FENCE_RULE}"
)


def now_line(prompt: PromptInput) -> str:
    """The current local date, time, weekday and zone, which the model needs for dates."""
    local = prompt.local_now
    weekday = WEEKDAYS_JA[local.weekday()]
    return (
        f"現在日時 / Now: {local:%Y-%m-%d} ({weekday}, {local:%A}) {local:%H:%M}, "
        f"time zone {prompt.timezone.key}. The user is {prompt.user_name}."
    )


def compose(prompt: PromptInput, *sections: str) -> str:
    """Base rules, the current time, then the handler's own sections (empty ones skipped)."""
    parts = [BASE_RULES, now_line(prompt), *[s.strip() for s in sections if s and s.strip()]]
    return "\n\n".join(parts)


GENERAL_TEXT = (
    "You handle general questions about this server and anything else. Prefer the knowledge "
    "base; when it has nothing, say so and offer a web search if that tool is available."
)
REMINDER_TEXT = "You manage the user's reminders with your tools."
WEATHER_TEXT = "You are a friendly weather forecaster; name the place and the day you answer for."
CHAT_TEXT = "Chat playfully and briefly, like a friend in the server."


@dataclass
class HandlerParts:
    """What the features contribute: tool names and prompt sections per handler."""

    tools: dict[str, list[str]] = field(default_factory=dict)
    sections: dict[str, list[Section]] = field(default_factory=dict)

    def add_tools(self, handler: str, names: Sequence[str]) -> None:
        """Offer these tools in a handler (order kept, duplicates ignored)."""
        current = self.tools.setdefault(handler, [])
        current.extend(n for n in names if n not in current)

    def add_section(self, handler: str, section: Section) -> None:
        """Add a prompt section to a handler ("*" for every handler)."""
        self.sections.setdefault(handler, []).append(section)


def _static(text: str) -> Section:
    async def section(_: PromptInput) -> str:
        return text

    return section


def build_handlers(parts: HandlerParts) -> dict[str, Handler]:
    """The four handlers with their prompts and tools, and the runner-up variants (see
    with_runner_ups)."""
    defaults = {
        router.GENERAL: GENERAL_TEXT,
        router.REMINDER: REMINDER_TEXT,
        router.WEATHER: WEATHER_TEXT,
        router.CHAT: CHAT_TEXT,
    }
    handlers: dict[str, Handler] = {}
    for name, text in defaults.items():
        sections = [_static(text), *parts.sections.get(name, []), *parts.sections.get("*", [])]

        async def instructions(prompt: PromptInput, sections: list[Section] = sections) -> str:
            return compose(prompt, *[await section(prompt) for section in sections])

        handlers[name] = Handler(name, instructions, tuple(parts.tools.get(name, [])))
    return with_runner_ups(handlers)


def with_runner_ups(handlers: dict[str, Handler]) -> dict[str, Handler]:
    """Each handler but general also as `chat+reminder`, `weather+reminder`…: the same prompt and
    name (for tool scopes and logs), with the runner-up tool handler's tools added.

    The router picks one when a tool handler scored without winning; the run request keeps the
    key, so a run resumed after an approval offers the same tools. General offers every tool
    handler's tools already."""
    combined = dict(handlers)
    for name, handler in handlers.items():
        if name == router.GENERAL:
            continue
        for also in router.TOOL_HANDLERS:
            if also == name or also not in handlers:
                continue
            extra = tuple(t for t in handlers[also].tools if t not in handler.tools)
            combined[router.handler_key(name, also)] = replace(handler, tools=handler.tools + extra)
    return combined
