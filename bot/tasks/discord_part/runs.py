"""An unattended run over the agent: only the task's tools, its owner as the requester, a card
addressed to the owner for any call that needs a person (the run then waits, like a mention)."""

from __future__ import annotations

import discord

from bot.agent import events as ev
from bot.agent.loop import Agent
from bot.agent.runs import RunRequest
from bot.discord_ui.answering.conversation import Staff
from bot.handlers import router
from bot.tasks import words
from bot.tasks.ledger import RunClaim
from bot.tasks.runner import Answer, RunFailed, RunResult, Waiting


class AgentTaskRuns:
    """Runs a task's prompt as its owner would have asked it, with the task's tools only."""

    def __init__(self, agent: Agent, staff: Staff, client: discord.Client) -> None:
        self._agent = agent
        self._staff = staff
        self._client = client

    async def _channel_id(self, claim: RunClaim) -> int:
        task = claim.task
        if not task.to_dm:
            return task.channel_id
        user = await self._client.fetch_user(task.owner_id)
        return (await user.create_dm()).id

    async def execute(self, claim: RunClaim) -> RunResult:
        """The answer; Waiting once a card asks the owner; RunFailed when the model fails."""
        task = claim.task
        channel_id = await self._channel_id(claim)
        request = RunRequest(
            user_id=task.owner_id,
            user_name=task.owner_name,
            channel_id=channel_id,
            guild_id=task.guild_id,
            # Each run is a conversation of its own: yesterday's answer is not today's context.
            conversation_key=f"task:{task.id}:{claim.run_id}",
            handler=router.GENERAL,
            timezone=task.tz,
            language=task.language,
            only_tools=task.tools,
            # /otomo usage shows the scheduled runs' model calls apart.
            purpose="task",
            unattended=True,
        )
        renderer = self._staff.renderer(
            self._client.get_partial_messageable(channel_id),
            requester_id=task.owner_id,
            run=None,
            key=request.conversation_key,
            request=request,
        )
        waiting, failed = False, ""
        done: ev.Done | None = None
        # The stream is read to its end (Done or Failed come last), so the run closes itself.
        async for event in self._agent.run(request, task.prompt):
            if isinstance(event, ev.ApprovalRequired):
                # Nothing with side effects runs without a person: the owner's card.
                waiting = True
                await renderer.render(event)
            elif isinstance(event, ev.Failed):
                # Said in the task's language (the run's); the owner reads it if it pauses.
                failed = event.message or words.MODEL_UNREACHABLE(task.language)
            elif isinstance(event, ev.Done):
                done = event
        if failed:
            raise RunFailed(failed)
        if waiting or (done is not None and done.reason == "awaiting_approval"):
            return Waiting()
        if done is None or not done.text.strip():
            raise RunFailed(words.NO_ANSWER(task.language))
        return Answer(done.text)
