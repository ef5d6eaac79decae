"""The tools API: registrations as the design specifies them, and a 4xx naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request

from bot.extools.api import ToolsAPI
from tests.extools.conftest import TOKEN, Rig


async def test_a_registration_is_stored_offered_in_its_scope_and_listed(rig: Rig) -> None:
    status, body = await rig.register(handlers=["chat"], guild_id="42")

    assert status == 200
    assert body == {
        "ok": True,
        "registered": "roll_dice",
        "handlers": ["chat"],
        "guild_id": "42",
        "disabled": False,
        "trusted": False,
    }
    assert [t.name for t in rig.registry.select([], 42, "chat")] == ["roll_dice"]
    assert rig.registry.select([], 42, "general") == []
    assert rig.registry.select([], 7, "chat") == []
    listed = await (
        await rig.client.get("/api/tools", headers={"Authorization": f"Bearer {TOKEN}"})
    ).json()
    (row,) = listed["tools"]
    assert (row["name"], row["source"], row["available"]) == ("roll_dice", "dice", True)


async def test_registering_a_name_again_overwrites_it(rig: Rig) -> None:
    await rig.register(description="Old text.")
    status, _ = await rig.register(description="New text.", timeout_seconds=12)

    assert status == 200
    found = rig.registry.get("roll_dice")
    assert found is not None and found.description == "New text."
    assert len(await rig.catalog.store.all()) == 1


async def test_unregister_and_clear_by_source_remove_tools(rig: Rig) -> None:
    await rig.register(name="a", source="one")
    await rig.register(name="b", source="one")
    await rig.register(name="c", source="two")

    assert await rig.post("/api/tools/unregister", {"name": "c"}) == (
        200,
        {"ok": True, "unregistered": "c"},
    )
    assert await rig.post("/api/tools/clear", {"source": "one"}) == (
        200,
        {"ok": True, "source": "one", "cleared": ["a", "b"]},
    )
    assert rig.registry.names() == ["create_reminder"]


@pytest.mark.parametrize(
    ("path", "body", "token", "status", "field", "words"),
    [
        (
            "/api/tools/register",
            {"callback_url": "http://192.0.2.7:9000/invoke"},
            TOKEN,
            422,
            "callback_url",
            "must point at this machine",
        ),
        ("/api/tools/register", {"name": "roll dice!"}, TOKEN, 422, "name", "1-64 characters"),
        ("/api/tools/register", {"name": "x" * 65}, TOKEN, 422, "name", "1-64 characters"),
        (
            "/api/tools/register",
            {"timeout_seconds": 301},
            TOKEN,
            422,
            "timeout_seconds",
            "at most 300",
        ),
        ("/api/tools/register", {}, None, 401, "Authorization", "Bearer"),
        ("/api/tools/register", {}, "wrong-token-000000000", 401, "Authorization", "Bearer"),
        ("/api/tools/clear", {"source": ""}, TOKEN, 422, "source", "source is required"),
        ("/api/tools/clear", {}, TOKEN, 422, "source", "source is required"),
        (
            "/api/tools/register",
            {"name": "create_reminder"},
            TOKEN,
            409,
            "name",
            "built-in tool",
        ),
        ("/api/tools/register", {"name": "mcp.x.y"}, TOKEN, 422, "name", "kept for MCP"),
        ("/api/tools/register", {"handlers": ["games"]}, TOKEN, 422, "handlers", "unknown"),
        ("/api/tools/register", {"parameters": []}, TOKEN, 422, "parameters", "JSON-schema"),
        ("/api/tools/register", {"role": "小八"}, TOKEN, 422, "role", "handlers and guild_id"),
        ("/api/tools/unregister", {"name": "nothing"}, TOKEN, 404, "name", "No tool called"),
    ],
)
async def test_each_refusal_is_a_4xx_with_a_sentence_naming_the_field(
    rig: Rig,
    path: str,
    body: dict[str, Any],
    token: str | None,
    status: int,
    field: str,
    words: str,
) -> None:
    if path.endswith("register"):
        payload = {
            "name": "roll_dice",
            "description": "Roll dice.",
            "callback_url": rig.plugin.callback_url,
            "source": "dice",
            **body,
        }
    else:
        payload = body

    got_status, answer = await rig.post(path, payload, token)

    assert got_status == status
    assert answer["ok"] is False
    assert answer["field"] == field
    assert words in answer["error"]
    assert answer["error"].endswith(".")
    assert rig.registry.names() == ["create_reminder"]


async def test_a_body_that_is_not_json_is_refused_with_400(rig: Rig) -> None:
    response = await rig.client.post(
        "/api/tools/register", data=b"name=x", headers={"Authorization": f"Bearer {TOKEN}"}
    )

    assert response.status == 400
    assert (await response.json())["field"] == "body"


class _Transport:
    def __init__(self, peer: tuple[str, int]) -> None:
        self.peer = peer

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peer if name == "peername" else default

    def is_closing(self) -> bool:
        return False


async def test_a_caller_from_another_machine_is_refused_even_with_the_token(rig: Rig) -> None:
    api = ToolsAPI(rig.catalog, TOKEN, "127.0.0.1", 0)
    request = make_mocked_request(
        "GET",
        "/api/tools",
        headers={"Authorization": f"Bearer {TOKEN}"},
        transport=_Transport(("198.51.100.4", 40000)),
    )

    async def handler(_: Any) -> Any:
        raise AssertionError("the handler must not run")

    response = await api._guard(request, handler)

    assert response.status == 403
