"""Which files of `bot/` one chat mention runs through, from the message's arrival to the reply.

Otomo runs in this process on the tests' harness (the fake Discord, an instant scripted model, a
file SQLite database). A profiler records every function called while each of two members'
one-line chat mentions is answered (the first once start-up work has settled, then a later
one), on the event loop and in the database's worker threads; the distinct files under `bot/`
are printed, by package.

Run `python bench/mention_files.py` (about 15 s; `--short` is the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.harness import running_bot  # noqa: E402
from tests.fakes.discord_server import (  # noqa: E402
    FakeDiscord,
    FakeMember,
    FakeUser,
    World,
)
from tests.fakes.llm_server import ScriptedLLM, text  # noqa: E402

BOT = str(ROOT / "bot") + "/"
TARGET = 40


def _world() -> World:
    world = World.default()
    for n in range(2):
        world.users.append(FakeUser(700 + n, f"member{n}", f"Member {n}"))
        world.members.append(FakeMember(700 + n, []))
    return world


async def measure(tmp: Path) -> tuple[set[str], set[str]]:
    """The files of bot/ whose functions run while the first, then a later, chat mention is
    answered."""
    first: set[str] = set()
    files: set[str] = first

    # Background tasks already running (the knowledge base's hot reload every 2 s, the word
    # pool's digester, the metrics loop) are not the mention's path, even when they wake inside
    # its window; tasks the mention starts are.
    earlier: set[asyncio.Task[Any]] = set()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(BOT):
            return
        try:
            task = asyncio.current_task()
        except RuntimeError:  # a thread without a loop: the database's, the text worker's
            task = None
        if task is None or task not in earlier:
            files.add(frame.f_code.co_filename[len(BOT) :])

    async with FakeDiscord(_world()) as fake, ScriptedLLM() as llm:
        llm.rule = lambda request: text("はい、元気ですよ。")
        async with running_bot(tmp, fake=fake, llm=llm) as otomo:
            # Start-up loads the knowledge index in the background; on a busy machine that load
            # would still be running during the first mention and be counted as its path.
            await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 30)
            later: set[str] = set()
            for user_id, words, into in ((700, "こんにちは", first), (701, "元気？", later)):
                await asyncio.sleep(0.3)  # the background writes of the last answer end
                files = into
                earlier = asyncio.all_tasks()
                threading.setprofile(profile)
                sys.setprofile(profile)
                try:
                    await otomo.ask(words, user_id=user_id)
                finally:
                    sys.setprofile(None)
                    threading.setprofile(None)  # type: ignore[arg-type]
    return first, later


def main() -> int:
    """Print the files one chat mention crosses and the target line."""
    argparse.ArgumentParser(description=__doc__).add_argument("--short", action="store_true")
    with tempfile.TemporaryDirectory(prefix="otomo-path-") as folder:
        first, later = asyncio.run(measure(Path(folder)))
    for title, files in (("the first mention after start", first), ("a later mention", later)):
        print(f"{title}: {len(files)} files of bot/")
        by_package = Counter(name.split("/")[0] for name in files)
        for package, count in sorted(by_package.items(), key=lambda item: (-item[1], item[0])):
            names = sorted(name for name in files if name.split("/")[0] == package)
            print(f"  {package:<12} {count:3}  {', '.join(n.split('/', 1)[-1] for n in names)}")
    most = max(len(first), len(later))
    verdict = "ok" if most <= TARGET else "MISSED"
    print(f"bot/ files a chat mention crosses: {most} (target <= {TARGET}): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
