"""Parameter schemas from outside: valid JSON Schema within caps, and arguments checked by them.

A plugin's or MCP server's schema goes into every model request that offers the tool, so it is
checked once, when it arrives: JSON Schema by the `jsonschema` library's meta-schema, no deeper
and no larger than a model request should carry, and with local `$ref`s only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

# jsonschema (about 2 MB and 30 modules) is imported by the functions that check something: a
# bot with no tools from outside never loads it.

# A schema's JSON text, in UTF-8 bytes: the largest of the built-in tools is under 2 KB, and
# every byte goes into each model request that offers the tool.
MAX_SCHEMA_BYTES = 16 * 1024
# Nesting of objects and arrays in a schema: a handful is what real tools use; the cap keeps
# recursive code (the meta-schema check, the providers' own parsers) far from its limits.
MAX_SCHEMA_DEPTH = 24
# What of a wrong argument the model reads back.
SHOWN_VALUE_CHARS = 200

ArgumentsCheck = Callable[[dict[str, Any]], str | None]


def depth_of(value: Any, limit: int) -> int:
    """How deeply objects and arrays nest in value (a scalar is 0), counting no further than
    limit + 1; iterative, so a pathological document cannot exhaust the stack."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            if level > limit:
                return level
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level) for child in children)
    return deepest


def _remote_refs(schema: Any) -> list[str]:
    found: list[str] = []
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key in ("$ref", "$dynamicRef") and isinstance(child, str):
                    if not child.startswith("#"):
                        found.append(child)
                else:
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    return found


def schema_problem(schema: Any) -> str | None:
    """What is wrong with a tool's parameter schema, as a sentence; None when it is usable."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return (
            'parameters must be a JSON-schema object such as {"type": "object", '
            '"properties": {...}}'
        )
    if depth_of(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
        return (
            f"parameters nest more than {MAX_SCHEMA_DEPTH} levels of objects and arrays: "
            "flatten the schema"
        )
    size = len(json.dumps(schema, ensure_ascii=False).encode())
    if size > MAX_SCHEMA_BYTES:
        return (
            f"parameters is {size:,} bytes of JSON; at most {MAX_SCHEMA_BYTES:,} are accepted, "
            "since it goes into every model request that offers the tool: shorten the "
            "descriptions or split the tool"
        )
    remote = _remote_refs(schema)
    if remote:
        return (
            f"parameters refers to {remote[0]!r}: only references inside the schema "
            '("#/$defs/…") are allowed, the bot never fetches schemas'
        )
    from jsonschema import SchemaError, validators

    checker = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        checker.check_schema(schema)
    except SchemaError as exc:
        where = exc.json_path.replace("$", "parameters", 1)
        return f"parameters is not valid JSON Schema: at {where}, {exc.message}"
    return None


@functools.cache
def _without_regexes(draft: type[Validator]) -> type[Validator]:
    # `pattern` and `patternProperties` run the plugin's regular expressions on the model's
    # text in the bot's event loop, where a catastrophic one could stall every member; the
    # plugin checks those itself (it receives the arguments), the bot checks the rest.
    from jsonschema import validators

    skipped: dict[str, Any] = {"pattern": None, "patternProperties": None}
    extended: type[Validator] = validators.extend(draft, skipped)
    return extended


def arguments_check(tool_name: str, schema: dict[str, Any]) -> ArgumentsCheck:
    """A check of the model's arguments against schema, saying what was wrong, for the model."""
    from jsonschema import validators
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    draft = validators.validator_for(schema, default=validators.Draft202012Validator)
    validator = _without_regexes(draft)(schema)

    def check(arguments: dict[str, Any]) -> str | None:
        try:
            error = best_match(validator.iter_errors(arguments))
        except Unresolvable as exc:
            return (
                f"The tool {tool_name} has a schema the bot cannot apply ({exc}); it was not "
                "run. Tell the user the tool is misconfigured."
            )
        if error is None:
            return None
        return f"Arguments for {tool_name} do not match its schema: {_describe(error)}."

    return check


def _describe(error: ValidationError) -> str:
    where = error.json_path.replace("$", "arguments", 1)
    message = error.message
    if len(message) > SHOWN_VALUE_CHARS:
        message = message[:SHOWN_VALUE_CHARS] + "…"
    return f"at {where}, {message}"
