"""The search vocabulary in force: the built-in groups plus the admin's `vocabulary.md`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from bot.knowledge.files import FileSignature, signature_of
from bot.runtime.worker import in_worker
from bot.search.synonyms import Vocabulary, builtin_vocabulary
from bot.search.vocabulary import VOCABULARY_FILE, builtin_groups, parse_vocabulary

log = logging.getLogger(__name__)


class VocabularyFile:
    """Follows `<knowledge base>/vocabulary.md`, rebuilding the synonyms when it changes."""

    def __init__(self, root: Path) -> None:
        self._path = root / VOCABULARY_FILE
        self._vocabulary: Vocabulary | None = None
        self._signature: FileSignature | None = None

    @property
    def current(self) -> Vocabulary:
        """The vocabulary to search with (the built-in one until the first refresh)."""
        return self._vocabulary or builtin_vocabulary()

    async def refresh(self) -> None:
        """Rebuild when the file appeared, changed or went (cheap when it did not)."""
        signature = await asyncio.to_thread(signature_of, self._path)
        if self._vocabulary is not None and signature == self._signature:
            return
        # Building tokenises every word of every group: on the text worker, like the files.
        self._vocabulary = await in_worker(_build, self._path if signature else None)
        self._signature = signature


def _build(admin_file: Path | None) -> Vocabulary:
    groups = list(builtin_groups())
    if admin_file is not None:
        try:
            groups += parse_vocabulary(admin_file.read_text("utf-8", errors="replace"))
        except OSError as exc:  # deleted meanwhile: the built-in groups still serve
            log.warning("cannot read the search vocabulary %s: %s", admin_file, exc)
    return Vocabulary(groups)
