"""Every bench keeps working: each bench/*.py (those added later too) runs its `--short` mode,
the same code paths as its full run in a few seconds, and must exit 0.

Benches print figures and assert nothing about speed; this only catches a bench that broke
(an import or a signature that moved), which nothing else would run until someone needs it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.fakes.netguard import blocked_lines, child_env

pytestmark = pytest.mark.e2e

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"
BENCHES = sorted(BENCH_DIR.glob("*.py"))
# Far above a short run's few seconds: a limit only for a bench that hangs.
LIMIT_SECONDS = 300


def test_the_bench_folder_is_found() -> None:
    assert len(BENCHES) >= 10, BENCH_DIR


@pytest.mark.parametrize("bench", BENCHES, ids=[path.stem for path in BENCHES])
async def test_the_bench_runs_in_short_mode(bench: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(bench),
        "--short",
        cwd=BENCH_DIR.parent,
        env=child_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(LIMIT_SECONDS):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    printed = out.decode(errors="replace")[-3000:] + err.decode(errors="replace")[-3000:]
    assert process.returncode == 0, printed
    assert not blocked_lines(err.decode(errors="replace")), printed
