"""The doctor's model checks: the provider and key, one tiny request, then a prompt of the real
size timed to say which waits a model this fast needs."""

from __future__ import annotations

import asyncio
import time

from bot.app.doctor.checklist import FAIL, PASS, WARN, Checklist
from bot.settings import Settings


class ModelChecks:
    """The checks that ask the model (the slow prompt only once the tiny one answered)."""

    def __init__(self, settings: Settings, checklist: Checklist) -> None:
        self.settings = settings
        self.checklist = checklist

    async def check_model(self) -> None:
        """The model's provider and key, then one tiny request."""
        from bot.agent.llm.model_check import ModelProblem, ask_model, check_configuration

        model = self.settings.llm_model
        try:
            await asyncio.to_thread(check_configuration, self.settings)
            started = time.perf_counter()
            answered = await ask_model(self.settings)
        except ModelProblem as problem:
            self.checklist.say(FAIL, "Model", problem.sentence)
            return
        took = time.perf_counter() - started
        note = f" ({answered.note})" if answered.note else ""
        self.checklist.say(PASS, "Model", f"{model} answered a tiny request in {took:.1f} s{note}")
        await self.check_model_speed()

    async def check_model_speed(self) -> None:
        """A prompt of the real size, timed: the waits a model this fast needs."""
        from bot.agent.llm.model_check import problem_from_exception
        from bot.agent.llm.speed import MEASURE_LIMIT_SECONDS, measure

        settings = self.settings
        self.checklist.out.write(
            f"    (timing a prompt of the real size; a model on a CPU may take minutes, at most "
            f"{MEASURE_LIMIT_SECONDS / 60:.0f})\n"
        )
        self.checklist.out.flush()
        try:
            speed = await measure(settings)
        except Exception as exc:
            problem = problem_from_exception(exc, settings.llm_model, settings)
            self.checklist.say(
                FAIL, "Model speed", f"a prompt of the real size failed: {problem.sentence}"
            )
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
        self.checklist.say(mark, "Model speed", f"{said} in .env" if raise_these else said)
