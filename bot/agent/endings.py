"""What a run that ends early leaves behind: the notice for the member, the note for the model.

A run ends early when it is stopped (by the member or a shutdown), when its answer is cut off
(at LLM_MAX_TOKENS or LLM_ROUND_SECONDS), or after AGENT_MAX_STEPS model rounds. The member
reads a sentence; the model reads, next turn, a note in history saying what happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.agent import events as ev
from bot.agent import planning
from bot.agent.conversation import messages as m
from bot.agent.llm.client import TIME_LIMIT, Turn
from bot.agent.runs import RunState, StopReason, stop_reason
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


def cut(turn: Turn, settings: Settings) -> Ending:
    """An answer cut off at the length limit or at the end of its round."""
    if turn.finish_reason == TIME_LIMIT:
        seconds = f"{settings.llm_round_seconds:g}"
        said = (
            f"✂️ 答えに{seconds}秒以上かかったので、ここで切りました。もう少し具体的に聞き直して"
            f"ください。/ This answer took over {seconds} s, so I cut it off here: ask again, "
            "more specifically."
        )
        why = f"it took longer than LLM_ROUND_SECONDS ({seconds} s)"
    else:
        said = (
            "✂️ 答えが長すぎて、ここで切れています。続きが必要なら「続けて」と言ってください。"
            "/ This answer hit the length limit and is cut off here: say “continue” for the "
            "rest, or ask for a shorter answer."
        )
        why = f"it reached the length limit (LLM_MAX_TOKENS, {settings.llm_max_tokens})"
    return Ending(said, m.NoticeMessage(text=f"The previous answer was cut off because {why}."))


def out_of_steps(steps: int) -> Ending:
    """A run that reached AGENT_MAX_STEPS without a final answer (both read the same)."""
    counted = "1 step" if steps == 1 else f"{steps} steps"
    text = (
        f"I stopped after {counted} without a final answer. "
        "Ask again more specifically, or split the request."
    )
    return Ending(text, m.NoticeMessage(text=text))


def rounds_of_turn(history: list[m.Message]) -> int:
    """Model rounds since the member's last message (the planning marker is not theirs):
    AGENT_MAX_STEPS counts a turn's rounds, however many resumes it took."""
    rounds = 0
    for message in reversed(history):
        if isinstance(message, m.UserMessage) and message.text != planning.CONTINUE:
            break
        rounds += isinstance(message, m.AssistantMessage)
    return rounds
