"""Migration 0005 creates the tables the knowledge models describe (0017 adds their server)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import MetaData, create_engine, inspect

from bot.knowledge.table import KnowledgeChange, KnowledgeDocument
from bot.storage.engine import NAMING_CONVENTION

MIGRATION = Path(__file__).parents[2] / "migrations" / "versions" / "0005_knowledge.py"
TABLES = {KnowledgeDocument.__tablename__, KnowledgeChange.__tablename__}


def _migration() -> Any:
    spec = importlib.util.spec_from_file_location("migration_0005", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _models_only() -> MetaData:
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    for table in (KnowledgeDocument.__table__, KnowledgeChange.__table__):
        table.to_metadata(metadata)
    return metadata


def _describe(difference: Any) -> str:
    kind = difference[0]
    if kind == "add_column":
        return f"add_column {difference[2]}.{difference[3].name}"
    if kind == "add_index":
        return f"add_index {difference[1].name}"
    return repr(difference)


def test_upgrade_matches_the_models_and_downgrade_removes_them() -> None:
    migration = _migration()
    assert (migration.revision, migration.down_revision) == ("0005", "0004")
    engine = create_engine("sqlite://")
    with engine.begin() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        with Operations.context(context):
            migration.upgrade()
        differences = compare_metadata(context, _models_only())
        # Migration 0017 (tested in tests/storage/test_server_scopes_migration.py) adds each
        # row's server: the only difference left at 0005.
        assert sorted(_describe(d) for d in differences) == [
            "add_column kb_changes.guild_id",
            "add_column kb_documents.guild_id",
            "add_index ix_kb_changes_guild_id",
            "add_index ix_kb_documents_guild_id",
        ]

        with Operations.context(context):
            migration.downgrade()
        assert TABLES.isdisjoint(inspect(connection).get_table_names())
