"""The Stop button: ends a live run; its partial answer is kept and its cards finish."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.answering.live import LiveRuns
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import answers, language_of_locale
from bot.members.permissions import Permissions


class StopControl:
    """Stops a live run of this process: only its requester or an approver may."""

    def __init__(self, runs: LiveRuns, permissions: Permissions) -> None:
        self.runs = runs
        self.permissions = permissions

    async def on_click(self, interaction: discord.Interaction[Any], run_id: str) -> None:
        """Set the run's stop event, or say privately why not."""
        run = self.runs.get(run_id)
        language = language_of_locale(interaction.locale)
        if run is None:
            await interaction.response.send_message(answers.RUN_FINISHED(language), ephemeral=True)
            return
        if not self.permissions.may_decide(actor_of_interaction(interaction), run.user_id):
            await interaction.response.send_message(
                answers.STOP_NOT_YOURS(language), ephemeral=True
            )
            return
        run.stop.request("member")
        await interaction.response.send_message(answers.STOPPING(language), ephemeral=True)
