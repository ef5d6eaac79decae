"""Processes started together on a new database all come up: migrations run one at a time."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.storage import create_database
from bot.storage.migrate import current_revision, head_revision
from tests.fakes.netguard import child_env

PROJECT = Path(__file__).resolve().parents[2]
PROCESSES = 4


async def test_processes_started_together_on_a_new_database_all_migrate_it(
    blank_database_url: str, tmp_path: Path
) -> None:
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
    env = child_env({**base, "DATABASE_URL": blank_database_url, "LOG_LEVEL": "WARNING"})
    # `db upgrade` is the migration `run` does at start, without connecting to Discord.
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "db",
            "upgrade",
            cwd=tmp_path,
            env={**env, "PYTHONPATH": f"{PROJECT}{os.pathsep}{env.get('PYTHONPATH', '')}"},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(PROCESSES)
    ]
    outputs = await asyncio.wait_for(
        asyncio.gather(*(process.communicate() for process in processes)), 120
    )

    failures = [
        err.decode()[-1500:]
        for process, (_, err) in zip(processes, outputs, strict=True)
        if process.returncode != 0
    ]
    assert failures == []
    assert all(b"up to date" in out for out, _ in outputs)
    database = create_database(blank_database_url)
    try:
        assert await current_revision(database) == head_revision(blank_database_url)
    finally:
        await database.dispose()
