"""Telling text files from documents, images and binaries, and decoding text in the encodings
members use."""

from __future__ import annotations

import codecs
from pathlib import PurePosixPath
from typing import Literal

from charset_normalizer import from_bytes

# Bytes looked at to tell a binary file from text.
SNIFF_BYTES = 8192

TEXT_EXTENSIONS = frozenset(
    f".{extension}"
    for extension in (
        "txt",
        "md",
        "markdown",
        "rst",
        "log",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "xml",
        "html",
        "htm",
        "css",
        "scss",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "py",
        "pyi",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "swift",
        "php",
        "pl",
        "lua",
        "r",
        "sql",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "bat",
        "vue",
        "svelte",
        "tex",
        "srt",
        "vtt",
        "diff",
        "patch",
        "gitignore",
        "dockerfile",
        "properties",
        "gradle",
        "mk",
        "makefile",
    )
)
TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/javascript",
        "application/x-javascript",
        "application/typescript",
        "application/x-sh",
        "application/x-python",
        "application/sql",
        "application/x-httpd-php",
        "application/ld+json",
    }
)
# What the OpenAI-style image parts accept across providers.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
IMAGE_EXTENSIONS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
IMAGE_EXTENSIONS |= {".gif": "image/gif", ".webp": "image/webp"}

DocumentFormat = Literal["pdf", "docx", "pptx", "xlsx", "csv", "tsv"]
# Documents read by their parsers (bot/agent/attachments/documents.py), by extension or type.
DOCUMENT_EXTENSIONS: dict[str, DocumentFormat] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".csv": "csv",
    ".tsv": "tsv",
}
DOCUMENT_TYPES: dict[str, DocumentFormat] = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
# Office's binary formats before 2007: no parser of ours reads them, the member can re-save.
OLD_OFFICE_EXTENSIONS = frozenset({".doc", ".xls", ".ppt"})

Kind = Literal["text", "document", "old_office", "image", "unsupported_image", "unknown", "binary"]


def _suffix(name: str) -> str:
    return PurePosixPath(name.lower()).suffix or "." + name.lower().lstrip(".")


def _media(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def document_format(name: str, content_type: str | None) -> DocumentFormat | None:
    """The document format of a file, from its extension first, else its content type."""
    return DOCUMENT_EXTENSIONS.get(_suffix(name)) or DOCUMENT_TYPES.get(_media(content_type))


def classify(name: str, content_type: str | None) -> Kind:
    """What a file is, from its extension first (Discord's guess is often octet-stream)."""
    suffix = _suffix(name)
    media = _media(content_type)
    if suffix in DOCUMENT_EXTENSIONS or (suffix not in TEXT_EXTENSIONS and media in DOCUMENT_TYPES):
        return "document"
    if suffix in OLD_OFFICE_EXTENSIONS:
        return "old_office"
    if suffix in TEXT_EXTENSIONS or media.startswith("text/") or media in TEXT_APPLICATION_TYPES:
        return "text"
    if suffix in IMAGE_EXTENSIONS or media in IMAGE_TYPES:
        return "image"
    if media.startswith("image/"):
        return "unsupported_image"
    if media in ("", "application/octet-stream"):
        return "unknown"
    return "binary"


def decode_text(data: bytes) -> str | None:
    """The text of a file: UTF-8 (with or without BOM), UTF-16 with BOM, Shift_JIS, else the
    best guess; None for binary data."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    # cp932 is Windows' Shift_JIS, which Japanese tools still write.
    for encoding in ("utf-8", "cp932"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    best = from_bytes(data).best()
    if best is not None:
        return str(best)
    return data.decode("utf-8", errors="replace")
