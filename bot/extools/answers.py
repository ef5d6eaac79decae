"""How much of a tool's answer the bot reads, and how much of it the model keeps.

An answer goes into the conversation's history and into every later model request of that
conversation, so a plugin that answers 20 MB would make each of them fail (or cost a fortune).
"""

from __future__ import annotations

import json
from typing import Any

from bot.settings.outside_tools import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_RESULT_CHARS

__all__ = ["DEFAULT_MAX_ANSWER_BYTES", "DEFAULT_MAX_RESULT_CHARS", "clip_output", "too_large"]


def too_large(name: str, limit: int) -> str:
    """The sentence for an answer over the byte cap."""
    return (
        f"The tool {name} answered with more than {limit:,} bytes, so the bot stopped reading "
        "it and used none of it. Call it again asking for less (a narrower query, fewer "
        "items), or tell the user its answer was too large."
    )


def clip_output(output: Any, limit: int) -> Any:
    """output itself when its JSON text fits in limit characters; else the first limit
    characters of that text, with a note saying how much was cut."""
    text = (
        output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    )
    if len(text) <= limit:
        return output
    return (
        f"{text[:limit]}\n[cut by Otomo: the tool's answer had {len(text):,} characters; only "
        f"the first {limit:,} are kept. Ask for less if the rest matters.]"
    )
