"""/otomo tasks: this server's tasks (or your own in DMs) with next run, last outcome and owner,
and Pause / Resume / Run now / Delete / History for the one chosen."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from datetime import timedelta
from typing import Any

import discord

from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import Language, language_of_locale, moment
from bot.members.permissions import Permissions
from bot.schedule.times import ENGLISH_UNITS, JAPANESE_UNITS, duration_text
from bot.tasks import words
from bot.tasks.runner import TaskRunner
from bot.tasks.service import RunView, TaskService, TaskView
from bot.tasks.table import RunStatus, TaskState

PANEL_SECONDS = 600
MAX_LISTED = 25


def outcome_text(run: RunView, language: Language) -> str:
    """One run in members' words: on time, late by N, skipped because…, failed because…."""
    units = JAPANESE_UNITS if language == "ja" else ENGLISH_UNITS
    if run.status == RunStatus.ON_TIME:
        return words.ON_TIME(language)
    if run.status == RunStatus.LATE:
        late = duration_text(timedelta(seconds=run.late_seconds or 0), units)
        return words.LATE_BY(language, late=late)
    if run.status == RunStatus.SKIPPED:
        return words.SKIPPED_FOR(language, reason=run.reason or "?")
    if run.status == RunStatus.FAILED:
        return words.FAILED_FOR(language, reason=run.reason or "?")
    if run.status == RunStatus.WAITING:
        return words.WAITING(language)
    return words.RUNNING(language)


def _next(task: TaskView, language: Language) -> str:
    if task.state == TaskState.PAUSED:
        return words.PAUSED(language)
    if task.state == TaskState.FINISHED:
        return words.FINISHED(language)
    return moment(task.next_run_at, "f")


async def listing(
    service: TaskService, tasks: list[TaskView], guild_id: int | None, language: Language
) -> str:
    """The tasks, one short entry each."""
    if not tasks:
        return words.NO_TASKS(language)
    lines = []
    for task in tasks[:MAX_LISTED]:
        last = await service.history(task.id, guild_id, 1)
        lines.append(
            words.TASK_LINE(
                language,
                id=task.id,
                prompt=task.prompt[:80],
                next=_next(task, language),
                last=outcome_text(last[0], language) if last else words.NEVER_RAN(language),
                owner=f"<@{task.owner_id}>",
                where=words.IN_DMS(language) if task.to_dm else f"<#{task.channel_id}>",
            )
        )
    return "\n".join(lines)


class TaskPanel(discord.ui.View):
    """A task chosen from the list, and what may be done to it (owner or server admin)."""

    def __init__(
        self,
        service: TaskService,
        runner: TaskRunner,
        permissions: Permissions,
        tasks: list[TaskView],
        guild_id: int | None,
        user_id: int,
        language: Language,
    ) -> None:
        super().__init__(timeout=PANEL_SECONDS)
        self.service = service
        self.runner = runner
        self.permissions = permissions
        self.guild_id = guild_id
        self.user_id = user_id
        self.language = language
        self.chosen: int | None = None
        self.tasks = {task.id: task for task in tasks[:MAX_LISTED]}
        select: discord.ui.Select[TaskPanel] = discord.ui.Select(
            placeholder=words.CHOOSE_TASK(language),
            options=[
                discord.SelectOption(label=f"#{t.id} {t.prompt[:90]}", value=str(t.id))
                for t in self.tasks.values()
            ],
        )
        select.callback = self._choose  # type: ignore[method-assign]
        self.select = select
        self.add_item(select)
        for label, action, style in (
            (words.PAUSE, self._pause, discord.ButtonStyle.secondary),
            (words.RESUME, self._resume, discord.ButtonStyle.secondary),
            (words.RUN_NOW, self._run_now, discord.ButtonStyle.primary),
            (words.DELETE, self._delete, discord.ButtonStyle.danger),
            (words.HISTORY, self._history, discord.ButtonStyle.secondary),
        ):
            button: discord.ui.Button[TaskPanel] = discord.ui.Button(
                label=label(language), style=style
            )
            button.callback = self._guarded(action)  # type: ignore[method-assign,assignment]
            self.add_item(button)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who opened the panel uses it."""
        return interaction.user.id == self.user_id

    async def _choose(self, interaction: discord.Interaction[Any]) -> None:
        self.chosen = int(self.select.values[0])
        await interaction.response.defer()

    def _guarded(
        self, action: Callable[[discord.Interaction[Any], TaskView], Awaitable[str]]
    ) -> Callable[[discord.Interaction[Any]], Coroutine[Any, Any, None]]:
        async def run(interaction: discord.Interaction[Any]) -> None:
            task = self.tasks.get(self.chosen) if self.chosen is not None else None
            if task is None:
                await say(interaction, words.PICK_FIRST(self.language))
                return
            may = task.owner_id == interaction.user.id or self.permissions.is_server_admin(
                actor_of_interaction(interaction)
            )
            if not may:
                await say(interaction, words.NOT_YOURS(self.language))
                return
            await interaction.response.defer(ephemeral=True, thinking=True)
            await say(interaction, await action(interaction, task))

        return run

    async def _pause(self, interaction: discord.Interaction[Any], task: TaskView) -> str:
        await self.service.pause(task.id, self.guild_id)
        return words.DONE_PAUSED(self.language, id=task.id)

    async def _resume(self, interaction: discord.Interaction[Any], task: TaskView) -> str:
        current = await self.service.get(task.id, self.guild_id)
        if current is None or current.state != TaskState.PAUSED:
            return words.NOT_PAUSED(self.language, id=task.id)
        resumed = await self.service.resume(task.id, self.guild_id)
        return words.DONE_RESUMED(self.language, id=task.id, next=moment(resumed.next_run_at, "f"))

    async def _run_now(self, interaction: discord.Interaction[Any], task: TaskView) -> str:
        current = await self.service.get(task.id, self.guild_id) or task
        status = await self.runner.run_now(current)
        history = await self.service.history(task.id, self.guild_id, 1)
        outcome = outcome_text(history[0], self.language) if history else status
        return words.DONE_RAN(self.language, id=task.id, outcome=outcome)

    async def _delete(self, interaction: discord.Interaction[Any], task: TaskView) -> str:
        await self.service.delete(task.id, self.guild_id)
        self.tasks.pop(task.id, None)
        return words.DONE_DELETED(self.language, id=task.id)

    async def _history(self, interaction: discord.Interaction[Any], task: TaskView) -> str:
        runs = await self.service.history(task.id, self.guild_id, 10)
        if not runs:
            return words.NO_HISTORY(self.language)
        return "\n".join(
            f"{moment(run.due_at, 'f')} — {outcome_text(run, self.language)}" for run in runs
        )


async def show_tasks(
    interaction: discord.Interaction[Any],
    service: TaskService,
    runner: TaskRunner,
    permissions: Permissions,
) -> None:
    """Answer /otomo tasks privately: the list, and the panel when there are tasks."""
    language = language_of_locale(interaction.locale)
    guild_id = interaction.guild_id
    owner = interaction.user.id if guild_id is None else None
    tasks = await service.of(guild_id, owner)
    text = await listing(service, tasks, guild_id, language)
    if not tasks:
        await say(interaction, text)
        return
    panel = TaskPanel(service, runner, permissions, tasks, guild_id, interaction.user.id, language)
    await interaction.response.send_message(
        text[:2000], view=panel, ephemeral=True, allowed_mentions=NO_MENTIONS
    )
