"""Persistent buttons (DynamicItem): they keep working after a restart because the custom_id
carries everything needed (`apv:<approval id>:<action>`, `stop:<run id>`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, Self, cast

import discord

from bot.discord_ui.cards import wording
from bot.discord_ui.failures import failures_told
from bot.i18n import Language, Text
from bot.storage.outage import DatabaseHealth

# Each action's label (said in the language of the card's member) and colour.
APPROVAL_ACTIONS: dict[str, tuple[Text, discord.ButtonStyle]] = {
    "approve": (wording.APPROVE, discord.ButtonStyle.success),
    "reject": (wording.REJECT, discord.ButtonStyle.danger),
    "always": (wording.ALWAYS, discord.ButtonStyle.secondary),
    "edit": (wording.EDIT, discord.ButtonStyle.primary),
    "all": (wording.APPROVE_ALL, discord.ButtonStyle.success),
    "none": (wording.REJECT_ALL, discord.ButtonStyle.danger),
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

    async def on_edit_submitted(
        self, interaction: discord.Interaction[Any], approval_id: int, values: dict[str, str]
    ) -> None:
        """The edit form was submitted: field id → text."""


class StopClicks(Protocol):
    """Where the Stop button sends its clicks."""

    async def on_click(self, interaction: discord.Interaction[Any], run_id: str) -> None:
        """Stop was clicked."""


class ButtonTargets(Protocol):
    """What the client that received a click offers the buttons (and nothing more)."""

    approval_clicks: ApprovalClicks
    stop_clicks: StopClicks
    # What each feature's buttons reach, by the name the feature registered it under.
    feature_clicks: Mapping[str, object]
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
    ACTIONS: ClassVar[dict[str, tuple[Text, discord.ButtonStyle]]]

    def __init__(self, item_id: int, action: str, language: Language = "ja") -> None:
        # The custom_id holds no language: a button rebuilt after a restart only routes the
        # click, and the message keeps the label it was drawn with.
        words, style = self.ACTIONS[action]
        super().__init__(
            discord.ui.Button(
                label=words(language),
                style=style,
                custom_id=f"{self.PREFIX}:{item_id}:{action}",
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
    IdActionButton,
    template=r"apv:(?P<id>[0-9]{1,18}):(?P<action>approve|reject|always|edit|all|none)",
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

    def __init__(self, run_id: str, language: Language = "ja") -> None:
        super().__init__(
            discord.ui.Button(
                label=wording.STOP(language),
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


class RejectReasonModal(discord.ui.Modal):
    """Optional reason for a rejection; the model sees it next turn."""

    def __init__(self, approval_id: int, language: Language = "ja") -> None:
        super().__init__(
            title=wording.REJECT_TITLE(language),
            custom_id=f"apvr:{approval_id}",
            timeout=600,
        )
        self.approval_id = approval_id
        self.reason: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=wording.REJECT_REASON(language),
            style=discord.TextStyle.paragraph,
            required=False,
            max_length=500,
        )
        self.add_item(self.reason)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Record the rejection with its reason."""
        targets = button_targets(interaction)
        async with failures_told(interaction, targets.database_health):
            await targets.approval_clicks.on_reject_submitted(
                interaction, self.approval_id, str(self.reason.value or "")
            )


class EditModal(discord.ui.Modal):
    """The call's arguments, one text input each (Discord allows five): submitting runs the
    call as edited, once it is checked."""

    def __init__(
        self, approval_id: int, title: str, fields: list[tuple[str, str, str, bool]]
    ) -> None:
        super().__init__(title=title[:45], custom_id=f"apve:{approval_id}", timeout=600)
        self.approval_id = approval_id
        self.inputs: list[discord.ui.TextInput[Any]] = []
        for field_id, label, value, long in fields[:5]:
            text_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
                label=label[:45],
                custom_id=field_id,
                default=value[:4000] or None,
                required=False,
                max_length=4000,
                style=discord.TextStyle.paragraph if long else discord.TextStyle.short,
            )
            self.inputs.append(text_input)
            self.add_item(text_input)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Hand the edited values to the approval desk."""
        targets = button_targets(interaction)
        values = {str(item.custom_id): str(item.value or "") for item in self.inputs}
        async with failures_told(interaction, targets.database_health):
            await targets.approval_clicks.on_edit_submitted(interaction, self.approval_id, values)


def approval_view(
    approval_id: int,
    *,
    language: Language = "ja",
    editable: bool = False,
    batch: bool = False,
) -> discord.ui.View:
    """The buttons under a card that waits for approval (Reject is how to stop it); Edit when
    the call has arguments, Approve all / Reject all on the card that lists a batch."""
    view = discord.ui.View(timeout=None)
    actions = ["approve", "reject", "always"]
    if editable:
        actions.append("edit")
    if batch:
        actions += ["all", "none"]
    for action in actions:
        view.add_item(ApprovalButton(approval_id, action, language))
    return view


def stop_view(run_id: str, language: Language = "ja") -> discord.ui.View:
    """A lone Stop button under a streaming answer, in its member's language."""
    view = discord.ui.View(timeout=None)
    view.add_item(StopButton(run_id, language))
    return view
