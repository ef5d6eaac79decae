"""Settings of tools from outside the bot: the registration API, trusted sources, MCP servers."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, SecretStr, field_validator, model_validator

# A token shorter than this is guessable by another local user.
MIN_TOKEN_CHARS = 16
# Bytes read from a plugin's callback (or taken from an MCP result) before giving up on it.
DEFAULT_MAX_ANSWER_BYTES = 1_000_000
# Characters of a tool's answer the model reads and the history keeps (~3,000-6,000 tokens).
DEFAULT_MAX_RESULT_CHARS = 12_000


def blank_to_none(value: Any) -> Any:
    """Treat `KEY=` in .env as unset, as operators expect."""
    if isinstance(value, str) and not value.strip():
        return None
    return value


def split_list(value: Any) -> Any:
    """Accept `a, b,c` from the environment as a list; blank means empty."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


class ExternalToolSettings(BaseModel):
    """The part of Settings about tools registered over HTTP and MCP servers."""

    tools_api_host: str = Field("127.0.0.1", alias="TOOLS_API_HOST")
    tools_api_port: Annotated[int | None, BeforeValidator(blank_to_none)] = Field(
        None, ge=1, le=65535, alias="TOOLS_API_PORT"
    )
    tools_api_token: Annotated[SecretStr | None, BeforeValidator(blank_to_none)] = Field(
        None, alias="TOOLS_API_TOKEN"
    )
    trusted_tool_sources: Annotated[list[str], BeforeValidator(split_list)] = Field(
        default_factory=list, alias="TRUSTED_TOOL_SOURCES"
    )
    tools_health_check_seconds: float = Field(
        30.0, ge=0.2, le=3600, alias="TOOLS_HEALTH_CHECK_SECONDS"
    )
    mcp_servers_file: Annotated[Path | None, BeforeValidator(blank_to_none)] = Field(
        None, alias="MCP_SERVERS_FILE"
    )
    mcp_timeout_seconds: float = Field(30.0, gt=0, le=300, alias="MCP_TIMEOUT_SECONDS")
    tools_max_answer_bytes: int = Field(
        DEFAULT_MAX_ANSWER_BYTES, ge=1024, le=100_000_000, alias="TOOLS_MAX_ANSWER_BYTES"
    )
    tools_max_result_chars: int = Field(
        DEFAULT_MAX_RESULT_CHARS, ge=200, le=1_000_000, alias="TOOLS_MAX_RESULT_CHARS"
    )

    @field_validator("tools_api_host")
    @classmethod
    def _loopback_host(cls, value: str) -> str:
        host = value.strip()
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ValueError(
                f"TOOLS_API_HOST {value!r} must be a loopback address such as 127.0.0.1 or ::1: "
                "the tools API must never be reachable from another machine"
            )
        return host

    @model_validator(mode="after")
    def _token_with_port(self) -> ExternalToolSettings:
        if self.tools_api_port is None:
            return self
        token = self.tools_api_token.get_secret_value().strip() if self.tools_api_token else ""
        if len(token) < MIN_TOKEN_CHARS:
            raise ValueError(
                f"TOOLS_API_TOKEN must be at least {MIN_TOKEN_CHARS} characters when "
                "TOOLS_API_PORT is set: generate one with "
                "`.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(32))'`"
            )
        return self
