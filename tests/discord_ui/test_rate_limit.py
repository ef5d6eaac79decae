"""The per-member rate limit: a sliding window, and memory only for members still in it."""

from __future__ import annotations

from bot.discord_ui.answering.gate import SWEEP_AT_LEAST, Gate, RateLimiter
from bot.settings import Settings


def test_a_member_over_the_limit_waits_for_the_window_to_slide() -> None:
    now = [0.0]
    limiter = RateLimiter(2, window=60.0, clock=lambda: now[0])

    assert limiter.retry_after(1) == 0.0
    assert limiter.retry_after(1) == 0.0
    assert limiter.retry_after(1) == 60.0
    now[0] = 60.0
    assert limiter.retry_after(1) == 0.0


def test_members_who_went_quiet_are_forgotten_so_the_map_stays_bounded() -> None:
    now = [0.0]
    limiter = RateLimiter(5, window=60.0, clock=lambda: now[0])
    for user in range(SWEEP_AT_LEAST):
        limiter.retry_after(user)
    now[0] = 61.0

    for user in range(10_000, 10_000 + 50 * SWEEP_AT_LEAST):
        limiter.retry_after(user)
        now[0] += 0.05  # 20 new members a second, each quiet after one mention

    # Only about the members of the last minute are kept (~1,200), not all 12,800.
    assert limiter.tracked <= 2 * 60 * 20 + SWEEP_AT_LEAST
    assert limiter.retry_after(10_000 + 50 * SWEEP_AT_LEAST - 1) == 0.0


def test_refusals_are_said_once_per_member_and_kind_per_window_then_only_reacted() -> None:
    now = [0.0]
    gate = Gate(Settings(USER_RATE_LIMIT_PER_MINUTE=1), clock=lambda: now[0])

    assert gate.already_told(1, "rate") is False  # the first refusal is a sentence
    assert gate.already_told(1, "rate") is True  # then a reaction for a minute
    assert gate.already_told(2, "rate") is False  # another member is told too
    assert gate.already_told(1, "too_long") is False  # and another kind of refusal
    now[0] = 60.0
    assert gate.already_told(1, "rate") is False
