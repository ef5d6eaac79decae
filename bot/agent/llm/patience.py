"""How long a member waits on the model: one deadline per round, and retries only inside it.

A round is one model call as the member sees it: the request, its retries and its streamed
answer. It ends by LLM_ROUND_SECONDS whatever happens; each try waits at most
LLM_TIMEOUT_SECONDS for the next byte (and never past the deadline). Retries happen only
before anything was shown, for failures another try may fix, and only while a try still fits.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.agent.llm.provider import LLMFailure
from bot.i18n import answers
from bot.settings import Settings

# Failures that another try may fix; the others (a bad key, a too-long conversation) never do.
RETRYABLE = frozenset({"timeout", "unreachable", "rate_limit", "server_error"})
# The pause before the first, second, third… retry (the last one repeats).
RETRY_PAUSES_SECONDS = (0.5, 2.0, 4.0)
# A try with less time than this left would only delay the failure.
SHORTEST_TRY_SECONDS = 1.0


def round_timed_out() -> LLMFailure:
    """The failure of a round that ran out of time before the model said anything."""
    return LLMFailure("timeout", answers.ROUND_TIMED_OUT)


@dataclass
class Patience:
    """One round's deadline (on the event loop's clock) and the tries made so far."""

    deadline: float
    per_try: float
    retries: int
    tries: int = 0

    @classmethod
    def start(cls, settings: Settings) -> Patience:
        """A round starting now."""
        now = asyncio.get_running_loop().time()
        return cls(
            now + settings.llm_round_seconds, settings.llm_timeout_seconds, settings.llm_num_retries
        )

    def left(self) -> float:
        """Seconds until the deadline (0 when it has passed)."""
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def next_try(self) -> float:
        """Count a try; return how long it may wait for the service."""
        self.tries += 1
        return min(self.per_try, self.left())

    async def retry(self, failure: LLMFailure) -> bool:
        """Pause and return True when another try may fix failure and fits; else False."""
        if failure.kind not in RETRYABLE or self.tries > self.retries:
            return False
        pause = RETRY_PAUSES_SECONDS[min(self.tries, len(RETRY_PAUSES_SECONDS)) - 1]
        if self.left() - pause < SHORTEST_TRY_SECONDS:
            return False
        await asyncio.sleep(pause)
        return True
