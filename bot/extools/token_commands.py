"""`python -m bot tools token create|list|revoke`: plugin credentials, managed from the host."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings


def add_tools_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `tools token …` to the command line."""
    tools = commands.add_parser("tools", help="tools from outside: plugin tokens")
    actions = tools.add_subparsers(dest="tools_command", required=True, metavar="ACTION")
    token = actions.add_parser("token", help="a plugin's own token for the tools API")
    token_actions = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    create = token_actions.add_parser(
        "create", help="make a token that registers tools under SOURCE only (printed once)"
    )
    create.add_argument("source", metavar="SOURCE", help="the plugin's source tag, e.g. dice")
    token_actions.add_parser("list", help="sources with tokens, and their tools")
    revoke = token_actions.add_parser(
        "revoke", help="delete SOURCE's tokens and the tools registered with them"
    )
    revoke.add_argument("source", metavar="SOURCE")


async def run_tools_command(settings: Settings, args: argparse.Namespace) -> int:
    """Run a `tools token` action against the bot's database; 2 with a sentence on bad input."""
    from bot.extools.credentials import Credentials
    from bot.extools.registration import Refused, check_source
    from bot.runtime.clock import SystemClock
    from bot.storage import create_database
    from bot.storage.migrate import upgrade

    source: str | None = getattr(args, "source", None)
    if source is not None:
        try:
            source = check_source(source)
        except Refused as refused:
            print(refused.sentence.replace("source must", "SOURCE must"))
            return 2
    database = create_database(settings.database_url)
    try:
        await upgrade(database)
        credentials = Credentials(database.sessions, SystemClock())
        if args.token_command == "create":
            assert source is not None
            token = await credentials.create(source)
            print(token)
            print(
                f"This token registers tools under source {source!r} only; it is shown once. "
                "Give it to the plugin as OTOMO_TOOLS_TOKEN."
            )
            if source not in settings.trusted_tool_sources:
                print(
                    f"Its tools ask for approval; add {source} to TRUSTED_TOOL_SOURCES to let "
                    "them run without a card."
                )
        elif args.token_command == "list":
            summaries = await credentials.summaries()
            if not summaries:
                print("No plugin has a token of its own.")
            for summary in summaries:
                trusted = "trusted" if summary.source in settings.trusted_tool_sources else "asks"
                print(
                    f"{summary.source}: {summary.count} token(s), {summary.tools} tool(s), "
                    f"{trusted}"
                )
        else:
            assert source is not None
            count, names = await credentials.revoke(source)
            if count == 0:
                print(f"Source {source!r} has no token of its own; nothing was revoked.")
            else:
                removed = ", ".join(names) if names else "none"
                print(
                    f"Revoked {count} token(s) of {source!r}; tools removed: {removed}. "
                    "Running bots stop offering them within seconds."
                )
    finally:
        await database.dispose()
    return 0
