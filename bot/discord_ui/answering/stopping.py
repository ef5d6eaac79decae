"""The Stop button: ends a live run; its partial answer is kept and its cards finish."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.answering.gate import is_approver
from bot.discord_ui.answering.live import LiveRuns
from bot.settings import Settings


class StopControl:
    """Stops a live run of this process: only its requester or an approver may."""

    def __init__(self, runs: LiveRuns, settings: Settings) -> None:
        self.runs = runs
        self.settings = settings

    async def on_click(self, interaction: discord.Interaction[Any], run_id: str) -> None:
        """Set the run's stop event, or say privately why not."""
        run = self.runs.get(run_id)
        if run is None:
            await interaction.response.send_message(
                "もう終わっています。/ That answer has already finished.", ephemeral=True
            )
            return
        if interaction.user.id != run.user_id and not is_approver(interaction.user, self.settings):
            await interaction.response.send_message(
                "止められるのは質問した本人か承認者だけです。/ Only the person who asked (or an "
                "approver) can stop this.",
                ephemeral=True,
            )
            return
        run.stop.request("member")
        await interaction.response.send_message("⏹️ 停止します / Stopping.", ephemeral=True)
