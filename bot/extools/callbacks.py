"""The callback protocol: POST a call to a plugin, read its answer, say what went wrong."""

from __future__ import annotations

import json
import logging
from typing import Any

import aiohttp

from bot.agent.tools import ToolError
from bot.extools.answers import DEFAULT_MAX_ANSWER_BYTES, too_large
from bot.extools.registration import shown_url

# A health probe only asks "is anybody listening there?".
PROBE_TIMEOUT_SECONDS = 3.0
# What of a plugin's unexpected answer the model sees.
EXCERPT_CHARS = 300
READ_CHUNK_BYTES = 64 * 1024

log = logging.getLogger(__name__)


class Unreachable(ToolError):
    """Nothing answers at the callback URL: the plugin is not running."""


class CallbackClient:
    """POSTs `{"name", "arguments", "call_id", "raw_arguments"}` and reads `{"output", ...}`.

    Redirects are never followed: a callback is on loopback, and a plugin answering 307 must
    not make the bot POST the arguments (or GET) anywhere else. At most max_answer_bytes of an
    answer are read.
    """

    def __init__(self, max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES) -> None:
        self._session: aiohttp.ClientSession | None = None
        self.max_answer_bytes = max_answer_bytes

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
                url,
                json=payload,
                timeout=aiohttp.ClientTimeout(total=timeout),
                allow_redirects=False,
            ) as response:
                status = response.status
                if 300 <= status < 400:
                    raise ToolError(
                        f"The tool {name} answered with a redirect (HTTP {status}); the bot never "
                        "follows a tool's redirects, so its answer was not used. Tell the user "
                        "the tool is misconfigured."
                    )
                body = await _read_capped(response, self.max_answer_bytes)
                if body is None:
                    raise ToolError(too_large(name, self.max_answer_bytes))
                text = _decode(name, body, response.charset)
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
        shown = shown_url(url)
        try:
            async with self._client().get(
                url,
                timeout=aiohttp.ClientTimeout(total=PROBE_TIMEOUT_SECONDS),
                allow_redirects=False,
            ) as response:
                if 300 <= response.status < 400:
                    return (
                        f"{shown} answered with a redirect (HTTP {response.status}), which the "
                        "bot does not follow"
                    )
                return None
        except aiohttp.ClientConnectorError as exc:
            return f"nothing answers at {shown} ({exc.strerror or 'connection refused'})"
        except TimeoutError:
            return f"{shown} did not answer within {PROBE_TIMEOUT_SECONDS:g} seconds"
        except aiohttp.ClientError as exc:
            return f"{shown} failed: {type(exc).__name__}"


async def _read_capped(response: aiohttp.ClientResponse, limit: int) -> bytes | None:
    """The body, or None as soon as it is known to exceed limit bytes (the rest is not read)."""
    if response.content_length is not None and response.content_length > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await response.content.read(READ_CHUNK_BYTES)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)


def _decode(name: str, body: bytes, charset: str | None) -> str:
    """The answer as text in its declared charset (UTF-8 when it names none or one Python does
    not know); bytes that are not valid text make the answer unusable, never replaced."""
    encoding = charset or "utf-8"
    try:
        return body.decode(encoding)
    except LookupError:
        return _decode(name, body, None)
    except UnicodeDecodeError as exc:
        log.warning(
            "External tool %s answered with bytes that are not valid %s text (at byte %d); "
            "its answer was not used",
            name,
            encoding.upper(),
            exc.start,
        )
        raise ToolError(
            f"The tool {name} answered with bytes that are not valid {encoding.upper()} text, so "
            "its result is unknown. Tell the user the tool is misbehaving."
        ) from None


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
