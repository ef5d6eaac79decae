"""`python -m bot doctor`: every start-up check, as a checklist that says what to fix.

It changes nothing: it does not migrate the database, create files or sync commands. It logs
in to Discord's REST API (no gateway connection) and sends the model one tiny request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy.engine import make_url

from bot.app.preflight import check_knowledge_base, check_mcp_servers, check_port_free
from bot.app.start_failures import (
    StartupFailure,
    check_database_url,
    database_failure,
    discord_failure,
)
from bot.runtime.redaction import mask_url_password
from bot.settings import Settings

PASS, FAIL, WARN, SKIP = "✓", "✗", "!", "-"
TITLE_WIDTH = 18


@dataclass(frozen=True)
class Line:
    """One line of the checklist."""

    mark: str
    title: str
    text: str


@dataclass
class DiscordFacts:
    """What the token check learned, for the checks that need it."""

    application_id: int | None = None
    flags: int | None = None
    commands: dict[str, list[str]] | None = None  # scope -> command names


class Doctor:
    """Runs the checks in order and prints each line as soon as it is known."""

    def __init__(self, settings: Settings, out: TextIO, handler_names: frozenset[str]) -> None:
        self.settings = settings
        self.out = out
        self.handler_names = handler_names
        self.lines: list[Line] = []
        self.discord = DiscordFacts()

    def say(self, mark: str, title: str, text: str) -> None:
        """Record and print one line."""
        line = Line(mark, title, text)
        self.lines.append(line)
        self.out.write(f"  {mark} {title:<{TITLE_WIDTH}} {text}\n")
        self.out.flush()

    async def run(self) -> int:
        """Every check; 0 when none failed, 1 otherwise."""
        self.out.write("Otomo doctor: checking the settings in .env and the environment\n\n")
        self.say(PASS, "Settings", "every setting is valid")
        checks: list[Callable[[], Awaitable[None]]] = [
            self.check_discord,
            self.check_intents,
            self.check_invite,
            self.check_database,
            self.check_commands,
            self.check_knowledge_base,
            self.check_mcp,
            self.check_ports,
            self.check_model,
        ]
        for check in checks:
            try:
                await check()
            except Exception as exc:
                self.say(FAIL, check.__name__.removeprefix("check_"), f"the check failed: {exc}")
        failures = [line for line in self.lines if line.mark == FAIL]
        self.out.write("\n")
        if failures:
            count = len(failures)
            self.out.write(
                f"{count} problem{'s' if count > 1 else ''}: fix the lines marked {FAIL} and run "
                "`make doctor` again.\n"
            )
            return 1
        warnings = sum(line.mark == WARN for line in self.lines)
        note = f" ({warnings} note{'s' if warnings > 1 else ''} marked {WARN})" if warnings else ""
        self.out.write(f"Everything Otomo needs is in place{note}: `make run` starts it.\n")
        return 0

    # -- Discord -----------------------------------------------------------------------------

    async def check_discord(self) -> None:
        """The token logs in over REST; the application's id, flags and commands are read."""
        import discord

        from bot.discord_ui.client import point_discord_py_at

        settings = self.settings
        token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
        if not token:
            self.say(
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
            self.discord.application_id = int(app["id"])
            self.discord.flags = int(app.get("flags") or 0)
            self.discord.commands = await self._commands(http, self.discord.application_id)
        except Exception as exc:
            failure = discord_failure(exc)
            self.say(FAIL, "Discord token", failure.sentence if failure else _short(exc))
            return
        finally:
            await http.close()
        self.say(PASS, "Discord token", f"accepted: the bot is {me['username']} (id {me['id']})")

    async def _commands(self, http: Any, application_id: int) -> dict[str, list[str]]:
        found = {"global": [c["name"] for c in await http.get_global_commands(application_id)]}
        if self.settings.dev_guild_id:
            guild = self.settings.dev_guild_id
            try:
                listed = await http.get_guild_commands(application_id, guild)
            except Exception as exc:
                found[str(guild)] = []
                self.say(WARN, "Dev server", f"DEV_GUILD_ID {guild}: {_short(exc)}")
            else:
                found[str(guild)] = [c["name"] for c in listed]
        return found

    async def check_intents(self) -> None:
        """The privileged intents Otomo asks for are switched on in the portal."""
        from bot.app.start_failures import INTENTS_PAGE
        from bot.discord_ui.application import missing_intents

        if self.discord.flags is None:
            self.say(SKIP, "Intents", "not checked: needs a working DISCORD_TOKEN")
            return
        missing = missing_intents(self.discord.flags)
        if missing:
            self.say(
                FAIL,
                "Intents",
                f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} off: switch "
                f"{'it' if len(missing) == 1 else 'them'} on in the {INTENTS_PAGE}",
            )
            return
        self.say(PASS, "Intents", "Message Content and Server Members are on")

    async def check_invite(self) -> None:
        """The invite link with the permissions Otomo uses."""
        from bot.discord_ui.application import invite_url

        if self.discord.application_id is None:
            self.say(SKIP, "Invite link", "not known: needs a working DISCORD_TOKEN")
            return
        self.say(PASS, "Invite link", invite_url(self.discord.application_id))

    async def check_commands(self) -> None:
        """Slash commands are registered where the bot syncs them."""
        from bot.discord_ui.commands.sync import scope_of

        if self.discord.commands is None or self.discord.application_id is None:
            self.say(SKIP, "Slash commands", "not checked: needs a working DISCORD_TOKEN")
            return
        scope = scope_of(self.settings.dev_guild_id)
        where = "globally" if scope == "global" else f"in server {scope} (DEV_GUILD_ID)"
        names = self.discord.commands.get(scope, [])
        synced = await self._last_sync(self.discord.application_id, scope)
        if not names:
            self.say(
                WARN,
                "Slash commands",
                f"none registered {where} yet: `make run` syncs them at start"
                + ("" if scope != "global" else " (global ones take up to an hour to appear)"),
            )
            return
        when = f", last synced {synced}" if synced else ""
        self.say(
            PASS,
            "Slash commands",
            f"{len(names)} registered {where} (/{', /'.join(sorted(names))}){when}; "
            "the bot syncs again when they change",
        )

    async def _last_sync(self, application_id: int, scope: str) -> str | None:
        from bot.storage import create_database
        from bot.storage.command_syncs import CommandSyncs

        if not self._database_exists():
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

    # -- storage and files -------------------------------------------------------------------

    def _database_exists(self) -> bool:
        parsed = make_url(self.settings.database_url)
        if parsed.get_backend_name() != "sqlite" or not parsed.database:
            return True
        return parsed.database == ":memory:" or Path(parsed.database).is_file()

    async def check_database(self) -> None:
        """The database is supported, reachable and how far it is migrated (never migrating)."""
        from bot.storage import create_database
        from bot.storage.migrate import SCHEMA_HEAD, current_revision

        url = self.settings.database_url
        shown = mask_url_password(url)
        try:
            check_database_url(url)
        except StartupFailure as unsupported:
            self.say(FAIL, "Database", unsupported.sentence)
            return
        parsed = make_url(url)
        if not self._database_exists():
            folder = Path(parsed.database or ".").parent
            creatable = _creatable(folder)
            if creatable is not None:
                self.say(FAIL, "Database", creatable)
                return
            self.say(PASS, "Database", f"{shown}: not created yet; `make run` creates it")
            return
        database = create_database(url)
        try:
            revision = await current_revision(database)
        except Exception as exc:
            failure = database_failure(exc, url)
            self.say(FAIL, "Database", failure.sentence if failure else _short(exc))
            return
        finally:
            await database.dispose()
        if revision == SCHEMA_HEAD:
            self.say(PASS, "Database", f"{shown}: reachable, schema up to date ({revision})")
        elif revision is None:
            self.say(
                PASS, "Database", f"{shown}: reachable and empty; `make run` creates the tables"
            )
        else:
            self.say(
                PASS,
                "Database",
                f"{shown}: reachable at revision {revision}; `make run` migrates it to "
                f"{SCHEMA_HEAD}",
            )

    async def check_knowledge_base(self) -> None:
        """The knowledge-base folder exists; how many markdown files it holds."""
        try:
            folder = check_knowledge_base(self.settings)
        except StartupFailure as failure:
            self.say(FAIL, "Knowledge base", failure.sentence)
            return
        count = sum(1 for _ in folder.rglob("*.md"))
        mark = PASS if count else WARN
        extra = "" if count else ": the bot will answer without server knowledge"
        self.say(
            mark,
            "Knowledge base",
            f"{folder}: {count} markdown file{'' if count == 1 else 's'}{extra}",
        )

    async def check_mcp(self) -> None:
        """The MCP servers file is readable, well-formed, and its commands are installed."""
        if self.settings.mcp_servers_file is None:
            self.say(PASS, "MCP servers", "none (MCP_SERVERS_FILE is empty)")
            return
        try:
            servers = check_mcp_servers(self.settings, self.handler_names)
        except StartupFailure as failure:
            self.say(FAIL, "MCP servers", failure.sentence)
            return
        names = ", ".join(s.name for s in servers) or "none enabled"
        self.say(PASS, "MCP servers", f"{self.settings.mcp_servers_file}: {names}")

    async def check_ports(self) -> None:
        """The ports the bot opens are free (or held by a running Otomo)."""
        from bot.app.start_failures import ExitCode

        ports = [
            (
                "Tools API",
                "TOOLS_API_PORT",
                self.settings.tools_api_host,
                self.settings.tools_api_port,
            ),
            *self.extra_ports(),
        ]
        for title, setting, host, port in ports:
            if port is None:
                self.say(PASS, title, f"off ({setting} is empty)")
                continue
            try:
                check_port_free(host, port, setting, ExitCode.TOOLS_API_PORT)
            except StartupFailure as failure:
                self.say(WARN, title, f"{failure.sentence}; fine if that is Otomo itself")
            else:
                self.say(PASS, title, f"{host}:{port} is free")

    def extra_ports(self) -> list[tuple[str, str, str, int | None]]:
        """More (title, setting, host, port) to check."""
        return [
            ("Health port", "HEALTH_PORT", self.settings.health_host, self.settings.health_port)
        ]

    # -- the model ---------------------------------------------------------------------------

    async def check_model(self) -> None:
        """The model's provider and key, then one tiny request."""
        from bot.agent.llm.model_check import ModelProblem, ask_model, check_configuration

        model = self.settings.llm_model
        try:
            await asyncio.to_thread(check_configuration, self.settings)
            started = time.perf_counter()
            answered = await ask_model(self.settings)
        except ModelProblem as problem:
            self.say(FAIL, "Model", problem.sentence)
            return
        took = time.perf_counter() - started
        note = f" ({answered.note})" if answered.note else ""
        self.say(PASS, "Model", f"{model} answered a tiny request in {took:.1f} s{note}")
        await self.check_model_speed()

    async def check_model_speed(self) -> None:
        """A prompt of the real size, timed: the waits a model this fast needs."""
        from bot.agent.llm.model_check import problem_from_exception
        from bot.agent.llm.speed import MEASURE_LIMIT_SECONDS, measure

        settings = self.settings
        self.out.write(
            f"    (timing a prompt of the real size; a model on a CPU may take minutes, at most "
            f"{MEASURE_LIMIT_SECONDS / 60:.0f})\n"
        )
        self.out.flush()
        try:
            speed = await measure(settings)
        except Exception as exc:
            problem = problem_from_exception(exc, settings.llm_model, settings)
            self.say(FAIL, "Model speed", f"a prompt of the real size failed: {problem.sentence}")
            return
        writing = (
            f", then {speed.tokens_per_second:.1f} tokens/s" if speed.tokens_per_second else ""
        )
        measured = (
            f"a {speed.prompt_tokens:,}-token prompt: first token after "
            f"{speed.first_token_seconds:.1f} s{writing}"
        )
        raise_these = speed.too_low(settings)
        changes = " and ".join(
            f"{name} to {value} (now {now:g})" for name, now, value in raise_these
        )
        if not raise_these:
            mark, said = PASS, f"{measured}; LLM_TIMEOUT_SECONDS and LLM_ROUND_SECONDS fit it"
        elif speed.fails_now(settings):
            mark = FAIL
            said = (
                f"{measured}: too slow for the waits set, mentions would time out. Raise {changes}"
            )
        else:
            mark = WARN
            said = f"{measured}: close to the waits set. Raise {changes} so longer prompts fit"
        self.say(mark, "Model speed", f"{said} in .env" if raise_these else said)


def _creatable(folder: Path) -> str | None:
    """None when a SQLite file can be created in folder (or its nearest existing parent)."""
    import os

    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    reason = (
        "is a file"
        if not probe.is_dir()
        else "is not writable"
        if not os.access(probe, os.W_OK | os.X_OK)
        else None
    )
    if reason is None:
        return None
    return (
        f"the SQLite database {str(folder)!r} cannot be created there: {str(probe)!r} {reason}; "
        "fix DATABASE_URL or the folder"
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def settings_problems(problems: list[str], out: TextIO) -> int:
    """The checklist when the settings themselves are invalid: nothing else can be checked."""
    out.write("Otomo doctor: checking the settings in .env and the environment\n\n")
    for problem in problems:
        out.write(f"  {FAIL} {'Settings':<{TITLE_WIDTH}} {problem}\n")
    out.write(
        f"\nFix the settings marked {FAIL} (in .env or the environment) and run `make doctor` "
        "again; the other checks need them.\n"
    )
    return 1


async def run_doctor(settings: Settings, out: TextIO) -> int:
    """Every check, printed to out; 0 when nothing needs fixing."""
    from bot.app.features import HANDLERS
    from bot.handlers.catalog import HandlerParts, build_handlers

    handlers = frozenset(build_handlers(HandlerParts(list(HANDLERS))))
    return await Doctor(settings, out, handlers).run()
