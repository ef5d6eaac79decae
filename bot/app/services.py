"""The one dependencies object: every feature's services, built in dependency order."""

from __future__ import annotations

from dataclasses import dataclass

from bot.agent.llm.client import LLMClient, Payer
from bot.channels import ChannelVoices
from bot.chat import Tips, WordPool
from bot.knowledge import KnowledgeEditor, KnowledgeIndex
from bot.notes import Notebook
from bot.reminders.button_actions import ReminderButtons
from bot.reminders.consent import ConsentButtons, ReminderConsent
from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.recipients import Recipients
from bot.reminders.service import ReminderService
from bot.runtime.clock import Clock
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database
from bot.weather import WeatherService


@dataclass(frozen=True)
class Deps:
    """The long-lived services: passed to every tool call as `ctx.deps`, and to each feature's
    registration (each feature names the part it needs in a Protocol of its own)."""

    reminders: ReminderService
    # Where the reminder service announces new due times; each delivery engine listens.
    due_times: DueTimes
    reminder_buttons: ReminderButtons
    # Reminders for other members and channels: the member's answer, and the Discord lookups.
    reminder_consent: ConsentButtons
    reminder_recipients: Recipients
    weather: WeatherService
    word_pool: WordPool
    tips: Tips
    knowledge: KnowledgeIndex
    kb_editor: KnowledgeEditor
    notebook: Notebook
    # Each server's settings (persona, language, posts), the same object every layer reads.
    servers: ServerDirectory
    # Each channel's own persona and listening cool-down.
    channels: ChannelVoices


def build_deps(
    settings: Settings,
    clock: Clock,
    database: Database,
    llm: LLMClient,
    servers: ServerDirectory | None = None,
) -> Deps:
    """Create every feature's services, in dependency order (servers: the environment's
    settings for every server when not given)."""
    sessions = database.sessions
    servers = servers or ServerDirectory(sessions, clock, defaults_of(settings))
    due_times = DueTimes()
    reminder_service = ReminderService(sessions, clock, settings, on_change=due_times)
    word_pool = WordPool(sessions, clock, settings, health=database.health)
    word_pool.channels_per_server(lambda guild: servers.config(guild).word_pool_channels)

    async def complete(system: str, user: str, guild_id: int | None) -> str:
        # A server's tip counts against its budget and shows in its usage.
        return await llm.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            purpose="tips",
            payer=Payer(guild_id),
        )

    index = KnowledgeIndex.from_settings(settings, sessions, clock)
    return Deps(
        reminders=reminder_service,
        due_times=due_times,
        reminder_buttons=ReminderButtons(reminder_service, clock),
        reminder_consent=ConsentButtons(ReminderConsent(sessions, clock, on_change=due_times)),
        reminder_recipients=Recipients(),
        weather=WeatherService(settings, clock),
        word_pool=word_pool,
        tips=Tips(sessions, clock, settings, complete, word_pool),
        knowledge=index,
        kb_editor=KnowledgeEditor.from_settings(index, settings, sessions, clock),
        notebook=Notebook(sessions, clock, fresh_seconds=settings.server_settings_refresh_seconds),
        servers=servers,
        channels=ChannelVoices(
            sessions, clock, fresh_seconds=settings.server_settings_refresh_seconds
        ),
    )
