"""Command line: `python -m bot run | console | db upgrade | db current`."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from collections.abc import Sequence

from bot.settings import Settings, SettingsError, load_settings

EXIT_BAD_SETTINGS = 2
EXIT_STARTUP_FAILED = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Otomo (お供): a Discord companion bot. Settings come from .env and the "
        "environment (see .env.example).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("run", help="apply migrations and start the Discord bot")
    commands.add_parser("console", help="talk to Otomo in this terminal, without Discord")
    db = commands.add_parser("db", help="database migrations")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_commands.add_parser("upgrade", help="apply every pending migration")
    db_commands.add_parser("current", help="print the revision the database is at")
    return parser


async def _db(settings: Settings, action: str) -> int:
    from bot.storage import create_database
    from bot.storage.migrate import current_revision, head_revision, upgrade

    database = create_database(settings.database_url)
    try:
        if action == "upgrade":
            await upgrade(database)
        revision = await current_revision(database)
        head = head_revision(settings.database_url)
        state = "up to date" if revision == head else f"head is {head}"
        print(f"database at revision {revision or '(none)'} ({state})")
    finally:
        await database.dispose()
    return 0


async def _console(settings: Settings) -> int:
    from bot.app.console import Console
    from bot.app.console_reminders import terminal_delivery
    from bot.app.core import build_core

    core = await build_core(settings, identity="console")
    core.features.start()
    await core.extools.start()
    console = Console(core.agent, core.approvals)
    # Reminders made here are printed here when due, as long as the console runs.
    reminders = terminal_delivery(core, console.announce)
    core.scheduler.start()
    await reminders.start()
    if core.loop_watch is not None:
        core.loop_watch.arm()
    try:
        await console.run()
    finally:
        await reminders.stop()
        await core.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, load settings, dispatch; bad settings exit 2 with sentences."""
    args = _parser().parse_args(argv)
    if args.command in ("run", "console"):
        # No cyclic collection while litellm and janome load: passes over their fresh objects
        # find nothing and cost about a quarter of the import. warmup.prepare() turns it back on.
        gc.disable()
    try:
        settings = load_settings()
        if args.command == "run":
            settings.require_discord_token()
    except SettingsError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return EXIT_BAD_SETTINGS
    from bot.runtime.log import setup_logging

    setup_logging(settings.log_level, settings.secret_values())
    try:
        if args.command == "db":
            return asyncio.run(_db(settings, args.db_command))
        if args.command == "console":
            return asyncio.run(_console(settings))
        from bot.app.discord_app import StartupFailed, run_bot

        try:
            asyncio.run(run_bot(settings))
        except StartupFailed as exc:
            logging.getLogger("bot").error("Otomo could not start: %s", exc)
            return EXIT_STARTUP_FAILED
        return 0
    except KeyboardInterrupt:
        return 130
