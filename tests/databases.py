"""Every database test runs on SQLite and on PostgreSQL, each on a database of its own.

`database_engine` is parametrized over both engines; `blank_database_url` gives a fresh empty
database, `database_url` a fresh one at head, and `database` the `Database` opened on it. On
PostgreSQL each test gets a role and a schema of its own (see PostgresServer) named
`otomo_t_<pid>_<session>_<n>`, so suites run concurrently on one server never meet; both are
dropped after the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, make_url

from bot.app.schema import metadata
from bot.storage import Database, create_database
from bot.storage.migrate import alembic_config, upgrade

# The server tests use; CI and every development machine run one here (see tests/README.md).
POSTGRES_URL = os.environ.get(
    "OTOMO_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
ENGINES = ("sqlite", "postgresql")
HOW_TO_RUN = (
    "PostgreSQL is not reachable at {url} ({error}); these tests need it. Start it "
    "(`pg_ctlcluster --skip-systemctl-redirect 15 main start`) or point "
    "OTOMO_TEST_POSTGRES_URL at a server where the user may create databases."
)
NAME_PREFIX = "otomo_t_"
_NAME = re.compile(rf"^{NAME_PREFIX}(\d+)_")


def _admin_dsn(url: str) -> str:
    """The asyncpg DSN of url (asyncpg does not know SQLAlchemy's +driver suffix)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@dataclass
class PostgresServer:
    """The shared test server. A test's "database" is a role with a schema of its own name in
    this session's database: PostgreSQL puts `"$user"` first on the search path, so the bot sees
    an empty database without any setting, and CREATE/DROP SCHEMA takes milliseconds where
    DROP DATABASE waits for a checkpoint (a second or more on a busy server)."""

    url: str
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _session: str = field(default_factory=lambda: uuid.uuid4().hex[:6])
    _database: str | None = None

    def url_for(self, role: str) -> str:
        """The SQLAlchemy URL a test's bot uses: this session's database, as role."""
        assert self._database is not None
        return (
            make_url(self.url)
            .set(username=role, password=None, database=self._database)
            .render_as_string(hide_password=False)
        )

    def fresh_name(self) -> str:
        """A name no other test (in this or another suite on this server) uses."""
        return f"{NAME_PREFIX}{os.getpid()}_{self._session}_{next(self._names)}"

    async def execute(self, *statements: str, database: str | None = None) -> None:
        """Run statements as the administrator, on database (default: the maintenance one)."""
        import asyncpg

        dsn = _admin_dsn(self.url)
        if database is not None:
            dsn = _admin_dsn(make_url(self.url).set(database=database).render_as_string(False))
        connection = await asyncpg.connect(dsn, timeout=30)
        try:
            for statement in statements:
                await connection.execute(statement)
        finally:
            await connection.close()

    async def start(self) -> None:
        """Drop what dead suites left behind, then create this session's database."""
        await self._drop_leftovers()
        self._database = self.fresh_name()
        await self.execute(f'CREATE DATABASE "{self._database}"')

    async def finish(self) -> None:
        """Drop this session's database and every role its tests used."""
        if self._database is not None:
            await self.execute(f'DROP DATABASE IF EXISTS "{self._database}" WITH (FORCE)')
            await self._drop_roles(f"{self._database}\\_%")
            self._database = None

    async def create(self) -> str:
        """A new empty "database" (role + schema); returns the role's name."""
        assert self._database is not None
        name = self.fresh_name()
        await self.execute(
            f'CREATE ROLE "{name}" LOGIN',
            f'CREATE SCHEMA "{name}" AUTHORIZATION "{name}"',
            database=self._database,
        )
        return name

    async def drop(self, name: str) -> None:
        """Drop a test's schema and role, ending whatever connection the test left open."""
        assert self._database is not None
        await self.execute(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{name}'",
            f'DROP SCHEMA IF EXISTS "{name}" CASCADE',
            f'DROP ROLE IF EXISTS "{name}"',
            database=self._database,
        )

    async def _drop_roles(self, pattern: str) -> None:
        import asyncpg

        connection = await asyncpg.connect(_admin_dsn(self.url), timeout=30)
        try:
            for row in await connection.fetch(
                "SELECT rolname FROM pg_roles WHERE rolname LIKE $1", pattern
            ):
                with contextlib.suppress(Exception):
                    await connection.execute(f'DROP ROLE "{row["rolname"]}"')
        finally:
            await connection.close()

    async def _drop_leftovers(self) -> None:
        """Drop the databases and roles of suites that died before cleaning up."""
        import asyncpg

        connection = await asyncpg.connect(_admin_dsn(self.url), timeout=30)
        try:
            names = [
                row["datname"]
                for row in await connection.fetch(
                    "SELECT datname FROM pg_database WHERE datname LIKE $1", f"{NAME_PREFIX}%"
                )
            ]
        finally:
            await connection.close()
        for name in names:
            match = _NAME.match(name)
            if match and not _alive(int(match.group(1))):
                with contextlib.suppress(Exception):
                    await self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                    await self._drop_roles(f"{name}\\_%")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _reachable(server: PostgresServer) -> str | None:
    """None when the server answers, else why not."""
    try:
        await server.execute("SELECT 1")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer | None]:
    """The shared PostgreSQL, or None when it is not running (CI=true makes that an error)."""
    server = PostgresServer(POSTGRES_URL)
    problem = asyncio.run(_reachable(server))
    if problem is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(HOW_TO_RUN.format(url=POSTGRES_URL, error=problem), pytrace=False)
        yield None
        return
    asyncio.run(server.start())
    yield server
    asyncio.run(server.finish())


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session; tests get copies."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"

    async def migrate() -> None:
        database = create_database(f"sqlite+aiosqlite:///{path}")
        try:
            await upgrade(database)
            async with database.engine.connect() as connection:
                # Fold the WAL into the main file so a plain copy holds every table.
                await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            await database.dispose()

    asyncio.run(migrate())
    return path


@pytest.fixture(params=ENGINES)
def database_engine(request: pytest.FixtureRequest) -> str:
    """ "sqlite" or "postgresql": every test that uses a database runs once per engine."""
    engine = str(request.param)
    if engine == "postgresql" and request.getfixturevalue("postgres_server") is None:
        problem = asyncio.run(_reachable(PostgresServer(POSTGRES_URL)))
        pytest.skip(HOW_TO_RUN.format(url=POSTGRES_URL, error=problem))
    return engine


@dataclass
class FreshDatabases:
    """Makes new databases on this run's engine; all of them are dropped after the test."""

    folder: Path
    sqlite_template: Path | None
    server: PostgresServer | None
    _made: list[str] = field(default_factory=list)

    async def create(self, *, migrated: bool = True) -> str:
        """The URL of a new database, migrated to head or (migrated=False) with no tables."""
        if self.server is None:
            path = self.folder / f"otomo-{uuid.uuid4().hex[:8]}.db"
            if migrated:
                assert self.sqlite_template is not None
                shutil.copyfile(self.sqlite_template, path)
            return f"sqlite+aiosqlite:///{path}"
        name = await self.server.create()
        self._made.append(name)
        url = self.server.url_for(name)
        if migrated:
            await _create_tables_at_head(url)
        return url

    async def drop_all(self) -> None:
        """Drop every database this test made."""
        for name in self._made:
            assert self.server is not None
            await self.server.drop(name)
        self._made.clear()


async def _create_tables_at_head(url: str) -> None:
    """The schema the migrations build (tests/storage proves they match), stamped at head:
    one CREATE per table instead of replaying every migration."""

    def build(connection: Connection) -> None:
        metadata.create_all(connection, checkfirst=False)
        context = MigrationContext.configure(connection)
        context.stamp(ScriptDirectory.from_config(alembic_config(url)), "head")

    database = create_database(url)
    try:
        async with database.engine.begin() as connection:
            await connection.run_sync(build)
    finally:
        await database.dispose()


@pytest.fixture
def _database_factory(
    request: pytest.FixtureRequest, database_engine: str, tmp_path: Path
) -> FreshDatabases:
    # Sync on purpose: the session template is built with asyncio.run, outside the test's loop.
    if database_engine == "sqlite":
        return FreshDatabases(tmp_path, request.getfixturevalue("sqlite_template"), None)
    return FreshDatabases(tmp_path, None, request.getfixturevalue("postgres_server"))


@pytest.fixture
async def fresh_databases(_database_factory: FreshDatabases) -> AsyncIterator[FreshDatabases]:
    """A factory of new databases on the engine of this run (tests that need several)."""
    yield _database_factory
    await _database_factory.drop_all()


@pytest.fixture
async def blank_database_url(fresh_databases: FreshDatabases) -> str:
    """The URL of a new database with no tables (migration tests)."""
    return await fresh_databases.create(migrated=False)


@pytest.fixture
async def database_url(fresh_databases: FreshDatabases) -> str:
    """The URL of a new database migrated to head, on the engine of this run."""
    return await fresh_databases.create()


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """A new database with every table, on SQLite and on PostgreSQL."""
    db = create_database(database_url)
    yield db
    await db.dispose()
