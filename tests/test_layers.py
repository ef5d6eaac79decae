"""The house's layers (docs/architecture.md) hold in the code: imports only go down, no circles.

A feature is one package: its core never imports `discord`, its Discord part
(`bot/<feature>/discord_part/`) may, and features never import each other. The shared layers
know no feature: features register into them. The map in docs/architecture.md names the same
layers; this test is what keeps it true.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"

# The features: every package of bot/ with a feature.py (a new feature needs no line here), and
# the tools from outside, which register at run time.
FEATURES = (
    *sorted(f"bot.{path.parent.name}" for path in BOT.glob("*/feature.py")),
    "bot.extools",
)
# A feature's Discord part (its slash commands, buttons and posts): `bot/<feature>/discord_part/`.
# It may import discord, the Discord layer and its own feature.
FEATURE_DISCORD_PARTS = tuple(f"{feature}.discord_part" for feature in FEATURES)
# The Discord layer's own commands (/otomo tools) show the tools from outside: the one feature
# the shared layers still name.
KNOWN_TO_THE_DISCORD_LAYER = ("bot.extools",)
# Top to bottom. A package may import packages of lower layers and itself; packages that share a
# layer never import each other (features are peers: each stands on the layers below it alone).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("bot.__main__",),
    ("bot.app",),
    FEATURE_DISCORD_PARTS,
    ("bot.discord_ui",),
    FEATURES,
    ("bot.handlers",),
    ("bot.agent",),
    ("bot.members",),
    ("bot.servers",),
    ("bot.search",),
    ("bot.schedule",),
    ("bot.settings",),
    ("bot.i18n",),
    ("bot.text",),
    ("bot.runtime",),
    ("bot.storage",),
)
# The plugin SDK runs in other processes: it stands apart and imports nothing of the bot.
APART = ("bot.plugins",)
# Inside the agent, its parts stand below the loop that uses them.
AGENT_PARTS = (
    "bot.agent.tools",
    "bot.agent.approvals",
    "bot.agent.conversation",
    "bot.agent.attachments",
    "bot.agent.llm",
)
AGENT_LOOP = (
    "bot.agent.loop",
    "bot.agent.endings",
    "bot.agent.tool_calls",
    "bot.agent.runs",
    "bot.agent.events",
    "bot.agent.warmup",
    "bot.agent.call_records",
)
# Below the Discord layer nothing knows Discord (so it runs in the console and in tests).
DISCORD_FREE = tuple(p for layer in LAYERS[4:] for p in layer) + APART
# SQL lives in storage and the services; the Discord layer speaks to services only.
SQL_FREE = (
    *FEATURE_DISCORD_PARTS,
    "bot.discord_ui",
    "bot.handlers",
    "bot.search",
    "bot.schedule",
    "bot.text",
    "bot.settings",
    "bot.i18n",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> Iterator[str]:
    """Every module path imported by the file, type-checking-only imports included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


MODULES = {_module_name(p): p for p in sorted(BOT.rglob("*.py"))}


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        graph[name] = {m for m in _imports(path) if m in MODULES and m != name}
    return graph


GRAPH = _graph()


def _owner(module: str, packages: tuple[str, ...]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def _layer_of(module: str) -> tuple[int, str] | None:
    for index, layer in enumerate(LAYERS):
        owner = _owner(module, layer)
        if owner is not None:
            return index, owner
    return None


def test_every_module_of_the_bot_has_a_place_on_the_map() -> None:
    unplaced = [m for m in MODULES if m != "bot" and _layer_of(m) is None and not _owner(m, APART)]
    assert unplaced == []


def test_imports_only_go_down_the_layers() -> None:
    wrong = []
    for module, targets in GRAPH.items():
        here = _layer_of(module)
        if here is None:
            continue
        for target in targets:
            there = _layer_of(target)
            if there is None or there[1] == here[1]:
                continue
            if there[0] <= here[0]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_the_plugin_sdk_imports_nothing_of_the_bot_and_nothing_imports_it() -> None:
    wrong = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if bool(_owner(module, APART)) != bool(_owner(target, APART))
    ]
    assert wrong == []


def test_the_agent_parts_never_import_the_loop_that_uses_them() -> None:
    wrong = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if _owner(module, AGENT_PARTS)
        for target in targets
        if _owner(target, AGENT_LOOP)
    ]
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other_in_a_circle() -> None:
    # A package's __init__ that hands on its modules' names is not a circle with them.
    graph = {
        m: {t for t in targets if not (MODULES[t].name == "__init__.py" and m.startswith(t + "."))}
        for m, targets in GRAPH.items()
    }
    assert _cycles(graph) == []


@pytest.mark.parametrize(
    ("packages", "library"),
    [(DISCORD_FREE, "discord"), (SQL_FREE, "sqlalchemy")],
    ids=[
        "a-features-core-and-the-layers-below-never-import-discord",
        "no-sql-outside-storage-and-services",
    ],
)
def test_libraries_stay_in_their_layers(packages: tuple[str, ...], library: str) -> None:
    wrong = [
        f"{module} imports {library}"
        for module, path in MODULES.items()
        if _owner(module, packages) and not _owner(module, FEATURE_DISCORD_PARTS)
        for imported in _imports(path)
        if imported == library or imported.startswith(library + ".")
    ]
    assert wrong == []


def test_features_never_import_each_other() -> None:
    # Core or Discord part alike: a feature stands on the shared layers alone.
    wrong = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if (here := _owner(module, FEATURES))
        for target in targets
        if (there := _owner(target, FEATURES)) and there != here
    ]
    assert wrong == []


def test_the_shared_discord_layer_knows_no_feature() -> None:
    # Features hand it their commands, buttons, hooks and posts through DiscordBuilder.
    wrong = [
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if _owner(module, ("bot.discord_ui",))
        for target in targets
        if _owner(target, FEATURES) and not _owner(target, KNOWN_TO_THE_DISCORD_LAYER)
    ]
    assert wrong == []
