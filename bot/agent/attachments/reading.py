"""Reading what a member shared: text files decoded, images as data URLs, refusals as sentences."""

from __future__ import annotations

import asyncio
import base64
import logging
import weakref
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from bot.agent.attachments.file_types import IMAGE_EXTENSIONS, IMAGE_TYPES, classify, decode_text
from bot.agent.attachments.images import TooManyPixels, fit_image
from bot.agent.conversation.messages import Message, UserMessage
from bot.agent.conversation.parts import FilePart, QuotePart, Shared, SharedFile, SharedMessage
from bot.settings import Settings

log = logging.getLogger(__name__)

# One slow CDN download must not hold the answer for long.
DOWNLOAD_TIMEOUT_SECONDS = 20.0
# Characters of each quoted message that join the text handlers search with.
QUOTE_CHARS_FOR_TOPIC = 500


@dataclass(frozen=True)
class AttachmentLimits:
    """How much of what members share is read."""

    max_files: int
    max_text_bytes: int
    max_image_bytes: int
    max_image_pixels: int

    @classmethod
    def from_settings(cls, settings: Settings) -> AttachmentLimits:
        """The limits the operator configured."""
        return cls(
            settings.max_files_per_message,
            settings.max_text_file_bytes,
            settings.max_image_bytes,
            settings.max_image_pixels,
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

    def __init__(self, limits: AttachmentLimits, vision: bool, model: str) -> None:
        self.limits = limits
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
                f"添付は1回に{self.limits.max_files}件まで読みます。{len(skipped)}件は読みません"
                f"でした。/ I read at most {self.limits.max_files} files per message, so I "
                f"skipped {len(skipped)}: send them in another message."
            )
        return parts

    def warn(self, sentence: str) -> None:
        if sentence not in self.result.warnings:
            self.result.warnings.append(sentence)

    async def _file(self, shared: SharedFile) -> FilePart:
        kind = classify(shared.name, shared.content_type)
        if kind == "image":
            return await self._image(shared)
        if kind == "unsupported_image":
            self.warn(
                f"{shared.name} の画像形式は読めません。PNG・JPEG・GIF・WebPで送ってください。"
                f"/ I can't read the image format of {shared.name}: send PNG, JPEG, GIF or WebP."
            )
            return FilePart(name=shared.name, kind="skipped", note="unsupported image format")
        if kind == "binary":
            return self._binary(shared)
        return await self._text(shared, sniffing=kind == "unknown")

    def _binary(self, shared: SharedFile) -> FilePart:
        self.warn(
            f"{shared.name} はテキストでも画像でもないので読めません。/ {shared.name} is "
            "neither text nor an image, so I can't read it: paste the part that matters."
        )
        return FilePart(name=shared.name, kind="skipped", note="not a text file or image")

    def _too_large(self, shared: SharedFile, size: int, limit: int) -> FilePart:
        self.warn(
            f"{shared.name} は大きすぎて読めません（{_size(size)}、上限 {_size(limit)}）。"
            f"必要な部分だけ送ってください。/ {shared.name} is too large for me ({_size(size)}; "
            f"the limit is {_size(limit)}): send the part that matters."
        )
        return FilePart(name=shared.name, kind="skipped", note=f"larger than {_size(limit)}")

    async def _download(self, shared: SharedFile) -> bytes | None:
        try:
            async with asyncio.timeout(DOWNLOAD_TIMEOUT_SECONDS):
                return await shared.read()
        except Exception as exc:
            log.warning("Could not download attachment %s: %s", shared.key, exc)
            self.warn(
                f"{shared.name} をダウンロードできませんでした。もう一度送ってください。/ "
                f"I couldn't download {shared.name}; please send it again."
            )
            return None

    async def _text(self, shared: SharedFile, *, sniffing: bool) -> FilePart:
        limit = self.limits.max_text_bytes
        if shared.size > limit:
            if sniffing:
                return self._binary(shared)
            return self._too_large(shared, shared.size, limit)
        data = await self._download(shared)
        if data is None:
            return FilePart(name=shared.name, kind="skipped", note="the download failed")
        if len(data) > limit:
            return self._too_large(shared, len(data), limit)
        text = await asyncio.to_thread(decode_text, data)
        if text is None:
            return self._binary(shared)
        return FilePart(name=shared.name, kind="text", text=text)

    async def _image(self, shared: SharedFile) -> FilePart:
        if not self.vision:
            self._no_vision.append(shared.name)
            return FilePart(
                name=shared.name, kind="image", note=f"the model {self.model} cannot see images"
            )
        limit = self.limits.max_image_bytes
        if shared.size > limit:
            return self._too_large(shared, shared.size, limit)
        data = await self._download(shared)
        if data is None:
            return FilePart(name=shared.name, kind="skipped", note="the download failed")
        if len(data) > limit:
            return self._too_large(shared, len(data), limit)
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
            self.warn(
                f"{shared.name} は縮めても大きすぎて送れませんでした。小さめの画像でお願いします。"
                f"/ {shared.name} stays too large even scaled down: send a "
                "smaller picture or a screenshot of the part that matters."
            )
            return FilePart(name=shared.name, kind="skipped", note="too large to send")
        encoded = await asyncio.to_thread(base64.b64encode, fitted.data)
        url = f"data:{fitted.media_type};base64,{encoded.decode('ascii')}"
        self.result.images[shared.key] = url
        return FilePart(name=shared.name, kind="image", image_key=shared.key)

    def _too_many_pixels(self, shared: SharedFile, refused: TooManyPixels) -> FilePart:
        limit = _megapixels(refused.limit)
        size_ja = size_en = ""
        if refused.size is not None:
            width, height = refused.size
            size_ja, size_en = f"{width}×{height}、", f"{width}×{height}; "
        self.warn(
            f"{shared.name} は画素数が多すぎて読めません（{size_ja}上限 {limit} メガピクセル）。"
            f"縮小した画像か、必要な部分のスクリーンショットを送ってください。/ {shared.name} has "
            f"too many pixels for me ({size_en}the limit is {limit} megapixels): send a smaller "
            "copy or a screenshot of the part that matters."
        )
        return FilePart(
            name=shared.name, kind="skipped", note=f"more than {limit} megapixels, not read"
        )

    def finish(self) -> Prepared:
        if self._no_vision:
            names = "、".join(self._no_vision)
            self.warn(
                f"今のモデル（{self.model}）は画像を見られないので {names} は読んでいません。"
                f"管理者は /model で画像に対応したモデルを選べます。/ The current model "
                f"({self.model}) can't see images, so I didn't look at {', '.join(self._no_vision)}"
                "; an admin can pick a vision model with /model."
            )
        return self.result


def topic_text(user: UserMessage | None) -> str:
    """The member's words plus the start of what they quoted (what handlers search with):
    what a member replies to often says more about the topic than "これ本当？"."""
    if user is None:
        return ""
    return " ".join([user.text, *(q.text[:QUOTE_CHARS_FOR_TOPIC] for q in user.quotes)])


async def attach(
    message: UserMessage, shared: Shared, history: list[Message], reading: Reading
) -> tuple[dict[str, str], list[str]]:
    """Fill the message's parts from what it shares; return the run's images and the
    sentences for the member."""
    prepared = await prepare(
        shared,
        reading.limits,
        vision=reading.vision,
        model=reading.model,
        quoted_before=quoted_ids(history),
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
) -> Prepared:
    """Read the files of the mention and of the messages it refers to, within the limits."""
    reader = _Reader(limits, vision, model)
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
            reader.warn(_MISSING_SENTENCE[quote.missing])
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
            earlier=True,
        )
    return QuotePart(
        relation=quote.relation,
        message_id=quote.message_id,
        author_name=quote.author_name,
        text=quote.text,
        files=await reader.files(quote.files),
    )


_MISSING_SENTENCE = {
    "deleted": "返信先のメッセージは削除されていて読めませんでした。/ The message you replied to "
    "has been deleted, so I couldn't read it.",
    "no_access": "返信先のメッセージを読む権限がありません。/ I'm not allowed to read the "
    "message you replied to: ask an admin to give me Read Message History there.",
    "unavailable": "返信先のメッセージを取得できませんでした。/ Discord didn't give me the "
    "message you replied to; try again in a moment.",
}
