"""Settings errors as sentences for the operator: which setting, what is wrong, how to fix it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from bot.runtime.redaction import mask_url_password


class SettingsError(Exception):
    """One or more settings are missing or invalid; each problem is a sentence for the operator."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


_ID_HINT = (
    "must be a Discord id, a number such as 123456789012345678 "
    "(turn on Developer Mode in Discord, then right-click → Copy ID)"
)
_ID_LIST_HINT = (
    "must be a comma-separated list of Discord ids such as 123456789012345678,2345678901"
)
_BOOL_HINT = "must be true or false"
# Per-setting advice used when pydantic's own message would not tell the operator what to do.
_HINTS: dict[str, str] = {
    "DEV_GUILD_ID": _ID_HINT,
    "WEATHER_NOTIFY_CHANNEL_ID": _ID_HINT,
    "TIPS_CHANNEL_ID": _ID_HINT,
    "APPROVER_ROLE_IDS": _ID_LIST_HINT,
    "KB_ADMIN_ROLE_IDS": _ID_LIST_HINT,
    "WORD_POOL_CHANNEL_IDS": _ID_LIST_HINT,
    "SYNC_COMMANDS_GLOBALLY": _BOOL_HINT,
    "RESPOND_IN_DMS": _BOOL_HINT,
    "AGENT_PLANNING": _BOOL_HINT,
    "LLM_LOG_PROMPTS": _BOOL_HINT,
}


def alias_of(model: type[BaseModel], field_name: str) -> str:
    """The environment name of a settings field."""
    field = model.model_fields[field_name]
    return field.alias or field_name.upper()


def _secret_settings(model: type[BaseModel]) -> frozenset[str]:
    """Settings whose value an error sentence never repeats."""
    return frozenset(
        alias_of(model, name)
        for name, field in model.model_fields.items()
        if "Secret" in str(field.annotation)
    )


def sentence(error: Mapping[str, Any], model: type[BaseModel]) -> str:
    """Turn one pydantic error into a sentence naming the setting and the fix."""
    loc = error.get("loc") or ("?",)
    name = str(loc[0])
    if name in model.model_fields:
        name = alias_of(model, name)
    raw = error.get("input")
    message = str(error.get("msg", "is invalid"))
    if error.get("type") == "value_error":
        # Our own validators already wrote a full sentence.
        return message.removeprefix("Value error, ")
    hint = _HINTS.get(name)
    if hint is None:
        hint = message[0].lower() + message[1:]
    hidden = raw is None or isinstance(raw, (dict, list)) or name in _secret_settings(model)
    shown = "" if hidden else f" (got {mask_url_password(str(raw))!r})"
    return f"{name} {hint}{shown}: fix it in .env or the environment"
