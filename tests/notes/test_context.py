"""Notes matching a mention are put in the prompt beside the knowledge-base excerpts."""

from __future__ import annotations

from bot.members.permissions import Person
from bot.notes import Notebook
from bot.notes.feature import notes_context
from tests.notes.conftest import CHANNEL, GUILD, OTHER_GUILD, TOKYO

taro = Person(2, "taro")


async def test_a_matching_note_comes_with_its_author_date_and_citation(
    notebook: Notebook,
) -> None:
    note = await notebook.write(GUILD, CHANNEL, taro, "東京駅の丸の内北口に8時", "旅行の集合")

    block = await notes_context(notebook, GUILD, "旅行の集合場所どこだっけ", TOKYO)

    assert block.startswith("<notes ") and block.endswith("</notes>")
    assert "東京駅の丸の内北口に8時" in block and 'by="taro" on="2026-11-29"' in block
    assert f"出典: メモ #{note.id}「旅行の集合」" in block


async def test_no_block_without_a_good_match_or_in_another_server(notebook: Notebook) -> None:
    await notebook.write(GUILD, CHANNEL, taro, "東京駅の丸の内北口に8時", "旅行の集合")

    assert await notes_context(notebook, GUILD, "ラーメン食べたい", TOKYO) == ""
    assert await notes_context(notebook, OTHER_GUILD, "旅行の集合場所", TOKYO) == ""
