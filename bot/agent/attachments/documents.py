"""Documents as text: PDF pages, Word paragraphs and tables, slides, spreadsheet and CSV rows.

Each reader takes a file's bytes and the caps and returns its text with page, slide or sheet
markers, stopping at the caps; a file it cannot read raises `DocumentError` saying why. The
parsers see hostile files too, so they run in a child process (`isolation.py`) and are imported
there: a bot that never reads a document never loads them.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from bot.agent.attachments.file_types import DocumentFormat, decode_text

# Why a document was not read: said to the member as a sentence, to the model as a note.
Failure = Literal["encrypted", "unreadable", "too_heavy", "old_format", "no_text"]

# The libraries the readers use, imported once by the process that forks the readers.
PARSERS = ("pypdf", "docx", "pptx", "openpyxl")

# An Office file (.docx .xlsx .pptx) is a zip: one that unpacks to more than this is a bomb,
# refused before any XML is parsed (real files of the size we download unpack to far less).
MAX_UNPACKED_BYTES = 400_000_000
# Office files with a password are not zips but OLE containers holding this stream.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
# Spreadsheet cells and CSV fields are written on one line each, tab-separated.
_CELL_SPACE = re.compile(r"[\t\r\n]+")
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class DocumentLimits:
    """How much of a document is read (the defaults are the settings' defaults)."""

    max_bytes: int = 10_000_000
    max_pages: int = 50
    max_chars: int = 20_000
    seconds: float = 15.0


@dataclass(frozen=True)
class Extracted:
    """A document's text, and how much of it was left unread."""

    text: str
    # Pages (PDF) or slides (PPTX) in the file and how many were read; None for other formats.
    pages: int | None = None
    pages_read: int | None = None
    # The text reached max_chars and was cut there.
    cut: bool = False

    @property
    def pages_left_out(self) -> bool:
        """The page (or slide) cap stopped the reading before the text cap did."""
        return not self.cut and self.pages is not None and self.pages_read != self.pages


class DocumentError(Exception):
    """A document that could not be read, and why."""

    def __init__(self, failure: Failure, detail: str = "") -> None:
        super().__init__(f"{failure}: {detail}" if detail else failure)
        self.failure = failure


class _Text:
    """The text of a document as it is read, stopping at the character cap."""

    def __init__(self, max_chars: int) -> None:
        self._parts: list[str] = []
        self._left = max_chars
        self._words = False
        self.cut = False

    def mark(self, label: str) -> bool:
        """Add a page, slide or sheet marker; False once the cap is reached."""
        return self._append(label)

    def add(self, text: str) -> bool:
        """Add a block of the document's words (a page, a paragraph, a row); False once the cap
        is reached."""
        text = text.strip()
        if not text:
            return not self.cut
        self._words = True
        return self._append(text)

    def _append(self, text: str) -> bool:
        if self._left <= 0:
            self.cut = True
            return False
        if len(text) > self._left:
            text, self.cut = text[: self._left], True
        self._parts.append(text)
        self._left -= len(text) + 1
        return not self.cut

    def done(self) -> str:
        """The text read, blank runs folded; DocumentError when there were no words at all
        (a scanned PDF is pictures of pages)."""
        if not self._words:
            raise DocumentError("no_text")
        return _BLANK_LINES.sub("\n\n", "\n".join(self._parts)).strip()


def extract(form: DocumentFormat, data: bytes, limits: DocumentLimits) -> Extracted:
    """The text of a document; raises DocumentError when it cannot be read."""
    # The parsers log every oddity of a malformed file: the outcome is what matters here.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = _READERS[form]
    if form in ("docx", "pptx", "xlsx"):
        _check_package(data)
    try:
        return reader(data, limits)
    except (DocumentError, MemoryError):
        raise
    except RecursionError as exc:
        raise DocumentError("too_heavy", "nested too deeply") from exc
    except Exception as exc:
        # A damaged file can fail anywhere inside a parser, with any exception.
        raise DocumentError("unreadable", f"{type(exc).__name__}: {exc}") from exc


def _check_package(data: bytes) -> None:
    """Refuse Office files that are password-protected, in the old binary format, or bombs."""
    if data.startswith(_OLE_MAGIC):
        # Word, Excel and PowerPoint keep a protected file in an OLE container; without the
        # EncryptedPackage stream it is an old .doc/.xls/.ppt under a new extension.
        if _ENCRYPTED_PACKAGE in data:
            raise DocumentError("encrypted")
        raise DocumentError("old_format")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            unpacked = sum(item.file_size for item in package.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise DocumentError("unreadable", f"not a zip: {exc}") from exc
    # zipfile stops each member at its declared size, so the sum bounds what parsing unpacks.
    if unpacked > MAX_UNPACKED_BYTES:
        raise DocumentError("too_heavy", f"unpacks to {unpacked} bytes")


def _pdf(data: bytes, limits: DocumentLimits) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        # A file locked only against editing opens with the empty password; others need one.
        try:
            opened = reader.decrypt("")
        except (NotImplementedError, FileNotDecryptedError) as exc:
            raise DocumentError("encrypted", str(exc)) from exc
        if not opened:
            raise DocumentError("encrypted")
    total = len(reader.pages)
    text = _Text(limits.max_chars)
    read = 0
    for number in range(min(total, limits.max_pages)):
        page = reader.pages[number].extract_text() or ""
        read += 1
        if not (text.mark(f"[page {number + 1}]") and text.add(page)):
            break
    return Extracted(text.done(), pages=total, pages_read=read, cut=text.cut)


def _docx(data: bytes, limits: DocumentLimits) -> Extracted:
    import docx
    from docx.oxml.ns import qn
    from docx.table import Table

    document = docx.Document(io.BytesIO(data))
    # python-docx's own walks are too slow for long files: iter_inner_content's XPath union
    # takes seconds over thousands of paragraphs, and Paragraph.style searches every style
    # each time. The body's children are walked once, and style names looked up by id.
    names = {style.style_id: style.name or "" for style in document.styles}
    paragraph, table = qn("w:p"), qn("w:tbl")
    text = _Text(limits.max_chars)
    for block in document.element.body.iterchildren():
        if block.tag == table:
            added = all(text.add(row) for row in _docx_rows(Table(block, document)))
        elif block.tag == paragraph and block.text.strip():
            style = names.get(block.style or "", "")
            added = text.add(_heading_mark(style) + block.text)
        else:
            continue
        if not added:
            break
    return Extracted(text.done(), cut=text.cut)


def _heading_mark(style: str) -> str:
    """Headings keep their level as markdown does, so the model sees the outline."""
    if style == "Title":
        return "# "
    found = re.fullmatch(r"Heading (\d)", style)
    return "#" * min(int(found.group(1)) + 1, 6) + " " if found else ""


def _docx_rows(table: Any) -> Iterator[str]:
    for row in table.rows:
        cells: list[Any] = []
        # A merged cell is returned once per column it spans: written once.
        for cell in row.cells:
            if not cells or cell._tc is not cells[-1]._tc:
                cells.append(cell)
        yield _row(cell.text for cell in cells)


def _pptx(data: bytes, limits: DocumentLimits) -> Extracted:
    import pptx
    from pptx.shapes.group import GroupShape

    slides = pptx.Presentation(io.BytesIO(data)).slides
    total = len(slides)
    text = _Text(limits.max_chars)
    read = 0
    for number, slide in enumerate(slides, 1):
        if number > limits.max_pages:
            break
        read += 1
        lines = list(_shape_texts(slide.shapes, GroupShape))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"(speaker notes) {notes}")
        if not (text.mark(f"[slide {number}]") and text.add("\n".join(lines))):
            break
    return Extracted(text.done(), pages=total, pages_read=read, cut=text.cut)


def _shape_texts(shapes: Iterable[Any], group: type) -> Iterator[str]:
    """The words of each shape in order, those of grouped shapes and tables included."""
    for shape in shapes:
        if isinstance(shape, group):
            yield from _shape_texts(getattr(shape, "shapes", ()), group)
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                yield _row(cell.text for cell in row.cells)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            words = shape.text_frame.text.strip()
            if words:
                yield words


def _xlsx(data: bytes, limits: DocumentLimits) -> Extracted:
    import openpyxl

    # Read-only mode streams rows instead of building every cell; data_only gives the values
    # Excel last computed rather than formulas.
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    text = _Text(limits.max_chars)
    try:
        for sheet in book.worksheets:
            if not text.mark(f"[sheet {sheet.title}]"):
                break
            if not _add_rows(text, sheet.iter_rows(values_only=True)):
                break
    finally:
        book.close()
    return Extracted(text.done(), cut=text.cut)


def _csv(data: bytes, limits: DocumentLimits, delimiter: str | None = None) -> Extracted:
    decoded = decode_text(data)
    if decoded is None:
        raise DocumentError("unreadable", "not text")
    if delimiter is None:
        delimiter = _delimiter(decoded)
    text = _Text(limits.max_chars)
    _add_rows(text, csv.reader(io.StringIO(decoded, newline=""), delimiter=delimiter))
    return Extracted(text.done(), cut=text.cut)


def _tsv(data: bytes, limits: DocumentLimits) -> Extracted:
    return _csv(data, limits, delimiter="\t")


def _delimiter(text: str) -> str:
    """Comma unless the file's start says semicolon or tab (European and pasted exports)."""
    try:
        return csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
    except csv.Error:
        return ","


def _add_rows(text: _Text, rows: Iterable[Iterable[object]]) -> bool:
    """Add the non-empty rows; False once the text is full."""
    for values in rows:
        row = _row("" if value is None else str(value) for value in values)
        if not text.add(row):
            return False
    return True


def _row(cells: Iterable[str]) -> str:
    """Cells on one line, tab-separated, trailing empty cells dropped."""
    return "\t".join(_CELL_SPACE.sub(" ", cell).strip() for cell in cells).rstrip("\t ")


_READERS: dict[DocumentFormat, Callable[[bytes, DocumentLimits], Extracted]] = {
    "pdf": _pdf,
    "docx": _docx,
    "pptx": _pptx,
    "xlsx": _xlsx,
    "csv": _csv,
    "tsv": _tsv,
}
