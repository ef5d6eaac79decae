"""The per-member rate limit: a sliding window, and memory only for members still in it."""

from __future__ import annotations

from bot.discord_ui.answering.gate import SWEEP_AT_LEAST, RateLimiter


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
