"""What a feature declares to the shared layers, beside its tools and prompt sections: the
cues that route to it, its environment settings, its per-server settings, its slash commands'
words and its tables. The composition root reads them from the feature list."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from bot.handlers.shapes import Cue
from bot.i18n import Text
from bot.servers.config import SettingsGroup
from bot.settings import SettingsSection

__all__ = ["Declarations"]


@dataclass(frozen=True)
class Declarations:
    """A feature's contributions to what every layer shares; each is optional."""

    # What sends a mention to a handler (the router reads them in the features' order).
    cues: tuple[Cue, ...] = ()
    # Its own environment settings (checked at start with the rest; settings.section(Model)).
    settings: type[SettingsSection] | None = None
    # Its per-server settings, shown in /otomo settings under their group's title.
    server_settings: SettingsGroup | None = None
    # Its slash commands' descriptions in both languages (Discord shows the Japanese).
    words: tuple[Text, ...] = ()
    # The module defining its tables (on the shared metadata: Alembic and the tests read them).
    tables: ModuleType | None = None
