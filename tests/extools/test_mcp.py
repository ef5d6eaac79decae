"""MCP servers: tools offered as mcp.<server>.<tool>, errors as sentences, reconnection."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.agent.tools import ToolRegistry, execute
from bot.extools.mcp import MCPServers
from bot.extools.mcp_config import MCPConfigError, MCPServerConfig, exposed_name, load_mcp_servers
from tests.extools.conftest import HANDLERS, Rig, eventually
from tests.fakes.local_server import free_port
from tests.fakes.netguard import child_env

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_dice_server.py"


@pytest.fixture
async def dice(tmp_path: Path) -> AsyncIterator[tuple[MCPServers, ToolRegistry, Path]]:
    """The dice server over stdio and a server whose command does not exist."""
    pidfile = tmp_path / "pid"
    registry = ToolRegistry()
    servers = MCPServers(
        [
            MCPServerConfig("dice", command=sys.executable, args=(str(SERVER), str(pidfile))),
            MCPServerConfig("broken", command=str(tmp_path / "no-such-command")),
        ],
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        timeout=10,
        ping_every=0.2,
    )
    servers.start()
    await asyncio.wait_for(servers.connected.wait(), 30)
    yield servers, registry, pidfile
    await servers.stop()


async def test_a_servers_tools_are_offered_under_the_name_rule_with_approval(
    dice: tuple[MCPServers, ToolRegistry, Path],
) -> None:
    _, registry, _ = dice

    assert registry.names() == ["mcp.dice.fail_now", "mcp.dice.roll", "mcp.dice.wait"]
    roll = registry.get("mcp.dice.roll")
    assert roll is not None
    assert roll.source == "mcp:dice" and roll.requires_approval
    assert roll.provider is not None  # approvals and grants hold for this server's roll only
    assert roll.parameters["required"] == ["sides"]
    assert roll.handlers == HANDLERS


async def test_a_call_returns_the_servers_result_and_an_error_is_a_sentence(
    dice: tuple[MCPServers, ToolRegistry, Path], rig: Rig
) -> None:
    _, registry, _ = dice

    roll, fail = registry.get("mcp.dice.roll"), registry.get("mcp.dice.fail_now")
    assert roll is not None and fail is not None

    rolled = await execute(roll, rig.context(), {"sides": 6, "times": 2})
    failed = await execute(fail, rig.context(), {})

    assert rolled.is_error is False and rolled.output["total"] == 12
    assert failed.is_error
    assert "mcp.dice.fail_now reported an error" in failed.output
    assert "fell off the table" in failed.output


async def test_a_call_slower_than_the_timeout_is_a_sentence_and_the_server_stays(
    tmp_path: Path, rig: Rig
) -> None:
    registry = ToolRegistry()
    servers = MCPServers(
        [MCPServerConfig("slow", command=sys.executable, args=(str(SERVER),))],
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        timeout=0.5,
    )
    servers.start()
    try:
        await asyncio.wait_for(servers.connected.wait(), 30)
        wait, roll = registry.get("mcp.slow.wait"), registry.get("mcp.slow.roll")
        assert wait is not None and roll is not None
        waited = await execute(wait, rig.context(), {"seconds": 5})
        rolled = await execute(roll, rig.context(), {"sides": 3})
    finally:
        await servers.stop()

    assert waited.is_error
    assert "mcp.slow.wait did not answer within 0.5 seconds" in waited.output
    assert rolled.is_error is False


async def test_a_server_that_cannot_start_is_listed_with_why_and_the_rest_works(
    dice: tuple[MCPServers, ToolRegistry, Path],
) -> None:
    servers, registry, _ = dice
    await eventually(lambda: any(s.detail for s in servers.statuses()))

    statuses = {s.name: s for s in servers.statuses()}

    broken = statuses["mcp.broken.*"]
    assert broken.available is False and broken.detail is not None
    assert "No such file or directory" in broken.detail
    assert registry.get("mcp.dice.roll") is not None


async def test_a_failing_server_is_reported_with_a_sentence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="bot.extools.mcp")
    servers = MCPServers(
        [MCPServerConfig("ghost", command=str(tmp_path / "missing"))],
        ToolRegistry(),
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        timeout=5,
    )
    servers.start()
    try:
        await eventually(lambda: bool(caplog.records), 10)
    finally:
        await servers.stop()

    (record,) = caplog.records
    assert "MCP server 'ghost' could not be used" in record.getMessage()
    assert "Otomo runs without its tools" in record.getMessage()


async def test_a_server_that_restarts_is_reconnected(
    dice: tuple[MCPServers, ToolRegistry, Path], rig: Rig
) -> None:
    _, registry, pidfile = dice
    first = int(pidfile.read_text())

    os.kill(first, signal.SIGKILL)
    await eventually(lambda: pidfile.read_text() not in ("", str(first)))
    await eventually(lambda: registry.get("mcp.dice.roll") is not None)
    roll = registry.get("mcp.dice.roll")
    assert roll is not None
    rolled = await execute(roll, rig.context(), {"sides": 4})

    assert rolled.is_error is False
    assert rolled.output["pid"] != first


async def test_a_streamable_http_server_is_used_once_it_comes_up(rig: Rig) -> None:
    port = free_port()
    registry = ToolRegistry()
    servers = MCPServers(
        [MCPServerConfig("web", url=f"http://127.0.0.1:{port}/mcp", headers={"X-Key": "k"})],
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset({"mcp:web"}),
        timeout=10,
    )
    servers.start()  # before the server runs: the first attempts fail and are retried
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        "--http",
        str(port),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        env=child_env(),
    )
    try:
        await asyncio.wait_for(servers.connected.wait(), 30)
        roll = registry.get("mcp.web.roll")
        assert roll is not None and roll.requires_approval is False
        rolled = await execute(roll, rig.context(), {"sides": 8})
    finally:
        await servers.stop()
        process.terminate()
        await process.wait()

    assert rolled.is_error is False and rolled.output["total"] == 8


def test_long_or_unusual_names_stay_within_the_name_rule() -> None:
    assert exposed_name("files", "read/file") == "mcp.files.read_file"
    long = exposed_name("a" * 40, "b" * 40)
    assert len(long) == 64 and long.startswith("mcp.aaaa")
    assert long != exposed_name("a" * 40, "b" * 41)


def test_the_common_mcp_servers_file_shape_is_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "npx", "args": ["-y", "server"], "env": {"A": "1"}},
                    "search": {"url": "http://127.0.0.1:9000/mcp", "headers": {"X": "y"}},
                    "off": {"command": "x", "disabled": True},
                }
            }
        )
    )

    files, search = load_mcp_servers(path, HANDLERS)

    assert (files.transport, files.args, files.env) == ("stdio", ("-y", "server"), {"A": "1"})
    assert (search.transport, search.headers) == ("http", {"X": "y"})


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "is not valid JSON"),
        ('{"servers": {}}', 'must hold {"mcpServers"'),
        ('{"mcpServers": {"x": {}}}', "needs either a command (stdio) or a url"),
        ('{"mcpServers": {"x": {"url": "ftp://h"}}}', "url must start with http://"),
    ],
)
def test_a_bad_servers_file_is_a_sentence(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content)

    with pytest.raises(MCPConfigError) as raised:
        load_mcp_servers(path, HANDLERS)

    assert words in str(raised.value)


def test_what_the_sdk_imports_at_its_first_tool_result_is_loaded_with_the_module() -> None:
    """The first MCP tool result costs no import on the event loop: the bot loads it at start-up."""
    probe = (
        "import sys; import bot.extools.mcp; "
        "print(sorted(m for m in ('jsonschema.validators', 'referencing.exceptions') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=child_env()
    )
    assert done.stdout.strip() == "['jsonschema.validators', 'referencing.exceptions']"


@pytest.fixture
async def careless(
    caplog: pytest.LogCaptureFixture,
) -> AsyncIterator[ToolRegistry]:
    """A server with a tool of any answer size and two names that meet once mapped."""
    caplog.set_level(logging.WARNING, logger="bot.extools.mcp")
    registry = ToolRegistry()
    servers = MCPServers(
        [MCPServerConfig("atk", command=sys.executable, args=(str(SERVER), "--attacks"))],
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        timeout=30,
        max_answer_bytes=1_000_000,
        max_result_chars=2_000,
    )
    servers.start()
    await asyncio.wait_for(servers.connected.wait(), 30)
    yield registry
    await servers.stop()


async def test_an_mcp_answer_over_the_byte_cap_is_an_error_for_the_model(
    careless: ToolRegistry, rig: Rig
) -> None:
    big = careless.get("mcp.atk.big")
    assert big is not None

    outcome = await execute(big, rig.context(), {"chars": 5_000_000})

    assert outcome.is_error and "more than 1,000,000 bytes" in outcome.output
    assert len(outcome.to_content()) < 1000


async def test_a_long_mcp_answer_is_cut_for_the_model_with_a_note(
    careless: ToolRegistry, rig: Rig
) -> None:
    big = careless.get("mcp.atk.big")
    assert big is not None

    outcome = await execute(big, rig.context(), {"chars": 50_000})

    assert not outcome.is_error
    # The SDK gives the text as structured content too: {"result": "xxx…"} is what is cut.
    kept, note = outcome.output.split("\n[cut by Otomo: ")
    assert kept == ('{"result": "' + "x" * 50_000)[:2_000]
    assert note.startswith("the tool's answer had 50,014 characters; only the first 2,000")


async def test_mcp_arguments_are_checked_against_the_schema_before_the_call(
    careless: ToolRegistry, rig: Rig
) -> None:
    big = careless.get("mcp.atk.big")
    assert big is not None

    outcome = await execute(big, rig.context(), {"chars": "many"})

    assert outcome.is_error
    assert "at arguments.chars, 'many' is not of type 'integer'" in outcome.output


async def test_two_mcp_tools_that_meet_under_one_name_are_not_dropped_silently(
    careless: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    offered = careless.get("mcp.atk.spell_check")
    assert offered is not None

    logged = caplog.get_records("setup") + caplog.records  # the fixture connected the server
    refused = [r.getMessage() for r in logged if "is not offered" in r.getMessage()]
    (sentence,) = refused
    assert "its name becomes mcp.atk.spell_check" in sentence
    assert "Rename one of them in the server" in sentence
    described = {"Check spelling (the dotted one).", "Check spelling (the plain one)."}
    assert offered.description in described
