"""The tools API: registrations as the design specifies them, and a 4xx naming the field."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request

from bot.extools.api import ToolsAPI
from bot.extools.registration import Registration
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


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"inner": schema}}
    return schema


def _register_text(rig: Rig, **raw_fields: str) -> bytes:
    """A register body in JSON text, where raw_fields are JSON text json.dumps would not write."""
    fields = {
        "name": json.dumps("roll_dice"),
        "description": json.dumps("Roll dice."),
        "callback_url": json.dumps(rig.plugin.callback_url),
        "source": json.dumps("dice"),
        **raw_fields,
    }
    return ("{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}").encode()


# Each of these was a 500 (or was stored and listed) before: the attacker's bodies of issue 21.
@pytest.mark.parametrize(
    ("fields", "status", "field", "words"),
    [
        ({"extra": _nested(100_000)}, 400, "body", "nests too deeply"),
        ({"extra": _nested(40)}, 422, "extra", "nests more than 32 levels"),
        ({"description": '"\\u0000 roll"'}, 422, "description", "NUL"),
        ({"description": '"\\ud800"'}, 422, "description", "surrogate"),
        ({"timeout_seconds": "NaN"}, 422, "timeout_seconds", "not finite"),
        ({"guild_id": "1" + "0" * 5000}, 400, "body", "number too long"),
        ({"guild_id": "92233720368547758070"}, 422, "guild_id", "Discord server id"),
        ({"callback_url": '"http://127.0.0.1\\uff0finvoke"'}, 422, "callback_url", "ASCII"),
        ({"callback_url": '"http://127.0.0.1:99999/x"'}, 422, "callback_url", "not a valid URL"),
        ({"callback_url": '"http://[::1/x"'}, 422, "callback_url", "not a valid URL"),
        ({"callback_url": '"http://127.0.0.1\\\\@evil.test/"'}, 422, "callback_url", "valid URL"),
        (
            {"callback_url": '"http://u:secret@127.0.0.1:9/x"'},
            422,
            "callback_url",
            "user name or password",
        ),
        ({"source": '"dice `**` plugin"'}, 422, "source", "letters, digits"),
        ({"name": '["roll"]'}, 422, "name", "1-64 characters"),
        ({"padding": '"' + "x" * 300_000 + '"'}, 413, None, "larger than 256 KB"),
    ],
)
async def test_a_malformed_body_is_a_4xx_with_a_sentence_never_a_500(
    rig: Rig, fields: dict[str, str], status: int, field: str | None, words: str
) -> None:
    response = await rig.client.post(
        "/api/tools/register",
        data=_register_text(rig, **fields),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )

    answer = await response.json()
    assert response.status == status, answer
    assert answer["ok"] is False and answer["field"] == field
    assert words in answer["error"] and answer["error"].endswith(".")
    assert rig.registry.names() == ["create_reminder"]


@pytest.mark.parametrize(
    ("parameters", "words"),
    [
        ({"type": "object", "properties": "oops"}, "at parameters.properties, 'oops' is not of"),
        ({"type": "object", "properties": {"n": {"type": "integr"}}}, "properties.n.type"),
        ({"type": "object", "required": 7}, "at parameters.required, 7 is not of type 'array'"),
        (_deep_schema(400), "nests more than 32 levels"),
        (_deep_schema(14), "nest more than 24 levels"),
        (
            {
                "type": "object",
                "properties": {
                    f"p{i}": {"type": "string", "description": "d" * 100} for i in range(1500)
                },
            },
            "at most 16,384 are accepted",
        ),
        (
            {"type": "object", "properties": {"n": {"$ref": "http://127.0.0.1:1/schema.json"}}},
            "only references inside the schema",
        ),
        ({"type": "array"}, "JSON-schema object"),
    ],
)
async def test_a_schema_that_is_not_valid_json_schema_or_too_large_is_refused(
    rig: Rig, parameters: dict[str, Any], words: str
) -> None:
    status, answer = await rig.register(parameters=parameters)

    assert (status, answer["field"]) == (422, "parameters")
    assert words in answer["error"]
    assert rig.registry.names() == ["create_reminder"]


async def test_a_schema_pydantic_writes_with_defs_and_local_refs_is_accepted(rig: Rig) -> None:
    parameters = {
        "type": "object",
        "$defs": {"Die": {"type": "object", "properties": {"sides": {"type": "integer"}}}},
        "properties": {
            "die": {"$ref": "#/$defs/Die"},
            "seed": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["die"],
    }

    status, _ = await rig.register(parameters=parameters)

    assert status == 200


async def test_fifty_registrations_at_once_all_succeed(rig: Rig) -> None:
    answers = await asyncio.gather(*(rig.register(name=f"tool_{n}") for n in range(50)))

    assert sorted({status for status, _ in answers}) == [200]
    assert len(await rig.catalog.store.all()) == 50
    assert len(rig.registry.names()) == 51


async def test_fifty_re_registrations_of_one_name_at_once_all_succeed(rig: Rig) -> None:
    answers = await asyncio.gather(
        *(rig.register(description=f"Roll dice, version {n}.") for n in range(50))
    )

    assert sorted({status for status, _ in answers}) == [200]
    (row,) = await rig.catalog.store.all()
    assert row.description.startswith("Roll dice, version ")


async def test_the_number_of_registered_tools_is_capped_with_a_sentence(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.extools.store.MAX_REGISTERED_TOOLS", 2)
    await rig.register(name="a")
    await rig.register(name="b")

    status, answer = await rig.register(name="c")
    again, _ = await rig.register(name="a", description="Still fine.")

    assert status == 409 and "already has 2 tools" in answer["error"]
    assert again == 200


async def test_the_listing_never_shows_credentials_of_a_callback_url(
    rig: Rig,
) -> None:
    # A row stored before user names and passwords were refused at registration.
    await rig.catalog.register(
        Registration(
            name="old_tool",
            description="Registered long ago.",
            parameters={"type": "object", "properties": {}},
            callback_url=f"http://bob:hunter2@127.0.0.1:{rig.plugin._port}/invoke?key=s3cret&x=1",
            source="old",
        )
    )

    response = await rig.client.get("/api/tools", headers={"Authorization": f"Bearer {TOKEN}"})

    text = await response.text()
    assert "hunter2" not in text and "bob" not in text and "s3cret" not in text
    (tool,) = (await response.json())["tools"]
    assert tool["callback_url"] == f"http://127.0.0.1:{rig.plugin._port}/invoke?key=…&x=…"


@pytest.mark.parametrize(
    ("method", "path", "status", "words"),
    [
        ("GET", "/api/tools/register", 405, "does not take that method"),
        ("POST", "/api/tools/nothing", 404, "no such endpoint"),
    ],
)
async def test_a_wrong_path_or_method_is_answered_in_json(
    rig: Rig, method: str, path: str, status: int, words: str
) -> None:
    response = await rig.client.request(method, path, headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status == status
    assert words in (await response.json())["error"]
