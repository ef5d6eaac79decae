"""Routing benchmark: accuracy of the keyword router on the labelled corpus, no model call.

Run `python bench/routing.py`. For each batch of tests/handlers/routing_corpus/ (one file a
batch, in name order) it prints the accuracy on the tuning and the held-out parts, per language
and on the traps, and a weighted miss cost (chat or a question sent to the reminder or weather
handler costs 3, a miss between those two 2, anything sent to the general or chat handler 1);
then a confusion table over everything. `--misses tune` lists the tuning parts' misses; the
held-out parts are for measuring only; `--short` routes every 10th mention only, without
sizes. Target: every part >= 97 %.

A mis-route loses nothing when the tools the mention needs are still offered: by its own
handler, by the general handler (which offers every tool), or by the runner-up, a tool handler
that scored without winning whose tools the chosen handler then offers too. Each batch's line
"tools within reach" counts that for the reminder and weather mentions; the end of the output
measures what a runner-up adds to a request (bench/runner_up_cost.py; `--no-sizes` skips it).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner_up_cost import request_bytes

from bot.app.features import route
from bot.handlers.router import GENERAL, Route
from bot.text.analysis import warm_up
from tests.handlers.routing_corpus import (
    HANDLERS,
    HELD_OUT,
    TOOL_HANDLERS,
    TUNE,
    Mention,
    Score,
    batches,
    evaluate,
    load_corpus,
)

TARGET_ACCURACY = 0.97


def _confusion_table(confusion: Counter[tuple[str, str]]) -> str:
    width = max(len(h) for h in HANDLERS) + 2
    lines = ["expected \\ routed".ljust(20) + "".join(h.rjust(width) for h in HANDLERS)]
    for expected in HANDLERS:
        cells = "".join(str(confusion[(expected, got)]).rjust(width) for got in HANDLERS)
        lines.append(expected.ljust(20) + cells)
    return "\n".join(lines)


def _line(name: str, score: Score) -> str:
    verdict = "ok" if score.accuracy >= TARGET_ACCURACY else "BELOW TARGET"
    return (
        f"  {name:<9} {score.hits:>3}/{score.total:<3} = {score.accuracy:6.1%}   "
        f"miss cost {score.cost_per_100:4.1f} per 100 mentions   {verdict}"
    )


def _share(name: str, score: Score) -> str:
    return f"{name}: {score.hits}/{score.total} = {score.accuracy:.1%}"


def _within_reach(rows: list[Mention], routes: dict[str, Route]) -> str:
    needing = [m for m in rows if m.handler in TOOL_HANDLERS]
    reached = [
        m
        for m in needing
        if routes[m.text].handler in (m.handler, GENERAL) or routes[m.text].also == m.handler
    ]
    rescued = [m for m in reached if routes[m.text].also == m.handler]
    offered = sum(routes[m.text].also is not None for m in rows)
    return (
        f"  tools within reach {len(reached)}/{len(needing)} = "
        f"{len(reached) / max(1, len(needing)):.1%} ({len(rescued)} by a runner-up); "
        f"runner-up offered on {offered} of {len(rows)} mentions"
    )


def _sizes(rows: list[Mention], routes: dict[str, Route]) -> None:
    sizes = asyncio.run(request_bytes())
    print("\nrequest size (one user message, tools as litellm sends them, no system prompt):")
    for key, (length, tools) in sizes.items():
        base = key.split("+")[0]
        extra = f"  (+{length - sizes[base][0]:,} bytes)" if "+" in key else ""
        print(f"  {key:<18} {tools:2d} tools {length:6,} bytes{extra}")
    offered = [routes[m.text] for m in rows if routes[m.text].also]
    added = sum(sizes[r.name][0] - sizes[r.handler][0] for r in offered)
    print(
        f"  over the corpus: {len(offered)} of {len(rows)} mentions carry a runner-up, "
        f"{added / max(1, len(rows)):.1f} bytes more per mention on average"
    )


def main() -> None:
    """Print each batch's accuracies and weighted cost, then the confusion table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", choices=[TUNE, "none"], default="none")
    parser.add_argument("--no-sizes", action="store_true", help="skip the request-size part")
    parser.add_argument(
        "--short", action="store_true", help="the same paths on every 10th mention, in seconds"
    )
    args = parser.parse_args()
    corpus = load_corpus()[:: 10 if args.short else 1]
    warm_up()
    routes: dict[str, Route] = {}
    started = time.perf_counter()
    for mention in corpus:
        if mention.text not in routes:
            routes[mention.text] = route(mention.text)
    elapsed = time.perf_counter() - started

    def pick(text: str) -> str:
        return routes[text].handler

    traps = [m for m in corpus if m.group.startswith("trap-")]
    held = [m for m in corpus if m.split == HELD_OUT]
    print(f"corpus: {len(corpus)} mentions, {len(traps)} traps, {len(held)} held out")
    confusion: Counter[tuple[str, str]] = Counter()
    tuning_misses: list[tuple[Mention, str]] = []
    for batch in batches(corpus):
        rows = [m for m in corpus if m.batch == batch]
        print(f"\nbatch {batch} ({len(rows)} mentions)")
        for split in (TUNE, HELD_OUT):
            part = [m for m in rows if m.split == split]
            if part:
                score = evaluate(part, pick)
                print(_line(split, score))
                if split == TUNE:
                    tuning_misses += score.misses
        shares = [
            _share(lang, evaluate([m for m in rows if m.lang == lang], pick))
            for lang in ("ja", "en")
        ]
        shares.append(_share("traps", evaluate([m for m in rows if m in traps], pick)))
        print("  " + "   ".join(shares))
        print(_within_reach(rows, routes))
        confusion += evaluate(rows, pick).confusion
    print("\nconfusion (every batch):")
    print(_confusion_table(confusion))
    print(f"\n{1000 * elapsed / len(routes):.2f} ms per mention")
    if args.misses == TUNE:
        print("\ntuning misses:")
        for mention, got in tuning_misses:
            where = f"{mention.batch} {mention.group}"
            print(f"  [{where}] {mention.text!r}: {mention.handler} → {got}")
    # A short run leaves the sizes to `runner_up_cost.py --short`, which runs the same code.
    if not (args.no_sizes or args.short):
        _sizes(corpus, routes)


if __name__ == "__main__":
    main()
