"""The worker thread that tokenises files, so the bot's event loop stays responsive."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, TypeVar

from bot.knowledge.analysis import DocumentAnalysis
from bot.runtime.worker import text_executor

log = logging.getLogger(__name__)

T = TypeVar("T")

# (text, fallback title) → analysis; injectable so tests can count tokenisations.
Analyser = Callable[[str, str], DocumentAnalysis]


async def run_in_worker(func: Callable[..., T], *args: Any) -> T:
    """Run other janome work (a note's terms, a ranking) on the same thread and tokenizer."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(text_executor(), func, *args)


async def analyse_in_worker(
    analyse: Analyser, batch: list[tuple[str, str]]
) -> list[DocumentAnalysis | None]:
    """Analyse (path, text) pairs on the worker thread; None for a file that failed."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(text_executor(), _analyse_batch, analyse, batch)


def _analyse_batch(
    analyse: Analyser, batch: list[tuple[str, str]]
) -> list[DocumentAnalysis | None]:
    results: list[DocumentAnalysis | None] = []
    for path, text in batch:
        try:
            results.append(analyse(text, PurePosixPath(path).stem))
        except Exception:  # one malformed file must not keep the rest out of the index
            log.exception("cannot analyse knowledge-base file %s; it is left out", path)
            results.append(None)
    return results
