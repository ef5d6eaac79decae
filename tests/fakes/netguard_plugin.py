"""Pytest plugin: any test that reaches beyond 127.0.0.1 fails.

Enable it from the top-level ``tests/conftest.py``::

    pytest_plugins = ["tests.fakes.netguard_plugin"]

The guard is installed for the whole session (so module- and session-scoped fixtures are covered
too) and the autouse ``no_network`` fixture fails each test that made a refused attempt, even if
the code under test caught the :class:`~tests.fakes.netguard.NetworkBlocked` it raised. A test
that provokes a refusal on purpose wraps it in ``netguard.expect_blocked()``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes import netguard


def pytest_configure(config: pytest.Config) -> None:
    """Guard from the start of the session, before any fixture runs."""
    netguard.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give the real sockets back when pytest is done."""
    netguard.uninstall()


@pytest.fixture(autouse=True)
def no_network() -> Iterator[None]:
    """Fail the test if it (or a fixture set up before it) tried to leave the machine."""
    __tracebackhide__ = True  # the failure message says it all; the fixture's frame is noise
    netguard.install()  # a test may have uninstalled it
    earlier = netguard.take_attempts()
    yield
    refused = earlier + netguard.take_attempts()
    if refused:
        listed = "\n  ".join(str(a) for a in refused)
        pytest.fail(f"netguard: network access outside 127.0.0.1 was attempted:\n  {listed}")
