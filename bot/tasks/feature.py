"""The tasks feature (core): its tools wherever a schedule may be asked for, and how to use them."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.agent.tools import ToolRegistry
from bot.handlers import router
from bot.handlers.builder import AppBuilder, Section
from bot.handlers.declarations import Declarations
from bot.tasks import table, words
from bot.tasks.cues import TASK_CUES
from bot.tasks.server_settings import SERVER_SETTINGS
from bot.tasks.settings import TaskSettings
from bot.tasks.tools import TASK_TOOLS

# The router sends work the model does on a schedule to the general handler (its "work on a
# schedule" cue); the reminder and weather prompts stay lean without the task tools.
OFFERED_IN = (router.GENERAL,)
TASK_TOOL_NAMES = frozenset(t.name for t in TASK_TOOLS)


def task_section(registry: ToolRegistry) -> Section:
    """When to schedule a task rather than a reminder, and the tools a task may name."""

    async def section(prompt: PromptInput) -> str:
        usable = sorted(
            name
            for name in registry.names()
            if (found := registry.get(name)) is not None
            and found.read_only
            and name not in TASK_TOOL_NAMES
        )
        return (
            "Scheduled tasks: when a member asks for something to be done on a schedule that "
            "needs you each time (a summary, today's forecast, a list of events or reminders), "
            "call create_task, not create_reminder: a reminder only repeats fixed text. Name in "
            "`tools` the tools each run needs, from: " + ", ".join(usable) + ". Runs happen "
            "unattended, so only read-only tools run by themselves; anything else waits for "
            "the owner's approval. destination: here, dm (when they say DM me) or the channel "
            "they name (<#id>)."
        )

    return section


def register(app: AppBuilder, deps: object) -> None:
    """Offer the task tools and say when to use them."""
    app.add_tools(TASK_TOOLS, offered_in=OFFERED_IN)
    app.add_section(task_section(app.registry), handlers=OFFERED_IN)


# What the feature brings to the shared layers: the cue routing scheduled work to the general
# handler, TASK_* settings, the per-server settings, /otomo tasks' words, the tasks tables.
DECLARES = Declarations(
    cues=TASK_CUES,
    settings=TaskSettings,
    server_settings=SERVER_SETTINGS,
    words=words.COMMAND_WORDS,
    tables=table,
)
