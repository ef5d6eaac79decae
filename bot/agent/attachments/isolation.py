"""Reading a document in a child process: killed at the time limit, capped in memory.

Why a process rather than a worker thread: a thread cannot be stopped. A parser caught in a
hostile file (a PDF whose objects refer to each other without end, a spreadsheet that unpacks to
gigabytes) would keep a core and its memory for as long as it ran, and the bot could only wait
or leak it. A child process is killed when its time is up, and the kernel caps its address space
(RLIMIT_AS), so a bomb fails in the child, not in the bot. Each document gets a fresh
`python -m bot.agent.attachments.isolation` (about 0.3 s to start with its parser): nothing is
shared with the bot but the bytes in and the text out, the bot never loads a parser, and the
event loop only awaits the child. (multiprocessing was set aside: its children re-run the
parent's main script when the bot is started as one, and a forked child of a threaded bot may
inherit a held lock.) The child inherits no secret: only the environment Python needs.

The child reads the file's bytes on stdin, the format and limits from its arguments, and writes
one JSON object: the text and what was left unread, or why it read nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import get_args

from bot.agent.attachments.documents import (
    DocumentError,
    DocumentLimits,
    Extracted,
    Failure,
    extract,
)
from bot.agent.attachments.file_types import DocumentFormat

log = logging.getLogger(__name__)

# Memory a child may map beyond what it has when it starts reading: a 5 MB Word file takes a
# few hundred MB while lxml holds its tree.
MEMORY_HEADROOM_BYTES = 1_500_000_000
# Documents read at once by this process, each in its own child: the rest wait their turn.
AT_ONCE = 2
# SIGKILL: the child was killed from outside (the kernel's out-of-memory killer).
_KILLED = -9

# Besides PYTHON* and LC_* variables.
_INHERITED = frozenset({"PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT"})

_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True)
class Outcome:
    """What the child read, or why it read nothing, and its peak memory."""

    extracted: Extracted | None = None
    failure: Failure | None = None
    # The child's peak resident memory in KB (the interpreter and parser included); 0 unknown.
    peak_memory_kb: int = 0


def _turns() -> asyncio.Semaphore:
    """The running loop's turns for reading documents."""
    loop = asyncio.get_running_loop()
    turns = _TURNS.get(loop)
    if turns is None:
        turns = _TURNS[loop] = asyncio.Semaphore(AT_ONCE)
    return turns


async def read_document(
    form: DocumentFormat,
    data: bytes,
    limits: DocumentLimits,
    *,
    command: Sequence[str] | None = None,
) -> Outcome:
    """The document's text, read in a child process within the limits (command replaces
    the child, for tests)."""
    argv = command or (sys.executable, "-m", __name__, form, json.dumps(asdict(limits)))
    async with _turns():
        child = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=_child_environment(),
        )
        try:
            async with asyncio.timeout(limits.seconds):
                out, err = await child.communicate(data)
        except TimeoutError:
            log.info("Reading a %s document took over %s s; stopped", form, limits.seconds)
            return Outcome(failure="too_heavy")
        finally:
            if child.returncode is None:
                child.kill()
                await child.wait()
    try:
        return _outcome(json.loads(out))
    except (ValueError, TypeError, KeyError):
        # No answer: the parser crashed the interpreter, or the system killed the child.
        log.info(
            "The child reading a %s document ended with %s: %s",
            form,
            child.returncode,
            err.decode(errors="replace")[-500:],
        )
        return Outcome(failure="too_heavy" if child.returncode == _KILLED else "unreadable")


def _child_environment() -> dict[str, str]:
    """What the child inherits of the bot's environment: how to run Python, never a secret
    (tokens, API keys and the database URL stay out of the process that parses strangers'
    files)."""
    return {
        name: value
        for name, value in os.environ.items()
        if name in _INHERITED or name.startswith(("PYTHON", "LC_"))
    }


def _outcome(answer: dict[str, object]) -> Outcome:
    peak = int(str(answer.get("peak_memory_kb") or 0))
    failure = answer.get("failure")
    if failure is not None:
        if failure not in get_args(Failure):
            raise ValueError(f"unknown failure {failure!r}")
        return Outcome(failure=failure, peak_memory_kb=peak)  # type: ignore[arg-type]
    found = answer["extracted"]
    if not isinstance(found, dict):
        raise TypeError("no text")
    return Outcome(extracted=Extracted(**found), peak_memory_kb=peak)


def _cap_memory() -> None:
    """Cap this process's address space at what it has now plus the headroom (Linux)."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as status:
            mapped = int(status.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = mapped + MEMORY_HEADROOM_BYTES
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        # Not Linux: the time limit still holds.
        pass


def _peak_memory_kb() -> int:
    """This process's peak resident memory (VmHWM: ru_maxrss would count the bot's memory,
    which the child's start copied before its exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def main(argv: Sequence[str]) -> int:
    """The child: read the document on stdin, write the outcome as JSON on stdout."""
    form: DocumentFormat = argv[0]  # type: ignore[assignment]
    limits = DocumentLimits(**json.loads(argv[1]))
    data = sys.stdin.buffer.read()
    _cap_memory()
    answer: dict[str, object]
    try:
        answer = {"extracted": asdict(extract(form, data, limits))}
    except DocumentError as refused:
        answer = {"failure": refused.failure}
    except MemoryError:
        answer = {"failure": "too_heavy"}
    answer["peak_memory_kb"] = _peak_memory_kb()
    sys.stdout.buffer.write(json.dumps(answer).encode())
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
