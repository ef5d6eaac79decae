"""What offering a runner-up's tools adds to a model request, measured on the wire.

The handlers are built the way the bot builds them (every feature registered; the services are
stand-ins, since registering only names them). For each handler and runner-up variant, one
request with the same user message goes through the real litellm client to a scripted
OpenAI-compatible server on 127.0.0.1, which records the body's Content-Length. The system
prompt is left out: it is the chosen handler's either way, so the difference is the tools alone.

`bench/routing.py` prints these sizes with what the corpus makes of them; run alone
(`python bench/runner_up_cost.py`, `--short` is the same run) it prints the sizes only.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from unittest.mock import MagicMock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.agent.llm.provider import import_litellm
from bot.agent.tools import ToolRegistry
from bot.app.features import register_features
from bot.chat.handler import CHAT
from bot.handlers.builder import AppBuilder
from bot.handlers.router import handler_key
from bot.reminders.handler import REMINDER
from bot.settings import load_settings
from bot.weather.handler import WEATHER
from tests.fakes.llm_server import ScriptedLLM, text

VARIANTS = (
    (CHAT, None),
    (CHAT, REMINDER),
    (CHAT, WEATHER),
    (REMINDER, None),
    (REMINDER, WEATHER),
    (WEATHER, None),
    (WEATHER, REMINDER),
)
MESSAGE = "眠いー 明日6時に起こしてー"


async def request_bytes() -> dict[str, tuple[int, int]]:
    """Each handler key → (request body bytes, tools offered) for the same one-message request."""
    settings = load_settings(environ={"DATABASE_URL": "sqlite+aiosqlite://"}, env_file=None)
    app = AppBuilder(settings, ToolRegistry())
    register_features(app, MagicMock())
    handlers = app.handlers()
    litellm = import_litellm()
    sizes: dict[str, tuple[int, int]] = {}
    async with ScriptedLLM() as llm:
        llm.rule = lambda request: text("ok")
        for chosen, also in VARIANTS:
            handler = handlers[handler_key(chosen, also)]
            tools = [t.schema() for t in app.registry.select(handler.tools, None, handler.name)]
            await litellm.acompletion(
                model="openai/test-model",
                api_base=llm.api_base,
                api_key="bench",
                messages=[{"role": "user", "content": MESSAGE}],
                tools=tools or None,
            )
            length = int(llm.requests[-1].headers["Content-Length"])
            sizes[handler_key(chosen, also)] = (length, len(tools))
    return sizes


def main() -> None:
    """Print the request size of each handler and runner-up variant."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the same run (it takes seconds)")
    parser.parse_args()
    sizes = asyncio.run(request_bytes())
    for key, (length, tools) in sizes.items():
        print(f"{key:<18} {tools:2d} tools {length:6,} bytes")


if __name__ == "__main__":
    main()
