"""Start-up loading: the garbage collector is off while litellm and janome load, on afterwards."""

from __future__ import annotations

import gc

from bot.agent import warmup
from bot.settings import Settings


async def test_loading_the_model_client_turns_the_collector_back_on() -> None:
    gc.disable()  # as `python -m bot run` does before it loads anything
    try:
        await warmup.prepare(Settings(LLM_MODEL="openai/test-model"))
        assert gc.isenabled()
    finally:
        gc.enable()


def test_settling_freezes_what_start_up_loaded_and_unsettling_gives_it_back() -> None:
    try:
        warmup.settle()
        assert gc.get_freeze_count() > 0
    finally:
        warmup.unsettle()
    assert gc.get_freeze_count() == 0
