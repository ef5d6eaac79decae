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
    """Drop pydantic's titles, which only cost tokens."""
    schema = dict(schema)
    schema.pop("title", None)
    props = schema.get("properties")
    if isinstance(props, dict):
        schema["properties"] = {
            key: {k: v for k, v in value.items() if k != "title"} for key, value in props.items()
        }
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            schema[key] = {k: clean_schema(v) for k, v in schema[key].items()}
    return schema
