"""Files are told apart by name and type, and text is decoded in the encodings members use."""

from __future__ import annotations

import codecs

import pytest

from bot.agent.attachments.file_types import classify, decode_text, document_format

JAPANESE = "今日の議事録：予算は１２万円、次回は１２月８日（月）です。"


@pytest.mark.parametrize(
    ("name", "content_type", "kind"),
    [
        ("notes.txt", "text/plain; charset=utf-8", "text"),
        ("main.py", "application/octet-stream", "text"),
        ("data.json", "application/json", "text"),
        ("Makefile", None, "text"),
        (".gitignore", None, "text"),
        ("build.output", "text/x-log", "text"),
        ("cat.PNG", "image/png", "image"),
        ("photo.jpeg", None, "image"),
        ("scan.tiff", "image/tiff", "unsupported_image"),
        ("dump.bin", None, "unknown"),
        ("report.pdf", "application/pdf", "document"),
        ("議事録.DOCX", "application/octet-stream", "document"),
        ("scores.csv", "text/csv", "document"),
        ("attachment", "application/pdf", "document"),
        ("notes.txt", "text/csv", "text"),
        ("old.doc", "application/msword", "old_office"),
        ("archive.zip", "application/zip", "binary"),
    ],
)
def test_files_are_classified_by_extension_then_content_type(
    name: str, content_type: str | None, kind: str
) -> None:
    assert classify(name, content_type) == kind


@pytest.mark.parametrize(
    ("name", "content_type", "form"),
    [
        ("report.pdf", None, "pdf"),
        ("plan.docx", None, "docx"),
        ("deck.pptx", "application/octet-stream", "pptx"),
        ("book.xlsm", None, "xlsx"),
        ("data.tsv", None, "tsv"),
        (
            "download",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "xlsx",
        ),
        ("notes.txt", None, None),
    ],
)
def test_documents_are_told_apart_by_extension_then_content_type(
    name: str, content_type: str | None, form: str | None
) -> None:
    assert document_format(name, content_type) == form


@pytest.mark.parametrize(
    "data",
    [
        JAPANESE.encode("utf-8"),
        codecs.BOM_UTF8 + JAPANESE.encode("utf-8"),
        JAPANESE.encode("shift_jis"),
        JAPANESE.encode("cp932"),
        JAPANESE.encode("utf-16"),
    ],
    ids=["utf-8", "utf-8 with BOM", "shift_jis", "cp932", "utf-16 with BOM"],
)
def test_japanese_text_is_decoded_whatever_the_encoding(data: bytes) -> None:
    assert decode_text(data) == JAPANESE


def test_windows_specific_shift_jis_characters_decode() -> None:
    # ① and ～ exist only in Windows' Shift_JIS (cp932), which Japanese Excel writes.
    assert decode_text("①～③".encode("cp932")) == "①～③"


def test_binary_data_is_not_taken_for_text() -> None:
    assert decode_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") is None


def test_other_encodings_fall_back_to_the_best_guess() -> None:
    text = "Привет, как дела? Это обычный текст в кодировке Windows." * 3
    assert decode_text(text.encode("cp1251")) == text
