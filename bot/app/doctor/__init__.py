"""`python -m bot doctor`: every start-up check, as a checklist that says what to fix.

It changes nothing: it does not migrate the database, create files or sync commands. It logs
in to Discord's REST API (no gateway connection) and sends the model one tiny request, then one
of the real size. The checks live by what they ask: Discord (`discord_checks.py`), this machine
and the database (`local_checks.py`), the model (`model_checks.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TextIO

from bot.app.doctor.checklist import FAIL, PASS, TITLE_WIDTH, WARN, Checklist
from bot.app.doctor.discord_checks import DiscordChecks
from bot.app.doctor.local_checks import LocalChecks
from bot.app.doctor.model_checks import ModelChecks
from bot.settings import Settings

__all__ = ["Doctor", "run_doctor", "settings_problems"]


class Doctor:
    """Runs the checks in order and prints each line as soon as it is known."""

    def __init__(self, settings: Settings, out: TextIO, handler_names: frozenset[str]) -> None:
        self.out = out
        self.checklist = Checklist(out)
        discord = DiscordChecks(settings, self.checklist)
        local = LocalChecks(settings, self.checklist, handler_names)
        model = ModelChecks(settings, self.checklist)
        self.checks: list[Callable[[], Awaitable[None]]] = [
            discord.check_discord,
            discord.check_intents,
            discord.check_invite,
            local.check_database,
            discord.check_commands,
            local.check_knowledge_base,
            local.check_mcp,
            local.check_ports,
            model.check_model,
        ]

    async def run(self) -> int:
        """Every check; 0 when none failed, 1 otherwise."""
        say = self.checklist.say
        self.out.write("Otomo doctor: checking the settings in .env and the environment\n\n")
        say(PASS, "Settings", "every setting is valid")
        for check in self.checks:
            try:
                await check()
            except Exception as exc:
                say(FAIL, check.__name__.removeprefix("check_"), f"the check failed: {exc}")
        self.out.write("\n")
        failures = self.checklist.count(FAIL)
        if failures:
            self.out.write(
                f"{failures} problem{'s' if failures > 1 else ''}: fix the lines marked {FAIL} "
                "and run `make doctor` again.\n"
            )
            return 1
        warnings = self.checklist.count(WARN)
        note = f" ({warnings} note{'s' if warnings > 1 else ''} marked {WARN})" if warnings else ""
        self.out.write(f"Everything Otomo needs is in place{note}: `make run` starts it.\n")
        return 0


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
