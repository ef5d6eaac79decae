"""How fast the model reads a prompt of the real size and writes its answer, and the waits
(LLM_TIMEOUT_SECONDS, LLM_ROUND_SECONDS) that speed needs.

A model on a CPU (llama.cpp, Ollama) sends nothing until it has read the whole prompt: minutes
for the ~2,000 tokens of a mention's prompt and tools on two cores, while a tiny request comes
back in a second. `make doctor` measures both and turns the measurement into settings.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass
from typing import Any

from bot.agent.llm.provider import import_litellm
from bot.settings import Settings

# A mention's prompt, tools and a little history are 2,000-3,100 tokens.
REAL_PROMPT_TOKENS = 2_000
# Tokens asked for while measuring: enough to time the writing, short enough to wait for.
SAMPLE_TOKENS = 32
# A reply's usual length, for how long a round takes once the first token came.
ANSWER_TOKENS = 300
# Longest the measurement waits (the largest LLM_TIMEOUT_SECONDS allowed).
MEASURE_LIMIT_SECONDS = 600.0
# Headroom over the measurement: prompts grow with tools and history (3,100 tokens is common),
# and the server may be busy with another member's request.
MARGIN = 2.0
# The settings' upper bounds (bot/settings/environment.py).
TIMEOUT_MAX = 600
ROUND_MAX = 1800

_RULES = (
    "Answer in the language the member wrote in, briefly and kindly.",
    "Use a tool only when the member asks for something a tool does; otherwise answer in text.",
    "Times are in the member's time zone; write dates the way people in Japan read them.",
    "Never invent a reminder, a forecast or a note; say when you do not know.",
    "Quote the knowledge base with the name of the file it came from.",
    "Keep replies below a few paragraphs; Discord shows long answers in several messages.",
    "A member's request to be reminded names a time and a thing; ask when either is missing.",
    "Weather answers say the chance of rain, the temperature range and what to wear.",
)


def real_size_prompt(tokens: int = REAL_PROMPT_TOKENS) -> str:
    """A system prompt of about `tokens` tokens (four characters each, as English text runs),
    opened by a fresh marker so no server can answer it from a cache of an earlier check."""
    lines = [f"Speed check {uuid.uuid4().hex}. You are Otomo, a Discord companion."]
    while sum(len(line) + 1 for line in lines) < tokens * 4:
        number = len(lines)
        lines.append(f"Rule {number}: {_RULES[number % len(_RULES)]}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Speed:
    """One measured answer to a real-size prompt."""

    prompt_tokens: int
    # From sending the request to its first token: the time the server reads the prompt.
    first_token_seconds: float
    # Tokens a second after the first one; None when the answer was too short to tell.
    tokens_per_second: float | None

    def answer_seconds(self) -> float:
        """Seconds from the request to a reply of usual length."""
        writing = ANSWER_TOKENS / self.tokens_per_second if self.tokens_per_second else 0.0
        return self.first_token_seconds + writing

    def suggested_timeout(self, settings: Settings) -> int:
        """LLM_TIMEOUT_SECONDS that waits out the prompt's reading with headroom."""
        return _setting(
            self.first_token_seconds * MARGIN, settings.llm_timeout_seconds, TIMEOUT_MAX
        )

    def suggested_round(self, settings: Settings) -> int:
        """LLM_ROUND_SECONDS that fits the reading and a reply of usual length, and every try
        the settings allow (a start refuses a round shorter than its tries)."""
        tries = self.suggested_timeout(settings) * (settings.llm_num_retries + 1)
        wanted = max(self.answer_seconds() * MARGIN, float(tries))
        return _setting(wanted, settings.llm_round_seconds, ROUND_MAX)

    def too_low(self, settings: Settings) -> list[tuple[str, float, int]]:
        """The settings below what this speed needs: (name, now, suggested value)."""
        found: list[tuple[str, float, int]] = []
        timeout, round_ = self.suggested_timeout(settings), self.suggested_round(settings)
        if settings.llm_timeout_seconds < timeout:
            found.append(("LLM_TIMEOUT_SECONDS", settings.llm_timeout_seconds, timeout))
        if settings.llm_round_seconds < round_:
            found.append(("LLM_ROUND_SECONDS", settings.llm_round_seconds, round_))
        return found

    def fails_now(self, settings: Settings) -> bool:
        """Whether requests of this size fail with the current settings (not only lack room)."""
        return (
            self.first_token_seconds >= settings.llm_timeout_seconds
            or self.answer_seconds() >= settings.llm_round_seconds
        )


def _setting(wanted: float, current: float, limit: int) -> int:
    """A round value (tens of seconds) at least wanted, never below current or above limit."""
    value = max(math.ceil(wanted / 10) * 10, math.ceil(current))
    return min(value, limit)


async def measure(settings: Settings, model: str | None = None) -> Speed:
    """Send one real-size prompt and time its answer (waits up to MEASURE_LIMIT_SECONDS);
    the model's errors are raised as litellm raises them."""
    litellm = import_litellm()
    params: dict[str, Any] = {
        "model": model or settings.llm_model,
        "messages": [
            {"role": "system", "content": real_size_prompt()},
            {"role": "user", "content": "Say hello to the server in one sentence."},
        ],
        "max_tokens": SAMPLE_TOKENS,
        "timeout": MEASURE_LIMIT_SECONDS,
        "num_retries": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if settings.llm_api_base:
        params["api_base"] = settings.llm_api_base
    if settings.llm_api_key:
        params["api_key"] = settings.llm_api_key.get_secret_value()
    started = time.perf_counter()
    first: float | None = None
    last = started
    pieces = 0
    prompt_tokens = written = 0
    stream = await litellm.acompletion(**params)
    async for chunk in stream:
        usage = getattr(chunk, "usage", None)
        if usage:
            prompt_tokens = getattr(usage, "prompt_tokens", 0) or prompt_tokens
            written = getattr(usage, "completion_tokens", 0) or written
        if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
            last = time.perf_counter()
            first = first if first is not None else last
            pieces += 1
    first = first if first is not None else time.perf_counter()
    tokens = max(written, pieces)
    rate = (tokens - 1) / (last - first) if tokens > 1 and last > first else None
    return Speed(prompt_tokens or REAL_PROMPT_TOKENS, first - started, rate)
