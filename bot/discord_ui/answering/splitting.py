"""Split long text below Discord's 2,000-character limit without breaking code blocks."""

from __future__ import annotations

import re

DISCORD_LIMIT = 2000
_FENCE = re.compile(r"^\s*```(\S*)")
# What may follow ``` when a block is reopened in the next chunk; anything longer is code.
_LANGUAGE = re.compile(r"[\w+#.-]{1,20}")


def _cut_point(text: str, limit: int, start: int = 0) -> int:
    """The best place to cut text[:limit] after start: a blank line, else a line end, else a
    space; always past start, so every chunk consumes some of the text."""
    window = text[:limit]
    for separator in ("\n\n", "\n", " "):
        index = window.rfind(separator)
        if index > max(limit // 3, start):
            return _off_a_fence(text, index + len(separator), start)
    return _off_a_fence(text, limit, start)


def _off_a_fence(text: str, cut: int, start: int) -> int:
    """Move a mid-line cut back so the next chunk does not begin with backticks that Discord
    would read as a code fence although the member's text had them inside a line."""
    if text[cut - 1] == "\n" or not _FENCE.match(text[cut:].partition("\n")[0]):
        return cut
    back = cut
    while back > start and text[back - 1] in " \t`":
        back -= 1
    if back > start and text[back - 1] != "\n":
        return back - 1
    return cut


def _open_fence(chunk: str) -> str | None:
    """The language of a code block left open at the end of chunk ("" for none), else None."""
    language: str | None = None
    for line in chunk.splitlines():
        match = _FENCE.match(line)
        if match:
            language = None if language is not None else match.group(1)
    return language


def split_message(text: str, limit: int = DISCORD_LIMIT) -> list[str]:
    """Chunks of at most limit characters; a code block cut in two is closed and reopened."""
    if limit < 50:
        raise ValueError("limit too small to split sensibly")
    chunks: list[str] = []
    rest = text
    reopen = ""
    while rest:
        candidate = reopen + rest
        if len(candidate) <= limit:
            chunks.append(candidate)
            break
        # Room for a closing fence if we must cut inside a code block.
        budget = limit - 4
        head_len = _cut_point(candidate, budget, len(reopen))
        head = candidate[:head_len]
        # Prefer to cut before a code block that starts in this chunk and would be split.
        fence_start = _fence_start_to_keep_whole(candidate, head_len, limit)
        if fence_start is not None and fence_start > len(reopen):
            head = candidate[:fence_start]
        language = _open_fence(head)
        consumed = len(head) - len(reopen)
        rest = rest[consumed:]
        head = head.rstrip("\n")
        if language is not None:
            head += "\n```"
            reopen = f"```{language}\n" if _LANGUAGE.fullmatch(language) else "```\n"
        else:
            reopen = ""
        if head.strip():
            chunks.append(head)
    return chunks


def _fence_start_to_keep_whole(text: str, cut: int, limit: int) -> int | None:
    """If a code block opens before cut and closes after it, but fits in one message, cut
    just before it instead."""
    opened_at: int | None = None
    position = 0
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            if opened_at is None:
                opened_at = position
            else:
                end = position + len(line)
                if opened_at < cut < end and end - opened_at <= limit and opened_at > 0:
                    return opened_at
                opened_at = None
        position += len(line)
        if position > cut and opened_at is None:
            return None
    return None
