"""What a run that ends early leaves behind: the notice for the member, the note for the model.

A run ends early when it is stopped (by the member or a shutdown), when its answer is cut off
(at LLM_MAX_TOKENS or LLM_ROUND_SECONDS), or after AGENT_MAX_STEPS model rounds. The member
reads a sentence; the model reads, next turn, a note in history saying what happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.agent import events as ev
from bot.agent.conversation import messages as m
from bot.agent.llm.client import TIME_LIMIT, Turn
from bot.agent.runs import CONTINUE, RunState, StopReason, stop_reason
from bot.i18n import Language, answers
from bot.settings import Settings

# What the model reads after an answer that was stopped, by who stopped it.
_STOPPED: dict[StopReason, str] = {
    "member": "The user stopped this answer before it finished.",
    "shutdown": "The bot restarted before this answer finished; the user may ask again.",
}


@dataclass(frozen=True)
class Ending:
    """The member's sentence and the model's note."""

    said: str
    note: m.NoticeMessage


def stopped(state: RunState) -> tuple[ev.DoneReason, m.NoticeMessage]:
    """How a stopped run ends (not an error either way) and what the model is told."""
    why = stop_reason(state.stop)
    reason: ev.DoneReason = "shutdown" if why == "shutdown" else "interrupted"
    return reason, m.NoticeMessage(text=_STOPPED[why])


def cut(turn: Turn, settings: Settings, language: Language) -> Ending:
    """An answer cut off at the length limit or at the end of its round."""
    if turn.finish_reason == TIME_LIMIT:
        seconds = f"{settings.llm_round_seconds:g}"
        said = answers.CUT_BY_TIME(language, seconds=seconds)
        why = f"it took longer than LLM_ROUND_SECONDS ({seconds} s)"
    else:
        said = answers.CUT_BY_LENGTH(language)
        why = f"it reached the length limit (LLM_MAX_TOKENS, {settings.llm_max_tokens})"
    return Ending(said, m.NoticeMessage(text=f"The previous answer was cut off because {why}."))


def out_of_steps(steps: int, language: Language) -> Ending:
    """A run that reached AGENT_MAX_STEPS without a final answer (the model reads English)."""
    said = answers.OUT_OF_ONE_STEP if steps == 1 else answers.OUT_OF_STEPS
    return Ending(said(language, steps=steps), m.NoticeMessage(text=said("en", steps=steps)))


def rounds_of_turn(history: list[m.Message]) -> int:
    """Model rounds since the member's last message (the planning marker is not theirs):
    AGENT_MAX_STEPS counts a turn's rounds, however many resumes it took."""
    rounds = 0
    for message in reversed(history):
        if isinstance(message, m.UserMessage) and message.text != CONTINUE:
            break
        rounds += isinstance(message, m.AssistantMessage)
    return rounds
