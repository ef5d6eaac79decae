"""どうでもいいTips: quiet hours, topic choice without repeats (even after a restart), posting."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from bot.chat.table import TipRecord
from bot.chat.tips import (
    FALLBACK_TOPICS,
    HISTORY_KEPT,
    Tip,
    Tips,
    clean_tip_text,
)
from bot.chat.word_pool import WordPool
from bot.runtime.clock import ManualClock
from bot.runtime.send_failures import PermanentSendError, RetryableSendError
from bot.servers.config import in_quiet_hours
from bot.settings import Settings
from bot.storage.engine import Database

TOKYO = ZoneInfo("Asia/Tokyo")

# The server whose members talk in these tests.
GUILD = 1


class Model:
    """A scripted `complete(system, user)`: records prompts, answers or fails."""

    def __init__(self, answer: str = "カレーは翌日のほうがおいしいと言われます。") -> None:
        self.answer = answer
        self.error: Exception | None = None
        self.prompts: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str, guild_id: int | None = None) -> str:
        self.prompts.append((system, user))
        if self.error is not None:
            raise self.error
        return self.answer


class Channel:
    """Records posted tips; can fail like Discord would."""

    def __init__(self) -> None:
        self.posted: list[Tip] = []
        self.error: Exception | None = None

    async def post(self, tip: Tip) -> None:
        if self.error is not None:
            raise self.error
        self.posted.append(tip)


def make_tips(
    db: Database,
    clock: ManualClock,
    settings: Settings,
    pool: WordPool,
    model: Model,
    seed: int = 1,
) -> Tips:
    return Tips(db.sessions, clock, settings, model, pool, rng=random.Random(seed))


async def history(db: Database) -> list[str]:
    async with db.sessions() as session:
        return list(await session.scalars(select(TipRecord.topic).order_by(TipRecord.id)))


@pytest.mark.parametrize(
    ("hour", "quiet", "expected"),
    [
        (0, (0, 7), True),
        (6, (0, 7), True),
        (7, (0, 7), False),
        (23, (0, 7), False),
        (23, (22, 6), True),
        (3, (22, 6), True),
        (12, (22, 6), False),
        (3, None, False),
        (3, (5, 5), False),
    ],
)
def test_quiet_hours_are_local_hour_ranges_that_may_wrap_midnight(
    hour: int, quiet: tuple[int, int] | None, expected: bool
) -> None:
    assert in_quiet_hours(datetime(2025, 11, 29, hour, 30, tzinfo=TOKYO), quiet) is expected


async def test_nothing_is_written_or_posted_during_quiet_hours(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    clock.set(datetime(2025, 11, 30, 3, 0, tzinfo=TOKYO))  # 03:00 local, inside 0-7
    model, channel = Model(), Channel()
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), model)
    assert tips.is_quiet()
    assert await tips.post_scheduled_tip(channel.post, lambda: GUILD) is None
    assert model.prompts == [] and channel.posted == []


async def test_a_tip_is_written_on_a_pool_topic_posted_and_remembered(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    pool.observe("カレーが食べたい", 1, GUILD)
    model, channel = (
        Model("「どうでもいいTips: カレーは翌日のほうがおいしいと言われます。」"),
        Channel(),
    )
    tip = await make_tips(db, clock, settings, pool, model).post_scheduled_tip(
        channel.post, lambda: GUILD
    )
    assert tip == Tip("カレー", "カレーは翌日のほうがおいしいと言われます。")
    assert channel.posted == [tip]
    system, user = model.prompts[0]
    assert "どうでもいいTips" in system and "150文字以内" in system
    assert "おとも" in system  # the persona
    assert user == "話題: カレー"
    assert await history(db) == ["カレー"]
    assert (
        tip.as_text()
        == "💡 **どうでもいいTips**（カレー）\nカレーは翌日のほうがおいしいと言われます。"
    )


async def test_the_same_topic_is_never_picked_twice_in_a_row(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    for _ in range(50):
        pool.observe("ラーメン", 1, GUILD)
    pool.observe("餃子とチャーハン", 1, GUILD)
    tips = make_tips(db, clock, settings, pool, Model())
    channel = Channel()
    for _ in range(4):
        await tips.post_scheduled_tip(channel.post, lambda: GUILD)
        clock.advance(timedelta(hours=1))
    topics = [t.topic for t in channel.posted]
    assert len(topics) == 4
    assert topics[0] == "ラーメン"  # fifty times more likely than the others
    assert all(a != b for a, b in itertools.pairwise(topics))
    assert len(set(topics[:3])) == 3


async def test_a_restart_does_not_repeat_the_last_topic(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    for _ in range(50):
        pool.observe("ラーメン", 1, GUILD)
    pool.observe("うどん", 1, GUILD)
    await pool.flush()
    before = await make_tips(db, clock, settings, pool, Model()).post_scheduled_tip(
        Channel().post, lambda: GUILD
    )
    assert before is not None and before.topic == "ラーメン"

    # A new process: new pool and Tips objects on the same database.
    restarted_pool = WordPool(db.sessions, clock, settings)
    after = await make_tips(db, clock, settings, restarted_pool, Model(), seed=2).pick_tip_topic(
        guild_id=GUILD
    )
    assert after == "うどん"


async def test_an_empty_pool_falls_back_to_built_in_topics(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), Model())
    channel = Channel()
    for _ in range(3):
        await tips.post_scheduled_tip(channel.post, lambda: GUILD)
    topics = [t.topic for t in channel.posted]
    assert all(t in FALLBACK_TOPICS for t in topics)
    assert len(set(topics)) == 3


async def test_a_model_failure_posts_and_remembers_nothing(
    db: Database, clock: ManualClock, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    model, channel = Model(), Channel()
    model.error = TimeoutError("model timed out")
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), model)
    assert await tips.post_scheduled_tip(channel.post, lambda: GUILD) is None
    assert channel.posted == [] and await history(db) == []
    assert "no tip written" in caplog.text


@pytest.mark.parametrize(
    ("error", "level"),
    [
        (RetryableSendError("Discord 503"), "WARNING"),
        (PermanentSendError("Missing Access"), "ERROR"),
    ],
)
async def test_a_failed_post_is_logged_and_not_remembered(
    db: Database,
    clock: ManualClock,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    level: str,
) -> None:
    channel = Channel()
    channel.error = error
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), Model())
    assert await tips.post_scheduled_tip(channel.post, lambda: GUILD) is None
    assert await history(db) == []
    record = next(r for r in caplog.records if "tips: not posted" in r.getMessage())
    assert record.levelname == level


async def test_an_on_demand_tip_uses_the_given_topic(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    model = Model("ペンギンの膝は羽毛の中に隠れています。")
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), model)
    tip = await tips.write_tip("ペンギン", guild_id=GUILD)
    assert tip == Tip("ペンギン", "ペンギンの膝は羽毛の中に隠れています。")
    assert model.prompts[0][1] == "話題: ペンギン"


async def test_the_history_is_kept_short(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), Model())
    for n in range(HISTORY_KEPT + 5):
        await tips.remember(Tip(f"話題{n}", "本文"), 555, guild_id=GUILD)
    async with db.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(TipRecord)) == HISTORY_KEPT
    assert await tips.last_topics(2, guild_id=GUILD) == [
        f"話題{HISTORY_KEPT + 4}",
        f"話題{HISTORY_KEPT + 3}",
    ]


def test_tip_text_is_cleaned_and_bounded() -> None:
    assert clean_tip_text("  **どうでもいいTips**：タコの心臓は3つ。 ") == "タコの心臓は3つ。"
    long = "あ" * 200 + "。" + "い" * 200
    assert clean_tip_text(long) == "あ" * 200 + "。"
    assert clean_tip_text("う" * 500).endswith("…")
    assert len(clean_tip_text("う" * 500)) == 301


async def test_each_server_keeps_its_own_tips_history_and_the_old_history_counts_everywhere(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    tips = make_tips(db, clock, settings, WordPool(db.sessions, clock, settings), Model())
    await tips.remember(Tip("昔の話題", "本文"), 555, guild_id=None)  # from before servers
    await tips.remember(Tip("ラーメン", "本文"), 555, guild_id=GUILD)
    for n in range(HISTORY_KEPT + 2):
        await tips.remember(Tip(f"競馬{n}", "本文"), 777, guild_id=GUILD + 1)

    here = await tips.last_topics(10, guild_id=GUILD)
    there = await tips.last_topics(HISTORY_KEPT + 5, guild_id=GUILD + 1)

    assert here == ["ラーメン", "昔の話題"]
    assert "ラーメン" not in there and there[0] == f"競馬{HISTORY_KEPT + 1}"
    assert await tips.last_topics(10, guild_id=None) == []
    # Another server's busy history never pushes this server's out.
    assert "ラーメン" in await history(db)


async def test_a_tip_for_a_server_never_takes_another_servers_topic(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    pool.observe("競馬の話", 1, GUILD + 1)
    pool.observe("ラーメンが食べたい", 1, GUILD)
    tips = make_tips(db, clock, settings, pool, Model())

    assert await tips.pick_tip_topic(guild_id=GUILD) == "ラーメン"
