"""The Edit form of an approval card: the call's arguments as text inputs (Discord allows five;
past four arguments the rest share one JSON input), and the form read back into arguments."""

from __future__ import annotations

import json
from typing import Any

from bot.agent.tools import Tool
from bot.discord_ui.cards import wording
from bot.i18n import Language

MAX_INPUTS = 5
REST = "rest"
_PREFIX = "a:"


def _takes_text(schema: dict[str, Any]) -> bool:
    """Whether the argument is (or may be) a plain string: typed as is, never as JSON."""
    if schema.get("type") == "string":
        return True
    return any(
        isinstance(option, dict) and option.get("type") == "string"
        for option in schema.get("anyOf", [])
    ) and not any(
        isinstance(option, dict) and option.get("type") in ("object", "array", "integer")
        for option in schema.get("anyOf", [])
    )


def _shown(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def form_fields(
    tool_item: Tool, arguments: dict[str, Any], language: Language
) -> list[tuple[str, str, str, bool]]:
    """(field id, label, current text, long) for each input of the form."""
    properties: dict[str, Any] = dict(tool_item.parameters.get("properties") or {})
    keys = list(properties) + [k for k in arguments if k not in properties]
    own = keys if len(keys) <= MAX_INPUTS else keys[: MAX_INPUTS - 1]
    labels = tool_item.look.labels if tool_item.look else {}
    fields: list[tuple[str, str, str, bool]] = []
    for key in own:
        label = labels[key].words.form(language) if key in labels else key
        schema = properties.get(key) or {}
        text = _shown(arguments.get(key))
        fields.append((_PREFIX + key, label, text, not _takes_text(schema) or len(text) > 80))
    rest = {k: arguments[k] for k in keys[len(own) :] if k in arguments}
    if len(own) < len(keys):
        fields.append(
            (
                REST,
                wording.OTHER_ARGUMENTS(language),
                json.dumps(rest, ensure_ascii=False),
                True,
            )
        )
    return fields


def read_form(
    tool_item: Tool, values: dict[str, str], language: Language
) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments the member typed, or the sentence saying which input cannot be read.
    An empty input leaves the argument out."""
    properties: dict[str, Any] = dict(tool_item.parameters.get("properties") or {})
    labels = tool_item.look.labels if tool_item.look else {}
    arguments: dict[str, Any] = {}
    for field_id, text in values.items():
        if field_id == REST:
            if not text.strip():
                continue
            try:
                rest = json.loads(text)
            except json.JSONDecodeError:
                rest = None
            if not isinstance(rest, dict):
                label = wording.OTHER_ARGUMENTS(language)
                return None, wording.NOT_JSON(language, label=label)
            arguments.update({k: v for k, v in rest.items() if v is not None})
            continue
        key = field_id.removeprefix(_PREFIX)
        if not text.strip():
            continue
        schema = properties.get(key) or {}
        if _takes_text(schema):
            arguments[key] = text.strip()
            continue
        try:
            arguments[key] = json.loads(text)
        except json.JSONDecodeError:
            label = labels[key].words.form(language) if key in labels else key
            return None, wording.NOT_JSON(language, label=label)
    return arguments, None
