"""Long replies split below Discord's limit at paragraph or line boundaries, code blocks intact."""

from __future__ import annotations

from bot.discord_ui.answering.splitting import split_message


def test_short_text_is_one_chunk() -> None:
    assert split_message("こんにちは") == ["こんにちは"]


def test_paragraphs_are_preferred_split_points() -> None:
    paragraphs = ["段落" + str(i) + "。" + "あ" * 600 for i in range(5)]
    chunks = split_message("\n\n".join(paragraphs), limit=1400)

    assert all(len(c) <= 1400 for c in chunks)
    assert all(c.startswith("段落") for c in chunks)
    assert "".join(chunks).replace("\n", "") == "".join(paragraphs)


def test_a_code_block_that_fits_moves_whole_to_the_next_message() -> None:
    code = "```python\n" + "x = 1\n" * 50 + "```"
    text = "説明" * 600 + "\n" + code

    chunks = split_message(text, limit=1500)

    assert chunks[-1].startswith("```python") and chunks[-1].endswith("```")
    assert all(c.count("```") % 2 == 0 for c in chunks)


def test_a_code_block_too_long_is_closed_and_reopened_with_its_language() -> None:
    code = "```js\n" + "".join(f"console.log({i});\n" for i in range(400)) + "```"

    chunks = split_message(code, limit=2000)

    assert len(chunks) > 2
    for chunk in chunks:
        assert len(chunk) <= 2000
        assert chunk.startswith("```js\n") and chunk.endswith("```")
    lines = [line for c in chunks for line in c.splitlines() if line.startswith("console")]
    assert lines == [f"console.log({i});" for i in range(400)]


def test_a_line_without_spaces_is_cut_hard_at_the_limit() -> None:
    chunks = split_message("あ" * 4500)

    assert [len(c) for c in chunks] == [1996, 1996, 508]


def test_a_code_block_opened_on_a_long_line_of_code_still_splits() -> None:
    # Found by the property tests: the reopened fence carried the whole line, so no chunk
    # could make progress and the splitter never returned.
    text = "\r```" + "x" * 300

    chunks = split_message(text, 50)

    assert all(len(chunk) <= 50 for chunk in chunks)
    assert "".join(c.replace("```", "").replace("\n", "") for c in chunks).count("x") == 300


def test_a_hard_cut_never_starts_a_chunk_with_backticks_from_inside_a_line() -> None:
    # Found by the property tests: cutting a long line just before "````" made the next chunk
    # begin with a fence, which Discord shows as an unclosed code block.
    text = "x" * 200 + "00````00"

    chunks = split_message(text, 207)

    assert [c.lstrip().startswith("```") for c in chunks] == [False] * len(chunks)
    assert "".join(chunks) == text
