"""Persistent buttons (DynamicItem): they keep working after a restart because the custom_id
carries everything needed (`apv:<approval id>:<action>`, `stop:<run id>`)."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Protocol, Self, cast

import discord

from bot.discord_ui.failures import failures_told
from bot.storage.outage import DatabaseHealth

APPROVAL_ACTIONS = {
    "approve": ("承認 / Approve", discord.ButtonStyle.success),
    "reject": ("却下 / Reject", discord.ButtonStyle.danger),
    "always": ("常に許可 / Always allow", discord.ButtonStyle.secondary),
}


class ApprovalClicks(Protocol):
    """Where approval buttons and the reject form send their clicks."""

    async def on_click(
        self, interaction: discord.Interaction[Any], approval_id: int, action: str
    ) -> None:
        """Approve / Reject / Always allow was clicked."""

    async def on_reject_submitted(
        self, interaction: discord.Interaction[Any], approval_id: int, reason: str
    ) -> None:
        """The reject form was submitted."""


class StopClicks(Protocol):
    """Where the Stop button sends its clicks."""

    async def on_click(self, interaction: discord.Interaction[Any], run_id: str) -> None:
        """Stop was clicked."""


class ReminderClicks(Protocol):
    """Where the buttons under a delivered reminder send their clicks."""

    async def on_click(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Snooze / Done was clicked."""


class ButtonTargets(Protocol):
    """What the client that received a click offers the buttons (and nothing more)."""

    approval_clicks: ApprovalClicks
    stop_clicks: StopClicks
    # None when the bot runs without the reminders feature.
    reminder_actions: ReminderClicks | None
    # Whether the database answers: a click that fails while it is away gets that sentence.
    database_health: DatabaseHealth


def button_targets(interaction: discord.Interaction[Any]) -> ButtonTargets:
    """The handlers of the client that received this click."""
    # discord.py hands the click to the client that received it: with two bots in one
    # process, each button reaches its own bot's handlers.
    return cast(ButtonTargets, interaction.client)


class IdActionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    # Never matches: only the subclasses below are registered with their own templates.
    template=r"(?!)",
):
    """A persistent button whose custom_id is `<prefix>:<id>:<action>`."""

    PREFIX: ClassVar[str]
    ACTIONS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]]

    def __init__(self, item_id: int, action: str) -> None:
        label, style = self.ACTIONS[action]
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=f"{self.PREFIX}:{item_id}:{action}"
            )
        )
        self.item_id = item_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild the button from its custom_id (also after a restart)."""
        return cls(int(match["id"]), match["action"])


class ApprovalButton(
    IdActionButton, template=r"apv:(?P<id>[0-9]{1,18}):(?P<action>approve|reject|always)"
):
    """Approve / Reject / Always allow under a tool card."""

    PREFIX = "apv"
    ACTIONS = APPROVAL_ACTIONS

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the click to the approval desk, which checks who clicked and decides."""
        targets = button_targets(interaction)
        async with failures_told(interaction, targets.database_health):
            await targets.approval_clicks.on_click(interaction, self.item_id, self.action)


class StopButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"stop:(?P<run>[0-9a-f]{6,32})"
):
    """Stops a running answer; partial output is kept."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="停止 / Stop",
                style=discord.ButtonStyle.secondary,
                emoji="⏹️",
                custom_id=f"stop:{run_id}",
            )
        )
        self.run_id = run_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild the button from its custom_id."""
        return cls(match["run"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Ask for the run to stop."""
        targets = button_targets(interaction)
        async with failures_told(interaction, targets.database_health):
            await targets.stop_clicks.on_click(interaction, self.run_id)


class RejectReasonModal(discord.ui.Modal, title="却下の理由 / Why reject?"):
    """Optional reason for a rejection; the model sees it next turn."""

    reason: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="理由（任意） / Reason (optional)",
        style=discord.TextStyle.paragraph,
        required=False,
        max_length=500,
    )

    def __init__(self, approval_id: int) -> None:
        super().__init__(custom_id=f"apvr:{approval_id}", timeout=600)
        self.approval_id = approval_id

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Record the rejection with its reason."""
        targets = button_targets(interaction)
        async with failures_told(interaction, targets.database_health):
            await targets.approval_clicks.on_reject_submitted(
                interaction, self.approval_id, str(self.reason.value or "")
            )


def approval_view(approval_id: int) -> discord.ui.View:
    """The buttons under a card that waits for approval (Reject is how to stop it)."""
    view = discord.ui.View(timeout=None)
    for action in APPROVAL_ACTIONS:
        view.add_item(ApprovalButton(approval_id, action))
    return view


def stop_view(run_id: str) -> discord.ui.View:
    """A lone Stop button under a streaming answer."""
    view = discord.ui.View(timeout=None)
    view.add_item(StopButton(run_id))
    return view
