"""Parsing markdown files: front matter, titles, heading paths and long sections."""

from __future__ import annotations

from bot.knowledge.documents import MAX_SECTION_CHARS, parse_document, parse_front_matter


def test_front_matter_gives_title_and_inline_tags() -> None:
    text = "---\ntitle: よくある質問\ntags: [faq, 'new members']\n---\n# FAQ\n\nbody\n"

    fields, body, first_line = parse_front_matter(text)

    assert fields == {"title": "よくある質問", "tags": ["faq", "new members"]}
    assert body.startswith("# FAQ")
    assert first_line == 5


def test_front_matter_accepts_dash_lists_and_colons_in_values() -> None:
    text = '---\ntitle: "Web検索: 東京の天気"\ntags:\n  - web_search\n  - 天気\n---\nbody'

    fields, _, _ = parse_front_matter(text)

    assert fields["title"] == "Web検索: 東京の天気"
    assert fields["tags"] == ["web_search", "天気"]


def test_unclosed_front_matter_is_treated_as_text() -> None:
    text = "---\ntitle: nope\n\n# Heading\nbody"

    fields, body, _ = parse_front_matter(text)

    assert fields == {}
    assert body == text


def test_sections_keep_their_heading_path() -> None:
    text = (
        "# FAQ\n\nintro\n\n## 参加方法\n\n招待リンクから\n\n"
        "### 期限切れ\n\n運営に\n\n## 退会\n\nbye\n"
    )

    parsed = parse_document(text, "faq")

    assert [s.heading for s in parsed.sections] == [
        "FAQ",
        "FAQ > 参加方法",
        "FAQ > 参加方法 > 期限切れ",
        "FAQ > 退会",
    ]
    assert parsed.sections[1].text == "招待リンクから"
    assert parsed.sections[1].line == 5


def test_title_comes_from_front_matter_then_first_heading_then_file_name() -> None:
    assert parse_document("---\ntitle: A\n---\n# B\ntext", "c").title == "A"
    assert parse_document("# B\ntext", "c").title == "B"
    assert parse_document("text only", "getting-started").title == "getting started"


def test_hash_lines_inside_code_fences_are_not_headings() -> None:
    text = "# Setup\n\n```bash\n# install\npip install otomo\n```\n\nafter\n"

    parsed = parse_document(text, "setup")

    assert [s.heading for s in parsed.sections] == ["Setup"]
    assert "# install" in parsed.sections[0].text


def test_long_sections_are_split_at_paragraphs_under_one_heading() -> None:
    paragraph = "これは長い段落です。" * 40  # 400 characters
    text = "# Long\n\n" + "\n\n".join([paragraph] * 6)

    parsed = parse_document(text, "long")

    assert len(parsed.sections) > 1
    assert all(len(s.text) <= MAX_SECTION_CHARS for s in parsed.sections)
    assert {s.heading for s in parsed.sections} == {"Long"}
    assert "".join(s.text.replace("\n", "") for s in parsed.sections) == paragraph * 6


def test_empty_headings_and_blank_files_give_no_sections() -> None:
    assert parse_document("# Only a title\n\n## And a subtitle\n", "x").sections == ()
    assert parse_document("", "x").sections == ()


def test_windows_line_endings_and_bom_are_understood() -> None:
    text = "\ufeff---\r\ntitle: T\r\n---\r\n# H\r\nbody\r\n"

    parsed = parse_document(text, "x")

    assert parsed.title == "T"
    assert parsed.sections[0].text == "body"
