"""Saving web search results into the knowledge base, so the next question finds them locally."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

ARCHIVE_FOLDER = "web_search"
MAX_SLUG_CHARS = 40
# Enough of each page's text to answer from later without bloating the file.
MAX_SAVED_CONTENT_CHARS = 1500
_NOT_WORD = re.compile(r"[^\w]+")
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")


@dataclass(frozen=True, slots=True)
class WebResult:
    """One search result: a numbered source."""

    number: int
    title: str
    url: str
    content: str


def one_line(text: str) -> str:
    """Text with line breaks folded to spaces (for front matter and headings)."""
    return _LINE_BREAKS.sub(" ", text).strip()


def slugify(query: str) -> str:
    """A file-name-safe slug that keeps Japanese: 「明日の 東京・天気?」 → `明日の-東京-天気`."""
    text = unicodedata.normalize("NFKC", query).lower()
    slug = _NOT_WORD.sub("-", text).strip("-_")
    slug = slug[:MAX_SLUG_CHARS].rstrip("-_")
    return slug or "search"


def archive_path(query: str, day: date) -> str:
    """Where a search is saved, relative to the knowledge base: `web_search/2026-11-29-slug.md`."""
    return f"{ARCHIVE_FOLDER}/{day.isoformat()}-{slugify(query)}.md"


def _title(text: str) -> str:
    return one_line(text).replace("[", "(").replace("]", ")") or "(untitled)"


def render_archive(
    query: str, day: date, answer: str | None, results: list[WebResult], max_bytes: int
) -> str:
    """The markdown file for one search: front matter, the short answer, each numbered source."""
    question = one_line(query)
    head = [
        "---",
        f"title: Web検索: {question}",
        "tags: [web_search]",
        f"date: {day.isoformat()}",
        f"query: {question}",
        "---",
        f"# {question}",
        "",
        f"{day.isoformat()} に web 検索した結果の保存です。古くなっている可能性があります。",
        "",
    ]
    if answer:
        head += ["## 要約", "", answer.strip(), ""]
    sources = ["## 出典", ""] + [f"{r.number}. [{_title(r.title)}]({r.url})" for r in results]
    body: list[str] = []
    for result in results:
        content = result.content.strip()
        if len(content) > MAX_SAVED_CONTENT_CHARS:
            content = content[:MAX_SAVED_CONTENT_CHARS].rstrip() + "…"
        body += [
            f"## [{result.number}] {_title(result.title)}",
            "",
            content,
            "",
            f"出典: {result.url}",
            "",
        ]
    text = "\n".join([*head, *body, *sources]) + "\n"
    while len(text.encode("utf-8")) > max_bytes and body:
        # Over the knowledge base's file cap: drop the page texts from the end, keep the sources.
        body = body[:-6]
        text = "\n".join([*head, *body, *sources]) + "\n"
    return text
