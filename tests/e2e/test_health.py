"""HEALTH_PORT: /healthz says what fails, /metrics moves with mentions, model errors and
reminders (read with prometheus-client's own parser), and the presence shows idle when degraded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.i18n import answers
from bot.runtime.clock import ManualClock
from tests.e2e.harness import RunningBot, running_bot
from tests.e2e.processes import seed_due_reminders
from tests.fakes.discord.gateway import OP_PRESENCE_UPDATE
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, auth_error, text
from tests.fakes.local_server import free_port

pytestmark = pytest.mark.e2e


async def get(otomo: RunningBot, path: str) -> tuple[int, str]:
    """GET a path of the health port."""
    settings = otomo.settings
    url = f"http://{settings.health_host}:{settings.health_port}{path}"
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, await response.text()


async def metrics(otomo: RunningBot) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of /metrics, keyed by name and labels."""
    status, body = await get(otomo, "/metrics")
    assert status == 200
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    """One sample's value; 0 when the series does not exist yet."""
    return samples.get((name, frozenset(labels.items())), 0.0)


async def test_healthz_and_metrics_move_with_mentions_and_model_errors(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, HEALTH_PORT=free_port()) as otomo:
        status, body = await get(otomo, "/healthz")
        assert status == 200, body
        assert '"status": "ok"' in body
        before = await metrics(otomo)

        llm.queue(text("こんにちは！"))
        # Discord is busy once: the reply waits out a 429, which /metrics counts.
        fake.inject("POST", r"/channels/\d+/messages", status=429, retry_after=0.05)
        await otomo.ask("こんにちは")
        answered = await metrics(otomo)

        llm.queue(auth_error())
        _, replies = await otomo.ask("もう一度")
        failed = await metrics(otomo)
        status, body = await get(otomo, "/healthz")
        await otomo.app.operations.watch.update()

    assert value(answered, "otomo_mentions_total", shard="0") == 1
    assert value(answered, "otomo_replies_total", shard="0", outcome="answered") == 1
    assert value(answered, "otomo_reply_seconds_count", shard="0") == 1
    assert value(answered, "otomo_discord_rate_limited_total", scope="user") == 1
    assert (
        value(answered, "otomo_model_calls_total", model="openai/test-model", purpose="chat") == 1
    )
    assert (
        value(answered, "otomo_model_tokens_total", model="openai/test-model", direction="prompt")
        > 0
    )
    assert value(before, "otomo_healthy", check="gateway") == 1
    assert value(answered, "otomo_gateway_connected", shard="0") == 1

    # The model refused its key: an honest sentence for the member, 503 and idle for the operator.
    assert answers.MODEL_UNAVAILABLE("ja") in replies[-1]["content"]
    assert value(failed, "otomo_model_errors_total", model="openai/test-model", kind="auth") == 1
    assert value(failed, "otomo_replies_total", shard="0", outcome="failed") == 1
    assert value(failed, "otomo_healthy", check="model") == 0
    assert status == 503 and '"model": {"ok": false' in body
    presences = [op["d"] for op in fake.received_ops if op.get("op") == OP_PRESENCE_UPDATE]
    assert presences and presences[-1]["status"] == "idle"


async def test_metrics_count_reminders_due_delivered_and_late(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # An hour after the seeded reminder's time: it is due, and an hour late when posted.
    clock = ManualClock(datetime.now(UTC) + timedelta(hours=1))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, HEALTH_PORT=free_port()
    ) as otomo:
        await seed_due_reminders(otomo.settings.database_url, [GENERAL_CHANNEL_ID])
        waiting = await metrics(otomo)
        assert await otomo.reminders.run_due() == 1
        posted = await metrics(otomo)

    assert value(waiting, "otomo_reminders_due") == 1
    assert value(posted, "otomo_reminders_due") == 0
    assert value(posted, "otomo_reminders_delivered_total", shard="0") == 1
    assert value(posted, "otomo_reminders_late_total", shard="0") == 1
    assert value(posted, "otomo_reminder_lateness_seconds_count", shard="0") == 1
    assert value(posted, "otomo_reminder_lateness_seconds_sum", shard="0") >= 3500
