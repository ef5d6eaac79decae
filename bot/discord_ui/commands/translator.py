"""Discord's per-locale slash-command texts from the message catalog (discord.py's Translator).

Commands declare their English; Discord shows members whose Discord is in Japanese the catalog's
Japanese for descriptions, option descriptions and choices. Slash-command names are not
translated (the help and the docs name each command one way); a message command's name, the
only text of it a member reads in the Apps menu, is.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n.commands import JAPANESE

Location = app_commands.TranslationContextLocation

# Where Discord shows a text the member reads rather than types.
_TRANSLATED = frozenset(
    {
        Location.command_description,
        Location.group_description,
        Location.parameter_description,
        Location.choice_name,
    }
)


class CatalogTranslator(app_commands.Translator):
    """Japanese for the descriptions, choices and message-command names the catalog knows;
    nothing for other locales (Discord then shows the English)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """The Japanese of a description or choice, for the Japanese locale only."""
        if locale != discord.Locale.japanese:
            return None
        menu_name = context.location is Location.command_name and isinstance(
            context.data, app_commands.ContextMenu
        )
        if context.location not in _TRANSLATED and not menu_name:
            return None
        return JAPANESE.get(string.message)
