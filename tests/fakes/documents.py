"""Small real documents built in memory: PDF, Word, PowerPoint and Excel files as members send them.

The PDF is written by hand (pypdf reads PDFs but does not lay out text): each page shows its
lines in a Japanese font named, not embedded, as Japanese office software writes it, so the
text extracts as Unicode in both languages.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import docx
import openpyxl
import pptx
from pptx.util import Inches
from pypdf import PdfReader, PdfWriter

_FONT = (
    b"<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPr6N-Regular /Encoding /UniJIS-UTF16-H "
    b"/DescendantFonts [4 0 R] >>",
    b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPr6N-Regular "
    b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> >>",
)


def pdf(pages: Sequence[str]) -> bytes:
    """A PDF with one page per text, each line of the text a line on the page."""
    count = len(pages)
    kids = " ".join(f"{5 + 2 * n} 0 R" for n in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        *_FONT,
    ]
    for number, page in enumerate(pages):
        shown = " ".join(f"<{line.encode('utf-16-be').hex()}> Tj T*" for line in page.split("\n"))
        stream = f"BT /F1 10 Tf 12 TL 40 800 Td {shown} ET".encode()
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * number)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def encrypted_pdf(pages: Sequence[str], password: str = "himitsu") -> bytes:
    """The PDF locked with a password (AES-256); an empty password locks it against editing only."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(pages))))
    writer.encrypt(user_password=password, owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def word(
    paragraphs: Sequence[str],
    table: Sequence[Sequence[str]] = (),
    heading: str | None = None,
) -> bytes:
    """A .docx with an optional heading, the paragraphs, then a table."""
    document = docx.Document()
    if heading:
        document.add_heading(heading, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for row, values in zip(grid.rows, table, strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
    return _saved(document)


def slides(texts: Sequence[tuple[str, str]], notes: str | None = None) -> bytes:
    """A .pptx with a title-and-content slide per (title, body); notes on the first slide."""
    deck = pptx.Presentation()
    for title, body in texts:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    if notes is not None:
        deck.slides[0].notes_slide.notes_text_frame.text = notes
    if texts:
        box = deck.slides[0].shapes.add_textbox(Inches(1), Inches(6), Inches(4), Inches(1))
        box.text_frame.text = "(c) Otomo"
    return _saved(deck)


def workbook(sheets: dict[str, Sequence[Sequence[object]]]) -> bytes:
    """An .xlsx with one sheet per name, its rows as given."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    return _saved(book)


def _saved(document: object) -> bytes:
    out = io.BytesIO()
    document.save(out)  # type: ignore[attr-defined]
    return out.getvalue()
