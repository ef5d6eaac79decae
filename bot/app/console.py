"""Console mode: the same router, agent and approvals in a terminal, without Discord."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable
from typing import TextIO

from bot.agent import events as ev
from bot.agent.approvals.service import ApprovalService, Decision
from bot.agent.loop import Agent, RunRequest
from bot.app.features import route
from bot.i18n import answers
from bot.reminders.delivery.scope import CONSOLE_CHANNEL_ID
from bot.runtime.redaction import redact
from bot.runtime.worker import in_worker

CONSOLE_USER_ID = 1
PROMPT = "you> "

CHOICES = "a (approve), r (reject) or always (approve now and from now on)"
_ANSWERS = {
    "a": Decision.APPROVE,
    "approve": Decision.APPROVE,
    "y": Decision.APPROVE,
    "r": Decision.REJECT,
    "reject": Decision.REJECT,
    "n": Decision.REJECT,
    "always": Decision.ALWAYS,
    "al": Decision.ALWAYS,
}


class Console:
    """Reads lines, answers them with the agent, asks for approvals on the terminal."""

    def __init__(
        self,
        agent: Agent,
        approvals: ApprovalService,
        *,
        user_name: str = "you",
        stdin: TextIO = sys.stdin,
        stdout: TextIO = sys.stdout,
    ) -> None:
        self.agent = agent
        self.approvals = approvals
        self.user_name = user_name
        self.stdin = stdin
        self.stdout = stdout
        self._at_prompt = False

    async def _readline(self) -> str | None:
        line = await asyncio.get_running_loop().run_in_executor(None, self.stdin.readline)
        return None if line == "" else line.rstrip("\n")

    def announce(self, text: str) -> None:
        """Print something that happened meanwhile (a due reminder), keeping the prompt."""
        self._write(f"\n{text}{PROMPT}" if self._at_prompt else f"\n{text}")

    def _write(self, text: str) -> None:
        self.stdout.write(redact(text))
        self.stdout.flush()

    async def run(self) -> None:
        """Serve lines until end of input or `/quit`."""
        self._write("Otomo console — type a message, /quit to leave.\n")
        while True:
            self._write(PROMPT)
            self._at_prompt = True
            line = await self._readline()
            self._at_prompt = False
            if line is None or line.strip() in {"/quit", "/exit"}:
                self._write("\nbye\n")
                return
            if line.strip():
                await self.answer(line.strip())

    async def answer(self, text: str) -> None:
        """Run the agent on one line and print its events."""
        chosen = await in_worker(route, text)
        request = RunRequest.for_message(
            user_id=CONSOLE_USER_ID,
            user_name=self.user_name,
            channel_id=CONSOLE_CHANNEL_ID,
            guild_id=None,
            handler=chosen.name,
            timezone=self.agent.settings.timezone,
        )
        self._write(f"[{chosen.name}] otomo> ")
        events = self.agent.run(request, text)
        while True:
            decided: int | None = None
            async for event in events:
                decided = await self._render(event) or decided
            if decided is None:
                return
            # The decision is stored; the conversation goes on from the history, as on Discord.
            events = self.agent.resume(decided)

    async def _render(self, event: ev.AgentEvent) -> int | None:
        """Print one event; return the approval id when the person just decided one."""
        match event:
            case ev.TextDelta(text=text):
                self._write(text)
            case ev.ToolCallStarted(name=name):
                self._write(f"\n  🔧 {name} …\n")
            case ev.ApprovalRequired():
                arguments = json.dumps(event.arguments, ensure_ascii=False)
                provider = f" (provided by {event.source})" if event.source else ""
                self._write(f"  🔐 {event.name}{provider} {arguments}\n")
                if event.because:
                    self._write(f"  ⚠️ {answers.asked_after(event.because, 'en')}\n")
                decision = await self._ask()
                reason = None
                if decision == Decision.REJECT:
                    self._write("  reason (optional)> ")
                    reason = (await self._readline() or "").strip() or None
                await self.approvals.decide(event.approval_id, CONSOLE_USER_ID, decision, reason)
                return event.approval_id
            case ev.ToolExecuting(name=name):
                self._write(f"  ⚙️ running {name}\n")
            case ev.ToolResult(name=name, output=output, is_error=is_error):
                mark = "⚠️" if is_error else "✅"
                shown = json.dumps(output, ensure_ascii=False, default=str)
                self._write(f"  {mark} {name}: {shown[:300]}\n")
            case ev.ToolRejected(name=name, reason=reason, detail=detail):
                why = f" — {detail}" if detail else ""
                self._write(f"  ❌ {name}: {reason}{why}\n")
            case ev.RoundEnd():
                self._write("\n")
            case ev.Notice(text=text):
                self._write(f"  ({text})\n")
            case ev.Done():
                pass
            case ev.Failed(message=message):
                self._write(f"\n  ⚠️ {message}\n")
        return None

    async def _ask(self) -> Decision:
        while True:
            self._write("  approve / reject / always? [a/r/always] ")
            line = await self._readline()
            if line is None:
                return Decision.REJECT
            decision = _ANSWERS.get(line.strip().lower())
            if decision is not None:
                return decision
            self._write(f"  {line.strip()!r} is not an answer: type {CHOICES}.\n")


class ConsoleLog(logging.Handler):
    """Log records in the terminal without breaking the prompt: printed through the console
    (which puts the prompt back) once it runs, on stderr before that."""

    def __init__(self) -> None:
        super().__init__()
        self._announce: Callable[[str], None] | None = None

    def attach(self, announce: Callable[[str], None]) -> None:
        """From now on, print through announce (Console.announce)."""
        self._announce = announce

    def emit(self, record: logging.LogRecord) -> None:
        """Print one formatted record."""
        try:
            line = self.format(record)
            if self._announce is None:
                sys.stderr.write(line + "\n")
            else:
                self._announce(f"[{record.levelname.lower()}] {line}\n")
        except Exception:
            self.handleError(record)
