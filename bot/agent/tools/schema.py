"""A tool's JSON schema from its signature and docstring (pydantic builds and validates it)."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo


def docstring_parts(func: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and `name: text` lines under Args:."""
    doc = inspect.getdoc(func) or ""
    summary: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower() in {"args:", "arguments:", "parameters:"}:
            in_args = True
            continue
        if in_args:
            match = re.match(r"^(\w+)(?:\s*\(.*?\))?\s*:\s*(.*)$", stripped)
            if match and line.startswith((" ", "\t")) is not False:
                current = match.group(1)
                params[current] = match.group(2)
            elif stripped and current:
                params[current] += " " + stripped
            continue
        summary.append(line)
    return "\n".join(summary).strip(), params


def model_from_signature(
    name: str, func: Callable[..., Any], context_type: type[Any]
) -> type[BaseModel]:
    """A pydantic model of the handler's parameters after the ToolContext."""
    hints = get_type_hints(func, include_extras=True)
    _, param_docs = docstring_parts(func)
    fields: dict[str, Any] = {}
    parameters = list(inspect.signature(func).parameters.values())
    first = hints.get(parameters[0].name) if parameters else None
    # `ctx: ToolContext` or `ctx: ToolContext[SomeDeps]`.
    if (typing.get_origin(first) or first) is not context_type:
        raise TypeError(f"tool {name!r}: the first parameter must be `ctx: ToolContext`")
    for param in parameters[1:]:
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        description = param_docs.get(param.name)
        if typing.get_origin(annotation) is typing.Annotated and any(
            isinstance(extra, FieldInfo) for extra in typing.get_args(annotation)[1:]
        ):
            fields[param.name] = (annotation, default)
        else:
            from pydantic import Field

            fields[param.name] = (annotation, Field(default, description=description))
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as the model needs it: every token of it rides along in each request.

    Pydantic's titles go; an optional field's `anyOf [X, null]` with its `default: null` becomes
    X, left out of `required` already (the model leaves the field out instead of sending null);
    a definition used once is written where it is used; `additionalProperties: false` goes
    (the arguments are still checked against the full model, and an error tells the model).
    """
    definitions = dict(schema.get("$defs") or {})
    uses: dict[str, int] = {}
    _count_refs(schema, uses)
    compact: dict[str, Any] = _compact(schema, definitions, uses)
    kept = {name: body for name, body in definitions.items() if uses.get(name, 0) > 1}
    compact.pop("$defs", None)
    if kept:
        compact["$defs"] = {name: _compact(body, definitions, uses) for name, body in kept.items()}
    return compact


_REF_PREFIX = "#/$defs/"
_DROPPED = {"title", "additionalProperties"}


def _count_refs(node: Any, uses: dict[str, int]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref.removeprefix(_REF_PREFIX)
            uses[name] = uses.get(name, 0) + 1
        for key, value in node.items():
            if key != "$defs":
                _count_refs(value, uses)
    elif isinstance(node, list):
        for item in node:
            _count_refs(item, uses)


def _compact(node: Any, definitions: dict[str, Any], uses: dict[str, int]) -> Any:
    if isinstance(node, list):
        return [_compact(item, definitions, uses) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref.removeprefix(_REF_PREFIX)
        if uses.get(name) == 1 and name in definitions:
            inlined = _compact(definitions[name], definitions, uses)
            # The field's own description says more than the definition's.
            return {**inlined, **{k: v for k, v in node.items() if k != "$ref"}}
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and "default" in node:
        rest = [option for option in options if option != {"type": "null"}]
        if len(rest) == 1 and node["default"] is None:
            merged = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}}
            return _compact({**rest[0], **merged}, definitions, uses)
    compact: dict[str, Any] = {}
    for key, value in node.items():
        if (key in _DROPPED and not isinstance(value, dict)) or key == "$defs":
            continue
        if key == "properties" and isinstance(value, dict):
            compact[key] = {name: _compact(prop, definitions, uses) for name, prop in value.items()}
        else:
            compact[key] = _compact(value, definitions, uses)
    return compact
