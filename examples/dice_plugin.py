"""Dice and lotteries for a community, as an Otomo plugin: `python examples/dice_plugin.py`.

Every result comes with its seed: the same seed and the same request give the same result, so
anyone in the channel can check that a roll or a draw was fair.
"""

from __future__ import annotations

import random
import re
import secrets
from typing import Annotated, Any

from dotenv import load_dotenv
from pydantic import Field

from bot.plugins import Plugin, ToolFailure

MAX_DICE = 100
MAX_SIDES = 1000
MAX_ENTRIES = 1000
DICE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*([+-]\s*\d+)?\s*$")

plugin = Plugin("dice")


def _rng(seed: str | None) -> tuple[random.Random, str]:
    """A generator for seed (a new random seed when none is given) and the seed used."""
    used = seed if seed else secrets.token_hex(4)
    return random.Random(f"otomo-dice:{used}"), used


@plugin.tool(timeout=5)
async def roll_dice(
    notation: Annotated[str, Field(description="Dice in NdS+M notation: 2d6, d20, 4d6-1, 3d10+5")],
    seed: Annotated[
        str | None,
        Field(description="Optional; the same seed gives the same roll, so others can check it"),
    ] = None,
) -> dict[str, Any]:
    """Roll dice for a game or a decision; returns every die, the total and the seed used."""
    match = DICE.match(notation)
    if match is None:
        raise ToolFailure(f"{notation!r} is not dice notation: use NdS+M such as 2d6 or d20+3")
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    modifier = int((match.group(3) or "0").replace(" ", ""))
    if not 1 <= count <= MAX_DICE or not 2 <= sides <= MAX_SIDES:
        raise ToolFailure(f"roll 1-{MAX_DICE} dice of 2-{MAX_SIDES} sides (got {notation!r})")
    rng, used = _rng(seed)
    rolls = [rng.randint(1, sides) for _ in range(count)]
    return {
        "notation": f"{count}d{sides}{modifier:+d}" if modifier else f"{count}d{sides}",
        "rolls": rolls,
        "modifier": modifier,
        "total": sum(rolls) + modifier,
        "seed": used,
    }


@plugin.tool(timeout=5)
async def draw_lottery(
    entries: Annotated[list[str], Field(description="The names or items to draw from")],
    winners: Annotated[int, Field(description="How many to draw", ge=1)] = 1,
    seed: Annotated[
        str | None,
        Field(description="Optional; the same seed and entries give the same draw"),
    ] = None,
) -> dict[str, Any]:
    """Draw winners from a list fairly (no one twice); returns the winners in order and the seed."""
    names = [e.strip() for e in entries if e.strip()]
    if not names:
        raise ToolFailure("entries is empty: list who takes part")
    if len(names) > MAX_ENTRIES:
        raise ToolFailure(f"at most {MAX_ENTRIES} entries")
    if winners > len(names):
        raise ToolFailure(f"cannot draw {winners} winners from {len(names)} entries")
    rng, used = _rng(seed)
    # Sorting first makes the draw depend on who takes part, not on the order they were listed.
    drawn = rng.sample(sorted(names), winners)
    return {"winners": drawn, "entries": len(names), "seed": used}


if __name__ == "__main__":
    # TOOLS_API_PORT from the bot's own .env; the token is the plugin's own (OTOMO_TOOLS_TOKEN,
    # from `python -m bot tools token create dice`), else the shared TOOLS_API_TOKEN.
    load_dotenv()
    plugin.run()
