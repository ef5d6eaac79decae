"""What a document's reading becomes: the part the model gets, and a sentence for the member."""

from __future__ import annotations

from bot.agent.attachments.documents import DocumentLimits, Failure
from bot.agent.attachments.file_types import DocumentFormat
from bot.agent.attachments.isolation import Outcome
from bot.agent.conversation.parts import FilePart
from bot.i18n import Language, Text, answers

# Why the model does not get the document (said to the model, not to the member).
_FAILURE_NOTE: dict[Failure, str] = {
    "encrypted": "password-protected, not read",
    "unreadable": "damaged or not the format its name says, not read",
    "too_heavy": "took too long or too much memory to read, stopped",
    "old_format": "an old Office format (.doc, .xls, .ppt), not read",
    "no_text": "no text in it (perhaps scanned pages, which are pictures)",
}
_FAILURE_SENTENCE: dict[Failure, Text] = {
    "encrypted": answers.DOCUMENT_ENCRYPTED,
    "unreadable": answers.DOCUMENT_UNREADABLE,
    "too_heavy": answers.DOCUMENT_TOO_HEAVY,
    "old_format": answers.DOCUMENT_OLD_FORMAT,
    "no_text": answers.DOCUMENT_NO_TEXT,
}


def refused(name: str, failure: Failure, language: Language) -> tuple[FilePart, str]:
    """The stand-in the model gets for a document that was not read, and the member's
    sentence."""
    sentence = _FAILURE_SENTENCE[failure](language, name=name)
    return FilePart(name=name, kind="skipped", note=_FAILURE_NOTE[failure]), sentence


def document_part(
    name: str,
    form: DocumentFormat,
    outcome: Outcome,
    limits: DocumentLimits,
    language: Language,
) -> tuple[FilePart, str | None]:
    """The document's text as the model gets it (with a note when part of it was left out),
    and the member's sentence when something was not read."""
    if outcome.failure is not None or outcome.extracted is None:
        return refused(name, outcome.failure or "unreadable", language)
    extracted = outcome.extracted
    if extracted.cut:
        chars = f"{limits.max_chars:,}"
        return (
            FilePart(
                name=name,
                kind="text",
                text=extracted.text,
                note=f"only the first {chars} characters were read",
            ),
            answers.DOCUMENT_TEXT_CUT(language, name=name, chars=chars),
        )
    if extracted.pages_left_out:
        read, total = extracted.pages_read, extracted.pages
        unit, said = ("slides", answers.DOCUMENT_SLIDES_CUT)
        if form != "pptx":
            unit, said = ("pages", answers.DOCUMENT_PAGES_CUT)
        return (
            FilePart(
                name=name,
                kind="text",
                text=extracted.text,
                note=f"only the first {read} of its {total} {unit} were read",
            ),
            said(language, name=name, read=read, total=total),
        )
    return FilePart(name=name, kind="text", text=extracted.text), None
