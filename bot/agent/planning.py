"""The optional planning round's intent tags, stripped from streamed text and history."""

from __future__ import annotations

NO_TOOL = "<no_tool>"
NEED_TOOL = "<need_tool>"
TAGS = (NO_TOOL, NEED_TOOL)
# Appended after the planning answer when tools follow, so the next round is the model's turn.
CONTINUE = "[continue]"

PLANNING_PROMPT = (
    "Before using any tool, answer the user briefly in their language. If answering fully "
    f"needs a tool (reminders, weather, search...), end your reply with {NEED_TOOL}; "
    f"otherwise give your full answer and end it with {NO_TOOL}. Write exactly one of the "
    "two tags, at the very end."
)


def strip_tags(text: str) -> str:
    """The text without any intent tag."""
    for tag in TAGS:
        text = text.replace(tag, "")
    return text.rstrip()


def intent(text: str) -> bool | None:
    """True when the model asked for tools, False when not, None when it wrote no tag."""
    need = text.rfind(NEED_TOOL)
    no = text.rfind(NO_TOOL)
    if need == no == -1:
        return None
    return need > no


class TagFilter:
    """Streams text through, holding back anything that could be the start of a tag."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        """Return the part of chunk that is certainly not inside a tag."""
        text = self._held + chunk
        for tag in TAGS:
            text = text.replace(tag, "")
        cut = text.rfind("<")
        if cut != -1 and any(tag.startswith(text[cut:]) for tag in TAGS):
            self._held = text[cut:]
            return text[:cut]
        self._held = ""
        return text

    def flush(self) -> str:
        """Whatever was held back at the end of the stream (not a tag after all)."""
        held, self._held = self._held, ""
        return "" if held in TAGS else held
