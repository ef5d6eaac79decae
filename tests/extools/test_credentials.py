"""Plugin credentials: a token per source, made on the host, stored hashed, and the only way a
source's tools are trusted."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from sqlalchemy import select

from bot.extools.credentials import token_hash
from bot.storage import Database
from bot.storage.external_tools import ToolCredentialRow
from tests.extools.conftest import TOKEN, Rig
from tests.fakes.netguard import child_env


async def test_a_plugin_token_registers_under_its_own_source(rig: Rig) -> None:
    token = await rig.credentials.create("dice")

    status, answer = await rig.register(token, source="dice")

    assert status == 200 and answer["registered"] == "roll_dice"
    (row,) = await rig.catalog.store.all()
    assert row.credential_id is not None


async def test_a_plugin_token_cannot_register_under_another_source(rig: Rig) -> None:
    token = await rig.credentials.create("dice")

    status, answer = await rig.register(token, source="weather_station")

    assert (status, answer["field"]) == (403, "source")
    assert "belongs to source 'dice'" in answer["error"]
    assert rig.registry.names() == ["create_reminder"]


async def test_the_shared_token_cannot_speak_for_a_source_that_has_its_own(rig: Rig) -> None:
    await rig.credentials.create("dice")

    status, answer = await rig.register(TOKEN, source="dice")

    assert (status, answer["field"]) == (403, "source")
    assert "has its own token" in answer["error"]


async def test_trust_is_not_self_declared_with_the_shared_token(rig: Rig) -> None:
    # "trusted_source" is in TRUSTED_TOOL_SOURCES (see the rig) but has no credential yet.
    status, answer = await rig.register(TOKEN, source="trusted_source")

    assert status == 200 and answer["trusted"] is False
    found = rig.registry.get("roll_dice")
    assert found is not None and found.requires_approval


async def test_a_name_registered_with_a_token_is_not_taken_by_another_source(rig: Rig) -> None:
    alpha = await rig.credentials.create("alpha")
    evil = await rig.credentials.create("evil")
    await rig.register(alpha, source="alpha")

    by_evil = await rig.register(evil, source="evil", callback_url="http://127.0.0.1:9/evil")
    by_shared = await rig.register(TOKEN, source="other", callback_url="http://127.0.0.1:9/x")

    assert by_evil[0] == 409 and "belongs to source 'alpha'" in by_evil[1]["error"]
    assert by_shared[0] == 409
    (row,) = await rig.catalog.store.all()
    assert (row.source, row.callback_url) == ("alpha", rig.plugin.callback_url)


async def test_a_plugin_token_sees_and_removes_only_its_own_tools(rig: Rig) -> None:
    dice = await rig.credentials.create("dice")
    await rig.register(dice, name="roll_dice", source="dice")
    await rig.register(TOKEN, name="other_tool", source="other")

    listed = await rig.client.get("/api/tools", headers={"Authorization": f"Bearer {dice}"})
    unregistered = await rig.post("/api/tools/unregister", {"name": "other_tool"}, dice)
    cleared = await rig.post("/api/tools/clear", {"source": "other"}, dice)
    by_shared = await rig.post("/api/tools/unregister", {"name": "roll_dice"}, TOKEN)

    assert [t["name"] for t in (await listed.json())["tools"]] == ["roll_dice"]
    assert unregistered[0] == 404
    assert cleared[0] == 403
    assert by_shared[0] == 403 and "own token" in by_shared[1]["error"]
    assert rig.registry.names() == ["create_reminder", "other_tool", "roll_dice"]


async def test_a_revoked_token_no_longer_opens_the_api_and_its_tools_are_gone(rig: Rig) -> None:
    token = await rig.credentials.create("dice")
    await rig.register(token, source="dice")

    count, names = await rig.credentials.revoke("dice")
    await rig.catalog.refresh()
    status, _ = await rig.register(token, name="again", source="dice")

    assert (count, names) == (1, ["roll_dice"])
    assert status == 401
    assert rig.registry.names() == ["create_reminder"]


async def test_only_a_hash_of_a_token_is_stored(rig: Rig, database: Database) -> None:
    token = await rig.credentials.create("dice")

    async with database.sessions() as session:
        (row,) = (await session.scalars(select(ToolCredentialRow))).all()

    assert row.token_hash == token_hash(token) and token not in row.token_hash
    assert token.startswith("otomo_pt_") and len(token) > 40


async def test_the_owner_creates_a_token_from_the_command_line(
    rig: Rig, database_url: str, tmp_path: Path
) -> None:
    environ = child_env({"PATH": os.environ.get("PATH", ""), "DATABASE_URL": database_url})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "tools",
        "token",
        "create",
        "dice",
        env=environ,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await process.communicate()

    token, explanation, *_ = out.decode().splitlines()
    assert process.returncode == 0
    assert "registers tools under source 'dice' only" in explanation
    status, _ = await rig.register(token, source="dice")
    assert status == 200
