"""Prompt tokens per handler: what a one-line mention costs and what a prefix cache keeps.

The bot is built as `python -m bot run` builds it below Discord (every feature, the shipped
knowledge base, a fresh SQLite file, a server whose members have talked a little) and its real
agent answers one-line mentions, in Japanese and in English, each routed by the real router,
against the scripted model of tests/fakes. What the model server received (messages and tools)
is counted with tiktoken's o200k_base, the tokenizer of OpenAI's GPT-4o family: its file ships
inside litellm, so nothing is downloaded.

A request is counted as a chat template lays it out (llama.cpp's Qwen template, OpenAI's): the
first system message, then the tools as JSON, then the other messages in order. Printed per
mention: the handler the router chose, the system text's tokens (stable part and context), the
tools' tokens and the total. Then the member asks again in the same conversation three minutes
later (the model answered the first line with a short sentence): "stable" is the share of the
first request's tokens that the second repeats from its start, what a provider's prefix cache
kept; "new" is how many tokens of the second request are not in that prefix (the context, the
answer and the new line), what the provider processes again.

Run `python bench/prompt_tokens.py` (about 15 s); `--short` prints the table and the targets
only, without each request's layout. Targets: a one-line chat mention <= 900 prompt tokens, a
reminder request with its tools <= 1,500, and >= 90 % of the prompt identical between two turns
of one conversation in different minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.agent.llm.provider import import_litellm
from bot.agent.loop import RunRequest
from bot.app.core import Core, build_core
from bot.app.features import route
from bot.runtime.clock import ManualClock
from bot.settings import load_settings
from tests.fakes.llm_server import ChatRequest, ScriptedLLM, text

PROJECT = Path(__file__).resolve().parents[1]
ENCODING = "o200k_base"
TARGET_CHAT = 900
TARGET_REMINDER = 1500
TARGET_STABLE = 0.90
GUILD_ID = 1_300_000_000_000_000_001
CHANNEL_ID = 1_300_000_000_000_000_101
MEMBER_ID = 1_300_000_000_000_000_201
MEMBER_NAME = "hana"
# A Monday morning in Tokyo; the second turn comes three minutes later (another minute).
FIRST_TURN = datetime(2026, 12, 7, 10, 24, 30, tzinfo=ZoneInfo("Asia/Tokyo"))
LATER = timedelta(minutes=3)
# What the server's members said before: the chat prompt offers the words they use often.
SERVER_TALK = (
    "ラーメン屋の行列すごかった",
    "週末キャンプに行きたい",
    "新しいゲーム買った、徹夜しそう",
    "ラーメンは味噌派",
    "キャンプ道具ほしい",
)


@dataclass(frozen=True)
class Mention:
    """A one-line mention and the member's next line in the same conversation."""

    handler: str
    language: str
    first: str
    second: str


MENTIONS = (
    Mention("chat", "ja", "暇だなー", "なんか面白い話して"),
    Mention("chat", "en", "so bored right now lol", "tell me something fun"),
    Mention("weather", "ja", "明日洗濯できる？", "明後日の東京の天気は？"),
    Mention("weather", "en", "will it rain in Osaka tomorrow?", "and the weather on Friday?"),
    Mention(
        "reminder", "ja", "明日の9時に歯医者ってリマインドして", "金曜18時にジムもリマインドして"
    ),
    Mention(
        "reminder",
        "en",
        "remind me to call mom tomorrow at 9am",
        "also remind me about the gym on Friday at 6pm",
    ),
    Mention("general", "ja", "サーバーのルールは？", "イベントはいつある？"),
    Mention("general", "en", "what are the server rules?", "when is the next event?"),
)


def _encoder() -> Any:
    """o200k_base from the copy inside litellm (tiktoken would download it otherwise)."""
    litellm = import_litellm()
    bundled = Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def _content(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # parts (cache markers, images): their text
        content = "".join(str(part.get("text", "")) for part in content)
    calls = message.get("tool_calls")
    if calls:
        content += json.dumps(calls, ensure_ascii=False)
    return str(content)


def _rendered(request: ChatRequest) -> list[tuple[str, str]]:
    """The request's pieces in the order a chat template lays them out: (label, text)."""
    messages = request.messages
    pieces: list[tuple[str, str]] = []
    rest = messages
    if messages and messages[0].get("role") == "system":
        pieces.append(("system", f"<|system|>\n{_content(messages[0])}\n"))
        rest = messages[1:]
    if request.tools:
        pieces.append(("tools", json.dumps(request.tools, ensure_ascii=False) + "\n"))
    for message in rest:
        role = str(message.get("role"))
        pieces.append((role, f"<|{role}|>\n{_content(message)}\n"))
    return pieces


@dataclass(frozen=True)
class Count:
    """One request's tokens."""

    handler: str
    system: int
    tools: int
    tool_count: int
    total: int
    excerpts: bool  # the context holds knowledge-base excerpts
    tokens: list[int]
    layout: list[tuple[str, int]]


def _count(encoder: Any, request: ChatRequest, handler: str) -> Count:
    pieces = _rendered(request)
    whole = "".join(piece for _, piece in pieces)
    system = sum(
        len(encoder.encode(_content(m), disallowed_special=()))
        for m in request.messages
        if m.get("role") == "system"
    )
    tools = (
        len(encoder.encode(json.dumps(request.tools, ensure_ascii=False))) if request.tools else 0
    )
    tokens = encoder.encode(whole, disallowed_special=())
    layout = [(label, len(encoder.encode(piece, disallowed_special=()))) for label, piece in pieces]
    # The excerpts' block opens a line of its own; the instructions only name it.
    excerpts = "<knowledge>\n" in request.system
    return Count(handler, system, tools, len(request.tools), len(tokens), excerpts, tokens, layout)


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


async def _ask(
    core: Core, llm: ScriptedLLM, mention: Mention, words: str
) -> tuple[str, ChatRequest]:
    chosen = route(words)
    request = RunRequest.for_message(
        user_id=MEMBER_ID + MENTIONS.index(mention),
        user_name=MEMBER_NAME,
        channel_id=CHANNEL_ID,
        guild_id=GUILD_ID,
        handler=chosen.name,
        timezone=FIRST_TURN.tzinfo,  # type: ignore[arg-type]
        language=mention.language,  # type: ignore[arg-type]
    )
    before = llm.request_count
    async for _ in core.agent.run(request, words):
        pass
    asked = [r for r in llm.requests[before:] if r.tools or r.stream]
    return chosen.name, asked[0]


async def measure(short: bool) -> bool:
    """Run every mention twice; print the table; return whether every target is met."""
    encoder = _encoder()
    clock = ManualClock(FIRST_TURN)
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        shutil.copytree(PROJECT / "knowledge_base", base / "knowledge_base")
        async with ScriptedLLM() as llm:
            llm.rule = lambda request: text("うん、了解！ / Sure!")
            settings = load_settings(
                environ={
                    "DISCORD_TOKEN": "bench",
                    "DATABASE_URL": f"sqlite+aiosqlite:///{base / 'otomo.db'}",
                    "LLM_MODEL": "openai/test-model",
                    "LLM_API_BASE": llm.api_base,
                    "LLM_API_KEY": "bench",
                    "LLM_CHECK_ON_START": "false",
                    "KNOWLEDGE_BASE_DIR": str(base / "knowledge_base"),
                    "LOG_LEVEL": "WARNING",
                },
                env_file=None,
            )
            core = await build_core(settings, clock)
            try:
                for line in SERVER_TALK:
                    core.deps.word_pool.observe(line, CHANNEL_ID, GUILD_ID)
                await core.deps.word_pool.flush()
                results: list[tuple[Mention, Count, Count]] = []
                for mention in MENTIONS:
                    clock.set(FIRST_TURN)
                    handler, first = await _ask(core, llm, mention, mention.first)
                    clock.set(FIRST_TURN + LATER)
                    again, second = await _ask(core, llm, mention, mention.second)
                    results.append(
                        (mention, _count(encoder, first, handler), _count(encoder, second, again))
                    )
            finally:
                await core.close()
    return _report(results, short)


def _report(results: list[tuple[Mention, Count, Count]], short: bool) -> bool:
    print(f"tokens by tiktoken {ENCODING}; second turn {LATER.seconds // 60} min later")
    print(
        f"{'mention':<13} {'handler':<17} {'system':>6} {'tools':>9} {'total':>6}   "
        f"{'2nd turn':>8} {'new':>5} {'stable':>7}"
    )
    worst_stable = 1.0
    for mention, first, second in results:
        shared = _common_prefix(first.tokens, second.tokens)
        stable = shared / first.total
        if not first.excerpts:
            worst_stable = min(worst_stable, stable)
        tools = f"{first.tools} ({first.tool_count})"
        print(
            f"{mention.handler + ' ' + mention.language:<13} {first.handler:<17} "
            f"{first.system:>6} {tools:>9} {first.total:>6}   {second.total:>8} "
            f"{second.total - shared:>5} {stable:>7.1%}{' *' if first.excerpts else ''}"
        )
        if not short:
            print("    first:  " + ", ".join(f"{label} {n}" for label, n in first.layout))
            print("    second: " + ", ".join(f"{label} {n}" for label, n in second.layout))
    chat = max(c.total for m, c, _ in results if m.handler == "chat")
    reminder = max(c.total for m, c, _ in results if m.handler == "reminder")
    if any(first.excerpts for _, first, _ in results):
        print(
            "* the first request's context holds knowledge-base excerpts for that question, "
            "which the next question does not repeat"
        )
    print()
    met = True
    for name, value, target, ok in (
        ("chat mention", f"{chat:,}", f"<= {TARGET_CHAT:,}", chat <= TARGET_CHAT),
        (
            "reminder request",
            f"{reminder:,}",
            f"<= {TARGET_REMINDER:,}",
            reminder <= TARGET_REMINDER,
        ),
        (
            "stable share (no *)",
            f"{worst_stable:.1%}",
            f">= {TARGET_STABLE:.0%}",
            worst_stable >= TARGET_STABLE,
        ),
    ):
        met = met and ok
        print(f"target {name:<22} {value:>7}  ({target})  {'ok' if ok else 'MISSED'}")
    return met


def main() -> None:
    """Parse arguments and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--short", action="store_true", help="the table and the targets only, no layouts"
    )
    args = parser.parse_args()
    asyncio.run(measure(args.short))


if __name__ == "__main__":
    main()
