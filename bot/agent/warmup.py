"""Start-up work that would otherwise stall the event loop at the first mention.

`import litellm` takes seconds, and its first call loads more (a token counter, lazily built
response models, its service logger). All of it happens here, before the gateway connects: the
import on a thread, then one mocked call on the loop, which never leaves the process.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import importlib
import logging
import time

from bot.agent.llm.provider import import_litellm
from bot.runtime.worker import in_worker
from bot.settings import Settings
from bot.text.analysis import warm_up as load_tokenizer

log = logging.getLogger(__name__)

_WARM_TOOL = {
    "type": "function",
    "function": {
        "name": "warm_up",
        "description": "never called",
        "parameters": {"type": "object", "properties": {}},
    },
}


def _load_model_client() -> None:
    litellm = import_litellm()
    # Imported by litellm at the first async call, on whichever thread makes it.
    importlib.import_module("litellm._service_logger")
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    for response_type in (ChatCompletion, ChatCompletionChunk):
        response_type.model_rebuild()
    stream = litellm.completion(
        model="openai/warm-up",
        api_key="warm-up",
        messages=[{"role": "user", "content": "warm up"}],
        tools=[_WARM_TOOL],
        stream=True,
        mock_response="ok",
    )
    for _ in stream:
        pass


async def _warm_async_path(settings: Settings) -> None:
    litellm = import_litellm()
    stream = await litellm.acompletion(
        model=settings.llm_model,
        api_key="warm-up",
        messages=[{"role": "user", "content": "warm up"}],
        tools=[_WARM_TOOL],
        stream=True,
        stream_options={"include_usage": True},
        mock_response="ok",
    )
    async for _ in stream:
        pass


async def prepare(settings: Settings) -> None:
    """Load litellm and janome and warm their first calls (cheap when already loaded)."""
    started = time.perf_counter()
    _limit_malloc_arenas()
    # The text worker loads the tokenizer while another thread imports litellm.
    tokenizer = asyncio.ensure_future(in_worker(load_tokenizer))
    try:
        await asyncio.to_thread(_load_model_client)
        try:
            await _warm_async_path(settings)
        except Exception as exc:  # a model string litellm cannot mock is still a usable model
            log.debug("model client warm-up call failed: %s", exc)
        await tokenizer
    finally:
        # The loading is over: the collector, off since the process started (cli.main), is
        # back even if the gateway takes long to get ready (reconnects make cyclic garbage).
        gc.enable()
    log.info("Model client and tokenizer loaded in %.1f s", time.perf_counter() - started)


def settle() -> None:
    """End of start-up: exempt what is loaded by now from the garbage collector's full passes.

    litellm, janome and discord.py leave ~450,000 long-lived objects; a full collection walks
    them all (~0.2-0.4 s of CPU) at whatever moment it triggers, stalling the loop in
    mid-reply. Freezing without collecting first costs microseconds: this runs on the loop
    after the gateway connected, where a full collection would hold up the first mentions.
    The little cyclic garbage of the imports (the collector was off) stays frozen with them.
    """
    gc.freeze()
    _release_free_heap()


# glibc's mallopt() parameter for the number of malloc arenas.
_M_ARENA_MAX = -8
_ARENAS = 2


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def _limit_malloc_arenas() -> None:
    """Let the process's threads share two malloc arenas instead of one each (glibc only).

    Every thread that allocates (the litellm import, the text worker, SQLite's, litellm's
    loggers) would otherwise get its own arena, each keeping freed memory resident (~6 MB in
    all). Python allocates its small objects itself, under the GIL, so sharing costs little.
    """
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, _ARENAS)


def _release_free_heap() -> None:
    """Hand the C heap's free pages back to the system: start-up (imports, migrations, the
    first index load) leaves tens of MB freed but still resident. glibc only."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:  # musl, macOS: nothing to trim this way
        trim(0)


def unsettle() -> None:
    """Give the frozen objects back to the collector (when the bot shuts down)."""
    gc.unfreeze()
