"""Settings of a bot split over several processes: which Discord shards this one runs."""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from bot.runtime.shards import ShardPlan
from bot.settings.outside_tools import blank_to_none, split_list

# Discord asks for a shard per 1,000-2,500 guilds; far more than any community needs.
MAX_SHARDS = 1024


class ShardSettings(BaseModel):
    """SHARD_COUNT shards in all; SHARD_IDS the ones this process runs (default: all); how
    long the once-per-bot jobs lease lasts."""

    shard_count: Annotated[int | None, BeforeValidator(blank_to_none)] = Field(
        None, ge=1, le=MAX_SHARDS, alias="SHARD_COUNT"
    )
    shard_ids: Annotated[list[int], BeforeValidator(split_list)] = Field(
        default_factory=list, alias="SHARD_IDS"
    )
    # The holder of the once-per-bot jobs renews every third of it; others take over after it.
    jobs_lease_seconds: float = Field(45.0, ge=3, le=600, alias="JOBS_LEASE_SECONDS")

    @model_validator(mode="after")
    def _shards_fit(self) -> Self:
        if self.shard_ids and self.shard_count is None:
            raise ValueError(
                "SHARD_IDS needs SHARD_COUNT too: set SHARD_COUNT to the number of shards of the "
                "whole bot (the same in every process), e.g. SHARD_COUNT=2 with SHARD_IDS=0"
            )
        count = self.shard_count or 1
        wrong = [i for i in self.shard_ids if not 0 <= i < count]
        if wrong:
            raise ValueError(
                f"SHARD_IDS {wrong} are outside 0..{count - 1}: shard ids count from 0 and are "
                f"below SHARD_COUNT ({count})"
            )
        return self

    @property
    def shard_plan(self) -> ShardPlan:
        """The shards of the whole bot and those this process runs."""
        return ShardPlan.of(self.shard_count, tuple(self.shard_ids) or None)


def shard_hints() -> dict[str, Any]:
    """Advice for the shard settings when pydantic's own message would not help."""
    return {"SHARD_IDS": "must be shard numbers separated by commas, such as 0,1"}
