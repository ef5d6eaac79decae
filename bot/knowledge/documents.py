"""Markdown knowledge-base files: front matter, title, tags, and sections split by heading."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A section longer than this is split at paragraph breaks, so a hit points at the relevant
# part and a context budget is not spent on one huge section.
MAX_SECTION_CHARS = 1200

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"(?<=[。！？!?.])\s*|\n")


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a file under one heading path, e.g. ("FAQ", "参加方法")."""

    heading_path: tuple[str, ...]
    text: str
    line: int

    @property
    def heading(self) -> str:
        """The heading path joined for display: `FAQ > 参加方法`."""
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """A knowledge-base file after parsing: front matter, title, tags and sections."""

    title: str
    tags: tuple[str, ...]
    front_matter: dict[str, str | list[str]] = field(default_factory=dict)
    sections: tuple[Section, ...] = ()


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _inline_list(value: str) -> list[str]:
    inner = value.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    return [_unquote(item) for item in inner.split(",") if _unquote(item)]


def parse_front_matter(text: str) -> tuple[dict[str, str | list[str]], str, int]:
    """Split `---` front matter (`key: value`, `tags: [a, b]`, `- item` lists) from the body.

    Returns the fields, the body and the 1-based line number where the body starts. Only this
    small, safe subset of YAML is understood; anything else in the block is ignored.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, text, 1
    fields: dict[str, str | list[str]] = {}
    current_list: str | None = None
    for raw in lines[1:end]:
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current_list is not None:
            items = fields.setdefault(current_list, [])
            if isinstance(items, list):
                items.append(_unquote(stripped[2:]))
            continue
        key, sep, value = stripped.partition(":")
        if not sep or not key.strip():
            continue
        key = key.strip().lower()
        value = value.strip()
        if not value:
            # `tags:` followed by `- item` lines.
            fields[key] = []
            current_list = key
            continue
        current_list = None
        fields[key] = _inline_list(value) if value.startswith("[") else _unquote(value)
    return fields, "\n".join(lines[end + 1 :]), end + 2


def _split_long(text: str, limit: int) -> list[str]:
    """Cut text into pieces of at most about limit characters at paragraph or sentence ends."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text):
        units = [paragraph] if len(paragraph) <= limit else _sentences(paragraph, limit)
        for unit in units:
            if current and len(current) + len(unit) + 2 > limit:
                pieces.append(current)
                current = ""
            current = f"{current}\n\n{unit}" if current else unit
    if current:
        pieces.append(current)
    return pieces


def _sentences(paragraph: str, limit: int) -> list[str]:
    units: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        while len(sentence) > limit:
            # A run without sentence ends (a table, a long URL list): cut hard.
            units.append(sentence[:limit])
            sentence = sentence[limit:]
        if current and len(current) + len(sentence) + 1 > limit:
            units.append(current)
            current = ""
        current = f"{current} {sentence}".strip() if current else sentence
    if current:
        units.append(current)
    return units


def _title_from_name(fallback: str) -> str:
    return re.sub(r"[-_]+", " ", fallback).strip() or fallback


def parse_document(text: str, fallback_title: str) -> ParsedDocument:
    """Parse a markdown file into title, tags and heading-path sections (code fences respected)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    front, body, first_line = parse_front_matter(text)
    raw_tags = front.get("tags", [])
    tags = tuple(raw_tags if isinstance(raw_tags, list) else _inline_list(raw_tags))

    stack: list[tuple[int, str]] = []
    chunks: list[tuple[tuple[str, ...], list[str], int]] = [((), [], first_line)]
    first_h1: str | None = None
    fence: str | None = None
    for offset, line in enumerate(body.split("\n")):
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
        heading = None if fence is not None or fence_match else _HEADING.match(line)
        if heading is None:
            chunks[-1][1].append(line)
            continue
        level, title = len(heading.group(1)), heading.group(2).strip()
        if level == 1 and first_h1 is None:
            first_h1 = title
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        chunks.append((tuple(t for _, t in stack), [], first_line + offset))

    raw_title = front.get("title")
    title = (
        (raw_title if isinstance(raw_title, str) and raw_title else None)
        or first_h1
        or _title_from_name(fallback_title)
    )
    sections: list[Section] = []
    for path, lines, line_no in chunks:
        content = "\n".join(lines).strip()
        if not content:
            continue
        sections.extend(
            Section(path, piece, line_no) for piece in _split_long(content, MAX_SECTION_CHARS)
        )
    return ParsedDocument(title=title, tags=tags, front_matter=front, sections=tuple(sections))
