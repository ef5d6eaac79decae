"""What the index hands out: matching sections, and reports of what a refresh changed."""

from __future__ import annotations

from dataclasses import dataclass, field

WEB_SEARCH_TAG = "web_search"


@dataclass(frozen=True, slots=True)
class KnowledgeHit:
    """One matching section, with what an answer needs to quote and cite it."""

    path: str
    source: str
    title: str
    heading: str
    text: str
    snippet: str
    score: float
    relevance: float
    tags: tuple[str, ...] = ()

    @property
    def is_web_search(self) -> bool:
        """Whether the section comes from a saved web search rather than an admin's text."""
        return WEB_SEARCH_TAG in self.tags


@dataclass
class RefreshReport:
    """What one pass over the directory changed."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    tokenised: int = 0
    from_cache: int = 0
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """Whether anything in the index changed."""
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        """A sentence for an admin, e.g. `2 files added, 1 updated, 0 removed (0.3 s).`."""
        text = (
            f"{len(self.added)} files added, {len(self.updated)} updated, "
            f"{len(self.removed)} removed ({self.seconds:.1f} s)."
        )
        if self.skipped:
            text += f" Skipped (too large or unreadable): {', '.join(self.skipped)}."
        return text
