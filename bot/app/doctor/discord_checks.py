"""The doctor's Discord checks: the token logs in over REST, the privileged intents are on, the
invite link, and where the slash commands are registered."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from bot.app.doctor.checklist import FAIL, PASS, SKIP, WARN, Checklist, short
from bot.app.doctor.local_checks import database_exists
from bot.app.start_failures import discord_failure
from bot.settings import Settings


@dataclass
class DiscordFacts:
    """What the token check learned, for the checks that need it."""

    application_id: int | None = None
    flags: int | None = None
    commands: dict[str, list[str]] | None = None  # scope -> command names


class DiscordChecks:
    """The checks that ask Discord; the later ones read what the token check learned."""

    def __init__(self, settings: Settings, checklist: Checklist) -> None:
        self.settings = settings
        self.checklist = checklist
        self.facts = DiscordFacts()

    async def check_discord(self) -> None:
        """The token logs in over REST; the application's id, flags and commands are read."""
        import discord

        from bot.discord_ui.client import point_discord_py_at

        settings = self.settings
        token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
        if not token:
            self.checklist.say(
                FAIL,
                "Discord token",
                "DISCORD_TOKEN is not set: copy .env.example to .env and paste your bot token "
                "(Discord Developer Portal → Bot → Reset Token)",
            )
            return
        point_discord_py_at(settings.discord_api_base, settings.discord_gateway_url)
        http = discord.http.HTTPClient(asyncio.get_running_loop())
        try:
            me: Any = await http.static_login(token)
            app: Any = await http.application_info()
            self.facts.application_id = int(app["id"])
            self.facts.flags = int(app.get("flags") or 0)
            self.facts.commands = await self._commands(http, self.facts.application_id)
        except Exception as exc:
            failure = discord_failure(exc)
            self.checklist.say(FAIL, "Discord token", failure.sentence if failure else short(exc))
            return
        finally:
            await http.close()
        self.checklist.say(
            PASS, "Discord token", f"accepted: the bot is {me['username']} (id {me['id']})"
        )

    async def _commands(self, http: Any, application_id: int) -> dict[str, list[str]]:
        found = {"global": [c["name"] for c in await http.get_global_commands(application_id)]}
        if self.settings.dev_guild_id:
            guild = self.settings.dev_guild_id
            try:
                listed = await http.get_guild_commands(application_id, guild)
            except Exception as exc:
                found[str(guild)] = []
                self.checklist.say(WARN, "Dev server", f"DEV_GUILD_ID {guild}: {short(exc)}")
            else:
                found[str(guild)] = [c["name"] for c in listed]
        return found

    async def check_intents(self) -> None:
        """The privileged intents Otomo asks for are switched on in the portal."""
        from bot.app.start_failures import INTENTS_PAGE
        from bot.discord_ui.application import missing_intents

        if self.facts.flags is None:
            self.checklist.say(SKIP, "Intents", "not checked: needs a working DISCORD_TOKEN")
            return
        missing = missing_intents(self.facts.flags)
        if missing:
            self.checklist.say(
                FAIL,
                "Intents",
                f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} off: switch "
                f"{'it' if len(missing) == 1 else 'them'} on in the {INTENTS_PAGE}",
            )
            return
        self.checklist.say(PASS, "Intents", "Message Content and Server Members are on")

    async def check_invite(self) -> None:
        """The invite link with the permissions Otomo uses."""
        from bot.discord_ui.application import invite_url

        if self.facts.application_id is None:
            self.checklist.say(SKIP, "Invite link", "not known: needs a working DISCORD_TOKEN")
            return
        self.checklist.say(PASS, "Invite link", invite_url(self.facts.application_id))

    async def check_commands(self) -> None:
        """Slash commands are registered where the bot syncs them."""
        from bot.discord_ui.commands.sync import scope_of

        if self.facts.commands is None or self.facts.application_id is None:
            self.checklist.say(SKIP, "Slash commands", "not checked: needs a working DISCORD_TOKEN")
            return
        scope = scope_of(self.settings.dev_guild_id)
        where = "globally" if scope == "global" else f"in server {scope} (DEV_GUILD_ID)"
        names = self.facts.commands.get(scope, [])
        synced = await self._last_sync(self.facts.application_id, scope)
        if not names:
            self.checklist.say(
                WARN,
                "Slash commands",
                f"none registered {where} yet: `make run` syncs them at start"
                + ("" if scope != "global" else " (global ones take up to an hour to appear)"),
            )
            return
        when = f", last synced {synced}" if synced else ""
        self.checklist.say(
            PASS,
            "Slash commands",
            f"{len(names)} registered {where} (/{', /'.join(sorted(names))}){when}; "
            "the bot syncs again when they change",
        )

    async def _last_sync(self, application_id: int, scope: str) -> str | None:
        from bot.storage import create_database
        from bot.storage.command_syncs import CommandSyncs

        if not database_exists(self.settings.database_url):
            return None
        try:
            database = create_database(self.settings.database_url)
        except Exception:
            return None  # said on the database's own line
        try:
            row = await CommandSyncs(database.sessions).last(application_id, scope)
        except Exception:
            return None  # an older schema, or the database is away (said on its own line)
        finally:
            await database.dispose()
        return None if row is None else row.synced_at.strftime("%Y-%m-%d %H:%M UTC")
