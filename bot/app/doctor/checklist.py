"""The doctor's checklist: one line per check, marked, printed as soon as it is known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

PASS, FAIL, WARN, SKIP = "✓", "✗", "!", "-"
TITLE_WIDTH = 18


@dataclass(frozen=True)
class Line:
    """One line of the checklist."""

    mark: str
    title: str
    text: str


class Checklist:
    """The lines said so far, written to out as they come."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.lines: list[Line] = []

    def say(self, mark: str, title: str, text: str) -> None:
        """Record and print one line."""
        line = Line(mark, title, text)
        self.lines.append(line)
        self.out.write(f"  {mark} {title:<{TITLE_WIDTH}} {text}\n")
        self.out.flush()

    def count(self, mark: str) -> int:
        """How many lines carry this mark."""
        return sum(line.mark == mark for line in self.lines)


def short(exc: BaseException) -> str:
    """An exception in one line, for a check that failed in an unexpected way."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
