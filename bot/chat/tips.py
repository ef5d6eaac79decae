"""どうでもいいTips: a short piece of trivia on a topic people talk about, posted now and then."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.chat.persona import persona_text
from bot.chat.table import WORD_MAX_CHARS, TipRecord
from bot.chat.word_pool import Topic
from bot.i18n import Language, posts
from bot.runtime.clock import Clock, FreshFor
from bot.runtime.send_failures import post_scheduled
from bot.servers.config import in_quiet_hours
from bot.settings import Settings

log = logging.getLogger(__name__)

AVOID_LAST_TOPICS = 3  # none of the last three tips' topics is picked again
TOPIC_CANDIDATES = 10  # the strongest pool words a topic is drawn from
# How many topics pick_tip_topic needs when handed them: candidates left after the recent ones.
TOPICS_NEEDED = TOPIC_CANDIDATES + AVOID_LAST_TOPICS
HISTORY_KEPT = 100  # tips_history rows kept
MAX_TIP_CHARS = 300

# Used when the word pool is empty or every strong word was used recently.
FALLBACK_TOPICS = (
    "お茶",
    "猫",
    "富士山",
    "カレー",
    "傘",
    "月",
    "コーヒー",
    "パン",
    "折り紙",
    "自転車",
    "温泉",
    "ペンギン",
    "おにぎり",
    "虹",
    "消しゴム",
    "醤油",
    "時計",
    "タコ",
    "雪",
    "金魚",
)

TIP_WRITER_RULES = (
    "あなたは『どうでもいいTips』の書き手です。与えられた話題について、役には立たないけれど"
    "誰かに話したくなる豆知識をひとつだけ書いてください。\n"
    "- 日本語で1〜3文、150文字以内。\n"
    "- 確かな事実だけ。自信がなければ、その話題に関係するよく知られた事実を選ぶ。\n"
    "- 見出し・前置き・ハッシュタグ・メンションは書かず、本文だけを返す。"
)
# For a server whose posts are in English: the same rules, the tip written in English.
TIP_WRITER_RULES_EN = TIP_WRITER_RULES.replace(
    "- 日本語で1〜3文、150文字以内。", "- Write in English: 1-3 sentences, at most 300 characters."
)
# The language of the post, asked each time (the server's choice may change).
PostLanguage = Callable[[], Awaitable[Language]]


async def _default_language() -> Language:
    return "ja"


# The model's answer to (system, user), for a server (its budget and call log) or None.
Complete = Callable[[str, str, int | None], Awaitable[str]]


@dataclass(frozen=True)
class Tip:
    """One piece of trivia and the topic it is about."""

    topic: str
    text: str
    language: Language = "ja"

    def as_text(self) -> str:
        """The tip as a Discord message."""
        return f"{posts.TIP_HEADER(self.language, topic=self.topic)}\n{self.text}"


PostTip = Callable[[Tip], Awaitable[None]]


class TopicSource(Protocol):
    """Where topics come from (the WordPool)."""

    async def recent_topics(self, limit: int = 10, *, guild_id: int | None) -> list[Topic]:
        """A server's strongest topics right now."""
        ...


_HEADER = re.compile(r"^\s*(?:💡\s*)?\**どうでもいい\s*tips\**\s*[:：]?\s*", re.IGNORECASE)


def clean_tip_text(text: str) -> str:
    """The model's answer without quotes, a header of its own, blank runs or excess length."""
    text = text.strip().strip("「」\"'").strip()
    text = _HEADER.sub("", text).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    if len(text) > MAX_TIP_CHARS:
        cut = text[:MAX_TIP_CHARS]
        end = max(cut.rfind("。"), cut.rfind(". "), cut.rfind("！"))
        text = cut[: end + 1] if end > MAX_TIP_CHARS // 2 else cut.rstrip() + "…"
    return text


class Tips:
    """Picks a topic, has the model write a tip, posts it and remembers the topic."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
        complete: Complete,
        topics: TopicSource,
        *,
        kb_dir: Path | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self._settings = settings
        self._complete = complete
        self._topics = topics
        self._kb_dir = kb_dir
        self._rng = rng or random.Random()
        # Read at every chat mention: kept while fresh; a tip posted here is seen at once.
        self._last_topics: FreshFor[tuple[int, int], list[str]] = FreshFor(
            settings.server_settings_refresh_seconds, clock=lambda: clock.now().timestamp()
        )

    def is_quiet(self, now: datetime | None = None) -> bool:
        """Whether now is within TIPS_QUIET_HOURS in the bot's time zone."""
        instant = now or self._clock.now()
        return in_quiet_hours(
            instant.astimezone(self._settings.timezone), self._settings.quiet_hours
        )

    async def last_topics(
        self, count: int = AVOID_LAST_TOPICS, *, guild_id: int | None
    ) -> list[str]:
        """Topics of a server's latest posted tips (and those from before servers had their
        own), newest first; none in a DM."""
        if guild_id is None:
            return []

        async def read() -> list[str]:
            async with self._sessions() as session:
                rows = await session.scalars(
                    select(TipRecord.topic)
                    .where(or_(TipRecord.guild_id == guild_id, TipRecord.guild_id.is_(None)))
                    .order_by(TipRecord.posted_at.desc(), TipRecord.id.desc())
                    .limit(count)
                )
                return list(rows)

        return list(await self._last_topics.get((guild_id, count), read))

    async def pick_tip_topic(
        self, topics: Sequence[Topic] | None = None, *, guild_id: int | None
    ) -> str:
        """A strong recent topic of the server not used by its last tips (a fallback topic if
        none is left).

        Pass topics already read from the pool (strongest first, at least TOPICS_NEEDED) to
        spare a second read of it.
        """
        recent = set(await self.last_topics(guild_id=guild_id))
        if topics is None:
            topics = await self._topics.recent_topics(
                TOPIC_CANDIDATES + len(recent), guild_id=guild_id
            )
        candidates = [t for t in topics if t.word not in recent and len(t.word) <= WORD_MAX_CHARS][
            :TOPIC_CANDIDATES
        ]
        if candidates:
            # Weighted by score: the talk of the day is likelier, but not the only choice.
            chosen = self._rng.choices(candidates, weights=[t.score for t in candidates])
            return chosen[0].word
        fallbacks = [t for t in FALLBACK_TOPICS if t not in recent]
        return self._rng.choice(fallbacks)

    async def write_tip(
        self,
        topic: str | None = None,
        language: Language = "ja",
        *,
        guild_id: int | None,
        persona: str = "",
    ) -> Tip:
        """Ask the model for one tip on topic (picked from the server's when None), in the
        server's persona and language; raises what `complete` raises."""
        chosen = topic or await self.pick_tip_topic(guild_id=guild_id)
        persona = await asyncio.to_thread(persona_text, self._settings, self._kb_dir, persona)
        rules = TIP_WRITER_RULES if language == "ja" else TIP_WRITER_RULES_EN
        text = await self._complete(f"{persona}\n\n{rules}", f"話題: {chosen}", guild_id)
        return Tip(chosen, clean_tip_text(text), language)

    async def post_scheduled_tip(
        self,
        post: PostTip,
        guild_of: Callable[[], int | None] = lambda: None,
        language: PostLanguage = _default_language,
    ) -> Tip | None:
        """Outside the bot's default quiet hours, post a tip to TIPS_CHANNEL_ID on a topic of
        that channel's server (guild_of)."""
        if self.is_quiet():
            log.debug("tips: quiet hours, nothing posted")
            return None
        return await self.post_tip(
            post,
            channel_id=self._settings.tips_channel_id,
            guild_id=guild_of(),
            language=await language(),
        )

    async def post_tip(
        self,
        post: PostTip,
        *,
        channel_id: int | None,
        persona: str = "",
        guild_id: int | None = None,
        language: Language = "ja",
    ) -> Tip | None:
        """Write and post a tip (a server's, when guild_id is given, in its language), then
        remember its topic."""
        try:
            tip = await self.write_tip(language=language, persona=persona, guild_id=guild_id)
        except Exception as exc:  # the model may time out or be down; try at the next run
            log.warning("tips: no tip written this time: %s", exc)
            return None
        if not tip.text:
            log.warning("tips: the model returned an empty tip for %r", tip.topic)
            return None
        posted = await post_scheduled(
            "tips:",
            lambda: post(tip),
            "Check the tips channel (/otomo settings, or TIPS_CHANNEL_ID) and that the bot may "
            "send messages in that channel.",
        )
        if not posted:
            return None
        await self.remember(tip, channel_id, guild_id=guild_id)
        return tip

    async def remember(self, tip: Tip, channel_id: int | None, *, guild_id: int | None) -> None:
        """Record a tip posted in a server so its topic is not picked there again soon; keep
        each server's history short."""
        async with self._sessions() as session, session.begin():
            session.add(
                TipRecord(
                    guild_id=guild_id,
                    topic=tip.topic[:WORD_MAX_CHARS],
                    text=tip.text,
                    channel_id=channel_id,
                    posted_at=self._clock.now(),
                )
            )
            await session.flush()
            same = (
                TipRecord.guild_id.is_(None) if guild_id is None else TipRecord.guild_id == guild_id
            )
            keep = (
                select(TipRecord.id).where(same).order_by(TipRecord.id.desc()).limit(HISTORY_KEPT)
            )
            await session.execute(delete(TipRecord).where(same, TipRecord.id.not_in(keep)))
        # A tip without a server (a DM's) is every server's history too: forget them all.
        self._last_topics.clear()
