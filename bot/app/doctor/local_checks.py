"""The doctor's checks of what lies on this machine: the database, the knowledge-base folder,
the MCP servers file and the ports the bot opens."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

from bot.app.doctor.checklist import FAIL, PASS, WARN, Checklist, short
from bot.app.preflight import check_knowledge_base, check_mcp_servers, check_port_free
from bot.app.start_failures import StartupFailure, check_database_url, database_failure
from bot.runtime.redaction import mask_url_password
from bot.settings import Settings


def database_exists(url: str) -> bool:
    """False only for a SQLite file not created yet (a server database is asked instead)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return True
    return parsed.database == ":memory:" or Path(parsed.database).is_file()


class LocalChecks:
    """The checks that need nothing but this machine (and the database's server)."""

    def __init__(self, settings: Settings, checklist: Checklist, handler_names: frozenset[str]):
        self.settings = settings
        self.checklist = checklist
        self.handler_names = handler_names

    async def check_database(self) -> None:
        """The database is supported, reachable and how far it is migrated (never migrating)."""
        from bot.storage import create_database
        from bot.storage.migrate import SCHEMA_HEAD, current_revision

        url = self.settings.database_url
        shown = mask_url_password(url)
        try:
            check_database_url(url)
        except StartupFailure as unsupported:
            self.checklist.say(FAIL, "Database", unsupported.sentence)
            return
        parsed = make_url(url)
        if not database_exists(url):
            folder = Path(parsed.database or ".").parent
            creatable = _creatable(folder)
            if creatable is not None:
                self.checklist.say(FAIL, "Database", creatable)
                return
            self.checklist.say(PASS, "Database", f"{shown}: not created yet; `make run` creates it")
            return
        database = create_database(url)
        try:
            revision = await current_revision(database)
        except Exception as exc:
            failure = database_failure(exc, url)
            self.checklist.say(FAIL, "Database", failure.sentence if failure else short(exc))
            return
        finally:
            await database.dispose()
        if revision == SCHEMA_HEAD:
            self.checklist.say(
                PASS, "Database", f"{shown}: reachable, schema up to date ({revision})"
            )
        elif revision is None:
            self.checklist.say(
                PASS, "Database", f"{shown}: reachable and empty; `make run` creates the tables"
            )
        else:
            self.checklist.say(
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
            self.checklist.say(FAIL, "Knowledge base", failure.sentence)
            return
        count = sum(1 for _ in folder.rglob("*.md"))
        mark = PASS if count else WARN
        extra = "" if count else ": the bot will answer without server knowledge"
        self.checklist.say(
            mark,
            "Knowledge base",
            f"{folder}: {count} markdown file{'' if count == 1 else 's'}{extra}",
        )

    async def check_mcp(self) -> None:
        """The MCP servers file is readable, well-formed, and its commands are installed."""
        if self.settings.mcp_servers_file is None:
            self.checklist.say(PASS, "MCP servers", "none (MCP_SERVERS_FILE is empty)")
            return
        try:
            servers = check_mcp_servers(self.settings, self.handler_names)
        except StartupFailure as failure:
            self.checklist.say(FAIL, "MCP servers", failure.sentence)
            return
        names = ", ".join(s.name for s in servers) or "none enabled"
        self.checklist.say(PASS, "MCP servers", f"{self.settings.mcp_servers_file}: {names}")

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
            ("Health port", "HEALTH_PORT", self.settings.health_host, self.settings.health_port),
        ]
        for title, setting, host, port in ports:
            if port is None:
                self.checklist.say(PASS, title, f"off ({setting} is empty)")
                continue
            try:
                check_port_free(host, port, setting, ExitCode.TOOLS_API_PORT)
            except StartupFailure as failure:
                self.checklist.say(WARN, title, f"{failure.sentence}; fine if that is Otomo itself")
            else:
                self.checklist.say(PASS, title, f"{host}:{port} is free")


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
