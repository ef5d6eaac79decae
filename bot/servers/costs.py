"""What model calls cost in money (US dollars), priced with litellm's bundled cost map.

litellm ships its price list inside the package; `prepare_litellm_environment` makes the import
read that copy, never the internet. A model the map does not price has no cost here (None):
it is shown as "unknown" and not counted against a money budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.settings import prepare_litellm_environment


@dataclass(frozen=True)
class Price:
    """US dollars per token: prompt, prompt read from the provider's cache, and answer."""

    prompt: float
    cached: float
    answer: float

    def cost(self, tokens_in: int, tokens_cached: int, tokens_out: int) -> float:
        """The cost of tokens_in prompt tokens (tokens_cached of them from the cache) and
        tokens_out answer tokens."""
        cached = min(max(tokens_cached, 0), tokens_in)
        return (tokens_in - cached) * self.prompt + cached * self.cached + tokens_out * self.answer


@cache
def _cost_map() -> Mapping[str, Any]:
    prepare_litellm_environment()
    import litellm

    costs: Mapping[str, Any] = litellm.model_cost
    return costs


def _entry(model: str, costs: Mapping[str, Any]) -> Mapping[str, Any] | None:
    # The call log keeps the name as configured (`openai/gpt-4o-mini`); the map keys most
    # models by their bare name and some by provider/name.
    candidates = [model, model.split("/", 1)[-1], model.rsplit("/", 1)[-1]]
    for name in candidates:
        entry = costs.get(name)
        if isinstance(entry, Mapping) and entry.get("input_cost_per_token") is not None:
            return entry
    return None


def price_of(model: str, costs: Mapping[str, Any] | None = None) -> Price | None:
    """The model's price per token, or None when the map does not price it."""
    entry = _entry(model, _cost_map() if costs is None else costs)
    if entry is None:
        return None
    prompt = float(entry.get("input_cost_per_token") or 0.0)
    answer = float(entry.get("output_cost_per_token") or 0.0)
    # Without a cache price, cached prompt tokens cost what other prompt tokens cost.
    cached = entry.get("cache_read_input_token_cost")
    return Price(prompt, prompt if cached is None else float(cached), answer)


def cost_of(model: str, tokens_in: int, tokens_cached: int, tokens_out: int) -> float | None:
    """The call's cost in US dollars, or None when the model has no price."""
    price = price_of(model)
    return None if price is None else price.cost(tokens_in, tokens_cached, tokens_out)


def money(amount: float) -> str:
    """An amount of US dollars as people read it: `$0.0123`, `$1.50`."""
    if amount == 0:
        return "$0"
    if amount < 0.01:
        return f"${amount:.4f}"
    return f"${amount:,.2f}"
