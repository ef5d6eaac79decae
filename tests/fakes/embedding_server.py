"""A scripted OpenAI-compatible embeddings server on 127.0.0.1 for tests and benches.

The real litellm reaches it with ``model="openai/<name>"``, ``api_base=server.api_base`` and any
``api_key``. ``vector(text)`` decides each input's embedding, so a test can make a question and a
section close (same axis) or far apart (orthogonal axes) and check what fusing does with that.
Every request is recorded; ``fail_with`` makes the next requests answer with an HTTP error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.local_server import LocalServer

Vectorizer = Callable[[str], Sequence[float]]


@dataclass(frozen=True)
class EmbeddingRequest:
    """One call: the model named and the texts to embed, in order."""

    model: str
    inputs: tuple[str, ...]
    body: Mapping[str, Any] = field(default_factory=dict)


def keyword_vectors(axes: Sequence[Sequence[str]], dimensions: int | None = None) -> Vectorizer:
    """Embeddings with one axis per group of keywords: a text points along the groups it names.

    A text naming none of them points along a last, shared "elsewhere" axis, so it is close to
    other texts naming none and orthogonal to every keyword group.
    """
    size = dimensions or len(axes) + 1

    def vector(text: str) -> list[float]:
        folded = text.lower()
        values = [0.0] * size
        for number, words in enumerate(axes):
            values[number] = float(sum(folded.count(w.lower()) for w in words))
        if not any(values):
            values[len(axes)] = 1.0
        return values

    return vector


class ScriptedEmbeddings(LocalServer):
    """POST /v1/embeddings answering with ``vector(text)`` for each input."""

    def __init__(self, vector: Vectorizer) -> None:
        super().__init__()
        self.vector = vector
        self.requests: list[EmbeddingRequest] = []
        self.fail_with: int | None = None

    @property
    def api_base(self) -> str:
        """What litellm takes as `api_base` (the OpenAI-style `/v1` root)."""
        return f"{self.url}/v1"

    def inputs(self) -> list[str]:
        """Every text embedded so far, in the order asked."""
        return [text for request in self.requests for text in request.inputs]

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/embeddings", self._embeddings)
        return app

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        raw = body.get("input")
        inputs = (raw,) if isinstance(raw, str) else tuple(str(t) for t in raw)
        self.requests.append(EmbeddingRequest(str(body.get("model")), inputs, body))
        if self.fail_with is not None:
            error = {"message": "scripted failure", "type": "server_error", "code": None}
            return web.json_response({"error": error}, status=self.fail_with)
        data = []
        for index, text in enumerate(inputs):
            values = [float(v) for v in self.vector(text)]
            norm = math.sqrt(sum(v * v for v in values)) or 1.0
            data.append(
                {"object": "embedding", "index": index, "embedding": [v / norm for v in values]}
            )
        tokens = sum(max(1, len(t) // 4) for t in inputs)
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )
