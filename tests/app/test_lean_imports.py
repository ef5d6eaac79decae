"""Features that are off load nothing: a bot without the health port, tools from outside or a
migration to run keeps their libraries out of memory."""

from __future__ import annotations

import subprocess
import sys

# What `python -m bot run` imports before it builds anything.
PROGRAM = """
import sys
import bot.app.cli, bot.app.discord_app, bot.app.core
print(" ".join(sorted({name.split(".")[0] for name in sys.modules} | set(sys.modules))))
"""


def test_the_bot_imports_no_web_server_schema_checker_mcp_or_alembic_until_asked() -> None:
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True
        ).stdout.split()
    )

    assert "aiohttp.web" not in loaded  # the health port's and tools API's server
    assert "jsonschema" not in loaded  # schemas of tools from outside
    assert "mcp" not in loaded
    assert "alembic" not in loaded and "mako" not in loaded  # only a migration needs them
