"""Command line: `python -m bot run | doctor | console | db … | usage | tools token …`."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from collections.abc import Sequence

from bot.app.start_failures import ExitCode, StartupFailure
from bot.extools.token_commands import add_tools_commands, run_tools_command
from bot.settings import Settings, SettingsError, SettingsSection, load_settings

log = logging.getLogger("bot")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Otomo (お供): a Discord companion bot. Settings come from .env and the "
        "environment (see .env.example).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("run", help="apply migrations and start the Discord bot")
    commands.add_parser(
        "doctor",
        help="check the settings, Discord, database, files, ports and model; change nothing",
    )
    commands.add_parser("console", help="talk to Otomo in this terminal, without Discord")
    db = commands.add_parser("db", help="database migrations")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_commands.add_parser("upgrade", help="apply every pending migration")
    db_commands.add_parser("current", help="print the revision the database is at")
    usage = commands.add_parser(
        "usage", help="print the model's use and estimated cost per day and per model"
    )
    usage.add_argument("--days", type=int, default=7, choices=range(1, 32), metavar="1-31")
    usage.add_argument("--server", type=int, default=None, help="one server's id only")
    add_tools_commands(commands)
    return parser


async def _usage(settings: Settings, days: int, server: int | None) -> int:
    from bot.agent.llm.usage import usage_by_day
    from bot.runtime.clock import SystemClock
    from bot.storage import create_database

    database = create_database(settings.database_url)
    try:
        report = await usage_by_day(
            database.sessions, SystemClock().now(), days, settings.timezone, server
        )
    finally:
        await database.dispose()
    scope = "whole bot" if server is None else f"server {server}"
    print(f"Model usage ({scope}), {days} days, {settings.bot_timezone}")
    print(report.table())
    if report.models:
        print("\nPer model (estimated cost, USD, litellm's price map):")
        print(report.model_table())
    if report.unpriced_models:
        print(
            f"No price known for: {', '.join(report.unpriced_models)} (cost unknown; not "
            "counted toward a money budget)"
        )
    purposes = ", ".join(f"{name} {count}" for name, count in report.total.purposes.most_common())
    if purposes:
        print(f"purposes: {purposes}")
    return 0


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
    from bot.app.console import Console, ConsoleLog
    from bot.app.core import build_core
    from bot.reminders.console import terminal_delivery
    from bot.runtime.log import setup_logging

    # Warnings and errors only (no migration chatter), printed above the prompt, never into it.
    terminal = ConsoleLog()
    level = max(logging.WARNING, logging.getLevelNamesMapping()[settings.log_level])
    setup_logging(
        logging.getLevelName(level), settings.secret_values(), settings.log_format, terminal
    )
    core = await build_core(settings, identity="console")
    core.features.start()
    await core.extools.start()
    console = Console(core.agent, core.approvals)
    terminal.attach(console.announce)
    # Reminders made here are printed here when due, as long as the console runs.
    reminders = terminal_delivery(
        core.database.sessions,
        core.clock,
        core.scheduler,
        core.deps.due_times,
        core.database.health,
        console.announce,
    )
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


def _feature_settings(command: str) -> tuple[type[SettingsSection], ...]:
    """The features' own settings, checked at start by the commands that run or check them
    (the others skip importing every feature; a section is still checked when first read)."""
    if command not in ("run", "console", "doctor"):
        return ()
    from bot.app.features import SETTINGS_SECTIONS

    return SETTINGS_SECTIONS


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, load settings, dispatch; each start-up failure is a sentence and a code."""
    args = _parser().parse_args(argv)
    if args.command in ("run", "console"):
        # No cyclic collection while litellm and janome load: passes over their fresh objects
        # find nothing and cost about a quarter of the import. warmup.prepare() turns it back on.
        gc.disable()
    try:
        settings = load_settings(sections=_feature_settings(args.command))
        if args.command == "run":
            settings.require_discord_token()
    except SettingsError as exc:
        if args.command == "doctor":
            from bot.app.doctor import settings_problems

            return settings_problems(exc.problems, sys.stdout)
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return ExitCode.SETTINGS
    from bot.runtime.log import setup_logging

    if args.command == "doctor":
        from bot.app.doctor import run_doctor

        # The checklist is the output; log lines would only repeat it.
        setup_logging("CRITICAL", settings.secret_values(), settings.log_format)
        return asyncio.run(run_doctor(settings, sys.stdout))
    if args.command != "console":
        setup_logging(settings.log_level, settings.secret_values(), settings.log_format)
    try:
        if args.command == "db":
            return asyncio.run(_db(settings, args.db_command))
        if args.command == "usage":
            return asyncio.run(_usage(settings, args.days, args.server))
        if args.command == "tools":
            return asyncio.run(run_tools_command(settings, args))
        if args.command == "console":
            return asyncio.run(_console(settings))
        from bot.app.discord_app import run_bot

        asyncio.run(run_bot(settings))
        return ExitCode.OK
    except StartupFailure as failure:
        # The sentence says what to fix; the traceback only helps whoever debugs the bot.
        debug = settings.log_level == "DEBUG"
        log.error(
            "Otomo could not start: %s", failure.sentence, exc_info=failure if debug else None
        )
        return failure.code
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
