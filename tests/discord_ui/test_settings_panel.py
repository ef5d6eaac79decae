"""The settings panel holds every setting although Discord lists 25 options per select."""

from __future__ import annotations

import bot.app.features  # noqa: F401  (the feature list registers the features' settings)
from bot.discord_ui.commands.server_settings import OPTIONS_PER_SELECT, select_pages
from bot.servers.config import SETTINGS


def test_every_setting_is_offered_once_in_selects_of_at_most_25() -> None:
    pages = select_pages(list(SETTINGS))

    assert len(SETTINGS) > OPTIONS_PER_SELECT
    assert [name for page in pages for name in page] == list(SETTINGS)
    assert all(len(page) <= OPTIONS_PER_SELECT for page in pages)
    # A group is never split when it fits whole on the next select.
    groups_per_page = [{SETTINGS[n].group for n in page} for page in pages]
    assert not set.intersection(*groups_per_page)


def test_a_few_settings_fit_one_select() -> None:
    assert select_pages(["persona", "language"]) == [["persona", "language"]]
