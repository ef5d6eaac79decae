"""Routing benchmark: accuracy of the keyword router on the labelled corpus, no model call.

Run `python bench/routing.py`. It prints the accuracy on the tuning and the held-out parts of
tests/handlers/routing_corpus.tsv, a weighted miss cost (chat or a question sent to the
reminder or weather handler costs 3, a miss between those two 2, anything sent to the general
or chat handler 1) and a confusion table. `--misses tune` lists the tuning part's misses;
the held-out part is for measuring only. Target: both accuracies >= 97 %.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.handlers.router import route
from bot.text.analysis import warm_up
from tests.handlers.routing_corpus import HANDLERS, HELD_OUT, TUNE, Score, evaluate, load_corpus

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
        f"{name:<9} {score.hits:>3}/{score.total:<3} = {score.accuracy:6.1%}   "
        f"miss cost {score.cost_per_100:4.1f} per 100 mentions   {verdict}"
    )


def main() -> None:
    """Print both accuracies, the weighted cost, per-language figures and the confusion table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", choices=[TUNE, "none"], default="none")
    args = parser.parse_args()
    corpus = load_corpus()
    warm_up()

    def pick(text: str) -> str:
        return route(text).handler

    started = time.perf_counter()
    scores = {
        split: evaluate([m for m in corpus if m.split == split], pick) for split in (TUNE, HELD_OUT)
    }
    elapsed = time.perf_counter() - started
    traps = [m for m in corpus if m.group.startswith("trap-")]
    print(f"corpus: {len(corpus)} mentions, {len(traps)} traps, {scores[HELD_OUT].total} held out")
    for split, score in scores.items():
        print(_line(split, score))
    for lang in ("ja", "en"):
        both = evaluate([m for m in corpus if m.lang == lang], pick)
        print(f"  {lang}: {both.hits}/{both.total} = {both.accuracy:.1%}")
    trap_score = evaluate(traps, pick)
    print(f"  traps: {trap_score.hits}/{trap_score.total} = {trap_score.accuracy:.1%}")
    confusion = scores[TUNE].confusion + scores[HELD_OUT].confusion
    print("\nconfusion (both parts):")
    print(_confusion_table(confusion))
    print(f"\n{1000 * elapsed / len(corpus):.2f} ms per mention")
    if args.misses == TUNE:
        print("\ntuning misses:")
        for mention, got in scores[TUNE].misses:
            print(f"  [{mention.group}] {mention.text!r}: {mention.handler} → {got}")


if __name__ == "__main__":
    main()
