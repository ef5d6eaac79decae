"""The console's log lines: printed above the prompt, which is then written again."""

from __future__ import annotations

import io
import logging
from unittest.mock import MagicMock

from bot.app.console import PROMPT, Console, ConsoleLog


def test_a_log_line_at_the_prompt_is_printed_on_its_own_line_and_the_prompt_comes_back() -> None:
    out = io.StringIO()
    console = Console(MagicMock(), MagicMock(), stdin=io.StringIO(), stdout=out)
    handler = ConsoleLog()
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.attach(console.announce)
    console._write(PROMPT)
    console._at_prompt = True

    handler.emit(logging.makeLogRecord({"msg": "the database is away", "levelname": "WARNING"}))

    assert out.getvalue() == f"{PROMPT}\n[warning] the database is away\n{PROMPT}"
