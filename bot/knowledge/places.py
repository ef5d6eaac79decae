"""Where a knowledge-base file belongs: the shared base, or one server's own folder.

The base (`KNOWLEDGE_BASE_DIR`) holds the operator's shared files; `servers/<guild id>/` under it
holds each server's own. A path under `servers/` that is not a server's folder belongs to no one
and is never read, so nothing in that folder can pass for shared knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.servers import SERVERS_FOLDER, ServerScope


@dataclass(frozen=True, slots=True)
class Place:
    """A file's owner (None: shared) and its path inside the owner's folder (`faq.md`)."""

    owner: int | None
    path: str

    @property
    def full_path(self) -> str:
        """The path relative to the knowledge base: `faq.md` or `servers/<id>/faq.md`."""
        return self.path if self.owner is None else f"{SERVERS_FOLDER}/{self.owner}/{self.path}"


def place_of(full_path: str) -> Place | None:
    """The place of a path relative to the base, or None for one under `servers/` of no server."""
    head, _, rest = full_path.partition("/")
    if head != SERVERS_FOLDER:
        return Place(None, full_path)
    folder, _, inside = rest.partition("/")
    if not inside or not folder.isascii() or not folder.isdigit() or folder.startswith("0"):
        return None
    return Place(int(folder), inside)


def visible(place: Place, scope: ServerScope) -> bool:
    """Whether a file is read in a scope: shared files everywhere, a server's only there."""
    return scope.sees(place.owner)
