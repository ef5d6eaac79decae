"""Shared fixtures: the network guard, settings built from a dict, a manual clock; databases
(both engines) come from tests/databases.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# Before anything imports litellm: use the bundled price map instead of downloading one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

from bot.runtime.clock import ManualClock
from bot.settings import Settings, load_settings

# CI checks the same examples on every run, so a red build always means a change broke it.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI") == "true":
    hypothesis_settings.load_profile("ci")

pytest_plugins = ["tests.fakes.netguard_plugin", "tests.databases"]

# A Sunday evening in Tokyo, away from any DST edge.
START = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    """A clock that moves only when the test says so."""
    return ManualClock(START)


@pytest.fixture
def make_settings() -> Callable[..., Settings]:
    """Build Settings from environment-style keyword arguments, ignoring any .env file."""

    def build(**values: Any) -> Settings:
        environ = {"DATABASE_URL": "sqlite+aiosqlite://", **{k: str(v) for k, v in values.items()}}
        return load_settings(environ=environ, env_file=None)

    return build
