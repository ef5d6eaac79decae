"""Scripted embeddings for the retrieval bench: a stand-in model of a chosen accuracy.

No embedding model runs here (nothing may be downloaded), so the bench measures what fusing does
with a model that puts the right file nearest for a known share of the questions. Every file gets
a random direction; a section's vector is its file's direction plus noise; a question's vector is
its answering file's direction plus noise for `accuracy` of the questions (chosen by a hash of
the text, so runs repeat) and a wrong file's direction for the others. The figures therefore
show fusion's effect as a function of the model's quality, not any real model's quality.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence

from tests.fakes.embedding_server import Vectorizer

DIMENSIONS = 64
NOISE = 0.35


def _rng(*parts: str) -> random.Random:
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _direction(name: str) -> list[float]:
    rng = _rng("file", name)
    return [rng.gauss(0.0, 1.0) for _ in range(DIMENSIONS)]


def _near(direction: Sequence[float], seed: str) -> list[float]:
    rng = _rng("noise", seed)
    norm = sum(v * v for v in direction) ** 0.5 or 1.0
    return [v / norm + rng.gauss(0.0, NOISE / DIMENSIONS**0.5) for v in direction]


def scripted_model(
    sections: Mapping[str, str],
    questions: Iterable[tuple[str, Sequence[str]]],
    files: Sequence[str],
    accuracy: float,
) -> Vectorizer:
    """A vectorizer: section texts → their file, questions → their file for `accuracy` of them.

    sections maps each embedded section text to its file; questions are (text, answering files).
    """
    table: dict[str, list[float]] = {
        text: _near(_direction(path), text) for text, path in sections.items()
    }
    for text, expected in questions:
        rng = _rng("question", text)
        if rng.random() < accuracy:
            target = expected[0]
        else:
            target = rng.choice([f for f in files if f not in expected])
        table[text] = _near(_direction(target), text)

    def vector(text: str) -> list[float]:
        return table.get(text) or _near(_direction("elsewhere:" + text), text)

    return vector
