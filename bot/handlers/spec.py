"""What a feature's handler is: its name, its own text, the cues that route to it, its role."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.handlers.shapes import Cue

# What a feature adds to "the conversation handler" (chat) whichever feature provides it: a
# target for AppBuilder.add_tools, add_section and add_context beside handler names and "*".
CONVERSATION = "~conversation"

# A tool handler (reminder, weather) wins with enough score and more than any other handler,
# and lends its tools to the others as a runner-up; the conversation handler (chat) wins over
# the general one by outscoring it and takes remarks that match nothing; the default (general,
# bot/handlers' own) takes the rest.
Role = Literal["tools", "conversation", "default"]


@dataclass(frozen=True)
class HandlerSpec:
    """A feature's handler: its name, the text that opens its prompt (after the shared rules),
    the cues that send a mention to it, and its role in routing."""

    name: str
    text: str
    cues: tuple[Cue, ...] = ()
    role: Role = "tools"
