"""Reading what a member shared: text files decoded, documents read as text, images as data
URLs, refusals as sentences."""

from __future__ import annotations

import asyncio
import base64
import logging
import weakref
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from bot.agent.attachments.document_parts import document_part, refused
from bot.agent.attachments.documents import DocumentLimits
from bot.agent.attachments.file_types import (
    IMAGE_EXTENSIONS,
    IMAGE_TYPES,
    DocumentFormat,
    classify,
    decode_text,
    document_format,
)
from bot.agent.attachments.images import TooManyPixels, fit_image
from bot.agent.attachments.isolation import read_document
from bot.agent.conversation.messages import Message, UserMessage
from bot.agent.conversation.parts import FilePart, QuotePart, Shared, SharedFile, SharedMessage
from bot.i18n import Language, Text, answers
from bot.settings import Settings

log = logging.getLogger(__name__)

# One slow CDN download must not hold the answer for long.
DOWNLOAD_TIMEOUT_SECONDS = 20.0


@dataclass(frozen=True)
class AttachmentLimits:
    """How much of what members share is read."""

    max_files: int
    max_text_bytes: int
    max_image_bytes: int
    max_image_pixels: int
    documents: DocumentLimits = field(default_factory=DocumentLimits)

    @classmethod
    def from_settings(cls, settings: Settings) -> AttachmentLimits:
        """The limits the operator configured."""
        return cls(
            settings.max_files_per_message,
            settings.max_text_file_bytes,
            settings.max_image_bytes,
            settings.max_image_pixels,
            DocumentLimits(
                max_bytes=settings.max_document_bytes,
                max_pages=settings.max_document_pages,
                max_chars=settings.max_document_chars,
                seconds=settings.document_read_seconds,
            ),
        )


@dataclass(frozen=True)
class Reading:
    """How this run reads files: the limits, and whether its model sees images."""

    limits: AttachmentLimits
    vision: bool
    model: str

    @classmethod
    def of(cls, settings: Settings, model: str, vision: bool) -> Reading:
        """The configured limits for a run of this model."""
        return cls(AttachmentLimits.from_settings(settings), vision, model)


@dataclass
class Prepared:
    """The parts to store, the run's image data, and sentences for the member."""

    files: list[FilePart] = field(default_factory=list)
    quotes: list[QuotePart] = field(default_factory=list)
    images: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


# One picture decodes at a time in the whole process: each may take a hundred MB while it does.
_DECODING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _decoding() -> asyncio.Lock:
    """The running loop's lock for decoding pictures."""
    loop = asyncio.get_running_loop()
    lock = _DECODING.get(loop)
    if lock is None:
        lock = _DECODING[loop] = asyncio.Lock()
    return lock


def _megapixels(count: int) -> str:
    return f"{count / 1_000_000:g}"


def _size(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f} MB"
    if count >= 1000:
        return f"{count / 1000:.0f} KB"
    return f"{count} B"


class _Reader:
    """Reads the files of one turn within the limits, collecting parts and sentences."""

    def __init__(
        self, limits: AttachmentLimits, vision: bool, model: str, language: Language = "ja"
    ) -> None:
        self.limits = limits
        # The member's language: the sentences about what could not be read use it.
        self.language = language
        self.vision = vision
        self.model = model
        self.result = Prepared()
        self._budget = limits.max_files
        self._no_vision: list[str] = []

    async def files(self, files: tuple[SharedFile, ...]) -> list[FilePart]:
        taken = files[: max(self._budget, 0)]
        skipped = files[len(taken) :]
        self._budget -= len(taken)
        parts = list(await asyncio.gather(*(self._file(f) for f in taken)))
        for extra in skipped:
            parts.append(FilePart(name=extra.name, kind="skipped", note="over the file limit"))
        if skipped:
            self.warn(
                answers.FILES_SKIPPED(
                    self.language, limit=self.limits.max_files, skipped=len(skipped)
                )
            )
        return parts

    def warn(self, sentence: str) -> None:
        if sentence not in self.result.warnings:
            self.result.warnings.append(sentence)

    async def _file(self, shared: SharedFile) -> FilePart:
        kind = classify(shared.name, shared.content_type)
        if kind == "document":
            form = document_format(shared.name, shared.content_type)
            if form is not None:
                return await self._document(shared, form)
        if kind == "old_office":
            part, sentence = refused(shared.name, "old_format", self.language)
            self.warn(sentence)
            return part
        if kind == "image":
            return await self._image(shared)
        if kind == "unsupported_image":
            self.warn(answers.IMAGE_FORMAT(self.language, name=shared.name))
            return FilePart(name=shared.name, kind="skipped", note="unsupported image format")
        if kind == "binary":
            return self._binary(shared)
        return await self._text(shared, sniffing=kind == "unknown")

    def _binary(self, shared: SharedFile) -> FilePart:
        self.warn(answers.NOT_TEXT_OR_IMAGE(self.language, name=shared.name))
        return FilePart(name=shared.name, kind="skipped", note="not a text file or image")

    def _too_large(self, shared: SharedFile, size: int, limit: int) -> FilePart:
        self.warn(
            answers.FILE_TOO_LARGE(
                self.language, name=shared.name, size=_size(size), limit=_size(limit)
            )
        )
        return FilePart(name=shared.name, kind="skipped", note=f"larger than {_size(limit)}")

    async def _download(self, shared: SharedFile) -> bytes | None:
        try:
            async with asyncio.timeout(DOWNLOAD_TIMEOUT_SECONDS):
                return await shared.read()
        except Exception as exc:
            log.warning("Could not download attachment %s: %s", shared.key, exc)
            self.warn(answers.DOWNLOAD_FAILED(self.language, name=shared.name))
            return None

    async def _fetch(self, shared: SharedFile, limit: int) -> bytes | FilePart:
        """The file's bytes, or why it is skipped: larger than limit (as Discord says, then as
        downloaded) or not downloaded."""
        if shared.size > limit:
            return self._too_large(shared, shared.size, limit)
        data = await self._download(shared)
        if data is None:
            return FilePart(name=shared.name, kind="skipped", note="the download failed")
        if len(data) > limit:
            return self._too_large(shared, len(data), limit)
        return data

    async def _text(self, shared: SharedFile, *, sniffing: bool) -> FilePart:
        limit = self.limits.max_text_bytes
        if shared.size > limit and sniffing:
            return self._binary(shared)
        data = await self._fetch(shared, limit)
        if isinstance(data, FilePart):
            return data
        text = await asyncio.to_thread(decode_text, data)
        if text is None:
            return self._binary(shared)
        return FilePart(name=shared.name, kind="text", text=text)

    async def _document(self, shared: SharedFile, form: DocumentFormat) -> FilePart:
        limits = self.limits.documents
        data = await self._fetch(shared, limits.max_bytes)
        if isinstance(data, FilePart):
            return data
        outcome = await read_document(form, data, limits)
        part, sentence = document_part(shared.name, form, outcome, limits, self.language)
        if sentence is not None:
            self.warn(sentence)
        return part

    async def _image(self, shared: SharedFile) -> FilePart:
        if not self.vision:
            self._no_vision.append(shared.name)
            return FilePart(
                name=shared.name, kind="image", note=f"the model {self.model} cannot see images"
            )
        data = await self._fetch(shared, self.limits.max_image_bytes)
        if isinstance(data, FilePart):
            return data
        media = (shared.content_type or "").split(";")[0].strip().lower()
        if media not in IMAGE_TYPES:
            media = IMAGE_EXTENSIONS.get(PurePosixPath(shared.name.lower()).suffix, "image/png")
        limit = self.limits.max_image_pixels
        try:
            async with _decoding():
                fitted = await asyncio.to_thread(fit_image, data, media, limit)
        except TooManyPixels as refused:
            return self._too_many_pixels(shared, refused)
        if fitted is None:
            self.warn(answers.IMAGE_STILL_TOO_LARGE(self.language, name=shared.name))
            return FilePart(name=shared.name, kind="skipped", note="too large to send")
        encoded = await asyncio.to_thread(base64.b64encode, fitted.data)
        url = f"data:{fitted.media_type};base64,{encoded.decode('ascii')}"
        self.result.images[shared.key] = url
        return FilePart(name=shared.name, kind="image", image_key=shared.key)

    def _too_many_pixels(self, shared: SharedFile, refused: TooManyPixels) -> FilePart:
        limit = _megapixels(refused.limit)
        size = ""
        if refused.size is not None:
            width, height = refused.size
            size = f"{width}×{height}" + ("、" if self.language == "ja" else "; ")
        self.warn(answers.TOO_MANY_PIXELS(self.language, name=shared.name, size=size, limit=limit))
        return FilePart(
            name=shared.name, kind="skipped", note=f"more than {limit} megapixels, not read"
        )

    def finish(self) -> Prepared:
        if self._no_vision:
            names = ("、" if self.language == "ja" else ", ").join(self._no_vision)
            self.warn(answers.NO_VISION(self.language, model=self.model, names=names))
        return self.result


async def attach(
    message: UserMessage,
    shared: Shared,
    history: list[Message],
    reading: Reading,
    language: Language = "ja",
) -> tuple[dict[str, str], list[str]]:
    """Fill the message's parts from what it shares; return the run's images and the
    sentences for the member."""
    prepared = await prepare(
        shared,
        reading.limits,
        vision=reading.vision,
        model=reading.model,
        quoted_before=quoted_ids(history),
        language=language,
    )
    message.files, message.quotes = prepared.files, prepared.quotes
    return prepared.images, prepared.warnings


def quoted_ids(history: list[Message]) -> frozenset[int]:
    """Ids of messages already quoted with their content in this stretch of history."""
    return frozenset(
        quote.message_id
        for item in history
        if isinstance(item, UserMessage)
        for quote in item.quotes
        if quote.message_id is not None and quote.missing is None and not quote.earlier
    )


async def prepare(
    shared: Shared,
    limits: AttachmentLimits,
    *,
    vision: bool,
    model: str,
    quoted_before: frozenset[int] = frozenset(),
    language: Language = "ja",
) -> Prepared:
    """Read the files of the mention and of the messages it refers to, within the limits."""
    reader = _Reader(limits, vision, model, language)
    reader.result.files = await reader.files(shared.files)
    for quote in shared.quotes:
        part = await _quote(reader, quote, quoted_before)
        if part is not None:
            reader.result.quotes.append(part)
    return reader.finish()


async def _quote(
    reader: _Reader, quote: SharedMessage, quoted_before: frozenset[int]
) -> QuotePart | None:
    if quote.missing is not None:
        if quote.relation == "reply":
            reader.warn(_MISSING_SENTENCE[quote.missing](reader.language))
        return QuotePart(
            relation=quote.relation, message_id=quote.message_id, missing=quote.missing
        )
    if quote.message_id is not None and quote.message_id in quoted_before:
        if quote.relation == "thread_starter":
            return None
        return QuotePart(
            relation=quote.relation,
            message_id=quote.message_id,
            author_name=quote.author_name,
            author_id=quote.author_id,
            earlier=True,
        )
    return QuotePart(
        relation=quote.relation,
        message_id=quote.message_id,
        author_name=quote.author_name,
        author_id=quote.author_id,
        text=quote.text,
        files=await reader.files(quote.files),
    )


_MISSING_SENTENCE: dict[str, Text] = {
    "deleted": answers.REPLY_DELETED,
    "no_access": answers.REPLY_NO_ACCESS,
    "unavailable": answers.REPLY_UNAVAILABLE,
}
