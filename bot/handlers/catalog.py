"""The handlers: each is a system prompt plus a tool set, built from what the features offer
(their handlers, tools and sections) around the shared general handler.

A prompt has two parts (see `Prompt`): the stable part (the shared rules, the handler's own
text, the features' instructions) and the context (what matches this message, and the time,
last). Only the context changes from one message to the next, so a provider's prefix cache
keeps the stable part, the tools and the history.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace

from bot.agent.conversation.fences import RULE as FENCE_RULE
from bot.agent.loop import Handler, PromptInput
from bot.agent.runs import Prompt
from bot.handlers import router
from bot.handlers.spec import CONVERSATION, HandlerSpec

Section = Callable[[PromptInput], Awaitable[str]]

WEEKDAYS_JA = "月火水木金土日"

BASE_RULES = (
    "You are Otomo (お供), a companion bot on the Discord server of a Japanese-speaking "
    "community.\n"
    "- Reply in the member's language (Japanese by default), friendly and brief, in Discord "
    "markdown, under about 1,500 characters unless asked for more.\n"
    "- Never write @everyone or @here, never mention roles.\n"
    "- Say plainly when a tool call was rejected or failed; retry a rejected call only when "
    "the member asks again.\n"
    "- Never invent facts about this server.\n"
    f"- {FENCE_RULE}"
)


def now_line(prompt: PromptInput) -> str:
    """The current local date, time, weekday and zone, which the model needs for dates (who
    speaks is in the messages: each starts with its author's name)."""
    local = prompt.local_now
    weekday = WEEKDAYS_JA[local.weekday()]
    return f"Now: {local:%Y-%m-%d} ({weekday}) {local:%H:%M} {prompt.timezone.key}"


def joined(*sections: str) -> str:
    """Sections one after another, empty ones skipped."""
    return "\n\n".join(s.strip() for s in sections if s and s.strip())


def compose(prompt: PromptInput, stable: Sequence[str], context: Sequence[str] = ()) -> Prompt:
    """The base rules and the handler's stable sections; the context sections, then the time."""
    return Prompt(joined(BASE_RULES, *stable), joined(*context, now_line(prompt)))


GENERAL_TEXT = (
    "You answer questions about this server and anything else. Prefer the knowledge base; "
    "when it has nothing, say so and offer a web search if that tool is available."
)
GENERAL_HANDLER = HandlerSpec(router.GENERAL, GENERAL_TEXT, role="default")


@dataclass
class HandlerParts:
    """What the features contribute: their handlers, and tool names, stable prompt sections and
    context sections per handler."""

    handlers: list[HandlerSpec] = field(default_factory=list)
    tools: dict[str, list[str]] = field(default_factory=dict)
    sections: dict[str, list[Section]] = field(default_factory=dict)
    contexts: dict[str, list[Section]] = field(default_factory=dict)

    def add_handler(self, handler: HandlerSpec) -> None:
        """A feature's handler, built beside the general one."""
        self.handlers.append(handler)

    def add_tools(self, handler: str, names: Sequence[str]) -> None:
        """Offer these tools in a handler (order kept, duplicates ignored)."""
        current = self.tools.setdefault(handler, [])
        current.extend(n for n in names if n not in current)

    def add_section(self, handler: str, section: Section) -> None:
        """Add a stable prompt section to a handler ("*" for every handler): text that changes
        only with the server's settings, the knowledge base or the day."""
        self.sections.setdefault(handler, []).append(section)

    def add_context(self, handler: str, section: Section) -> None:
        """Add a context section to a handler ("*" for every handler): text that depends on
        the message (excerpts, notes, topics)."""
        self.contexts.setdefault(handler, []).append(section)


def _static(text: str) -> Section:
    async def section(_: PromptInput) -> str:
        return text

    return section


def build_handlers(parts: HandlerParts) -> dict[str, Handler]:
    """The general handler and the features' with their prompts and tools, and the runner-up
    variants (see with_runner_ups)."""
    handlers: dict[str, Handler] = {}
    for spec in (GENERAL_HANDLER, *parts.handlers):
        # What features added to "the conversation handler" comes after what they added to
        # it by name.
        targets = [spec.name, *([CONVERSATION] if spec.role == "conversation" else []), "*"]
        stable = [_static(spec.text), *(s for t in targets for s in parts.sections.get(t, []))]
        context = [s for t in targets for s in parts.contexts.get(t, [])]
        tools: list[str] = []
        for target in targets[:-1]:
            tools.extend(n for n in parts.tools.get(target, []) if n not in tools)

        async def instructions(
            prompt: PromptInput,
            stable: list[Section] = stable,
            context: list[Section] = context,
        ) -> Prompt:
            return compose(
                prompt,
                [await section(prompt) for section in stable],
                [await section(prompt) for section in context],
            )

        handlers[spec.name] = Handler(spec.name, instructions, tuple(tools))
    return with_runner_ups(handlers, [h.name for h in parts.handlers if h.role == "tools"])


def with_runner_ups(handlers: dict[str, Handler], tools: Sequence[str]) -> dict[str, Handler]:
    """Each handler but general also as `chat+reminder`, `weather+reminder`…: the same prompt and
    name (for tool scopes and logs), with the runner-up tool handler's tools added.

    The router picks one when a tool handler scored without winning; the run request keeps the
    key, so a run resumed after an approval offers the same tools. General offers every tool
    handler's tools already."""
    combined = dict(handlers)
    for name, handler in handlers.items():
        if name == router.GENERAL:
            continue
        for also in tools:
            if also == name or also not in handlers:
                continue
            extra = tuple(t for t in handlers[also].tools if t not in handler.tools)
            combined[router.handler_key(name, also)] = replace(handler, tools=handler.tools + extra)
    return combined
