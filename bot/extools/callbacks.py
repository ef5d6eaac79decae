"""The callback protocol: POST a call to a plugin, read its answer, say what went wrong."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from bot.agent.tools import ToolError

# A health probe only asks "is anybody listening there?".
PROBE_TIMEOUT_SECONDS = 3.0
# What of a plugin's unexpected answer the model sees.
EXCERPT_CHARS = 300


class Unreachable(ToolError):
    """Nothing answers at the callback URL: the plugin is not running."""


class CallbackClient:
    """POSTs `{"name", "arguments", "call_id", "raw_arguments"}` and reads `{"output", ...}`."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # A plugin is on this machine: no proxy from the environment applies.
            self._session = aiohttp.ClientSession(trust_env=False)
        return self._session

    async def close(self) -> None:
        """Close the connection pool."""
        if self._session is not None:
            await self._session.close()

    async def call(
        self,
        url: str,
        name: str,
        arguments: dict[str, Any],
        call_id: str,
        raw_arguments: str,
        timeout: float,  # noqa: ASYNC109 - the tool's own budget, sent with the request
    ) -> Any:
        """The tool's output; a ToolError (Unreachable when nothing listens) otherwise."""
        payload = {
            "name": name,
            "arguments": arguments,
            "call_id": call_id,
            "raw_arguments": raw_arguments,
        }
        try:
            async with self._client().post(
                url, json=payload, timeout=aiohttp.ClientTimeout(total=timeout)
            ) as response:
                status = response.status
                text = await response.text()
        except aiohttp.ClientConnectorError as exc:
            reason = exc.strerror or "connection refused"
            raise Unreachable(
                f"The tool {name} is offline: nothing answered at its address ({reason}). It "
                "was not run; tell the user it is unavailable for now instead of calling it again."
            ) from None
        except TimeoutError:
            raise ToolError(
                f"The tool {name} did not answer within {timeout:g} seconds; it may still be "
                "working. Tell the user it timed out rather than calling it again at once."
            ) from None
        except aiohttp.ClientError as exc:
            raise ToolError(
                f"The connection to the tool {name} failed ({type(exc).__name__}); it may not "
                "have run. Tell the user and do not retry it right away."
            ) from None
        return _read_answer(name, status, text)

    async def probe(self, url: str) -> str | None:
        """None when something answers at url (any HTTP status), else why not, as a sentence."""
        try:
            async with self._client().get(
                url, timeout=aiohttp.ClientTimeout(total=PROBE_TIMEOUT_SECONDS)
            ):
                return None
        except aiohttp.ClientConnectorError as exc:
            return f"nothing answers at {url} ({exc.strerror or 'connection refused'})"
        except TimeoutError:
            return f"{url} did not answer within {PROBE_TIMEOUT_SECONDS:g} seconds"
        except aiohttp.ClientError as exc:
            return f"{url} failed: {type(exc).__name__}"


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"


def _read_answer(name: str, status: int, text: str) -> Any:
    """Apply `body.get("output", body)`; is_error/error and bad answers become ToolErrors."""
    try:
        body = json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        if status >= 400:
            raise ToolError(
                f"The tool {name} failed with HTTP {status}: {_excerpt(text) or 'no details'}"
            ) from None
        raise ToolError(
            f"The tool {name} answered with something that is not JSON ({_excerpt(text)!r}), so "
            "its result is unknown. Tell the user the tool is misbehaving."
        ) from None
    if isinstance(body, dict) and (body.get("is_error") or status >= 400):
        error = body.get("error") or body.get("output") or body.get("message")
        detail = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        raise ToolError(f"The tool {name} reported an error: {_excerpt(detail or 'no details')}")
    if status >= 400:
        raise ToolError(f"The tool {name} failed with HTTP {status}: {_excerpt(text)}")
    if body is None:
        raise ToolError(f"The tool {name} answered with an empty body, so its result is unknown.")
    return body.get("output", body) if isinstance(body, dict) else body
