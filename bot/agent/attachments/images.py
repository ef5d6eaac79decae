"""Fitting a shared picture to what vision models take: a few megapixels, upright, compact."""

from __future__ import annotations

import io
import logging
import warnings
from dataclasses import dataclass

log = logging.getLogger(__name__)

# Providers scale larger pictures down to about this anyway (OpenAI 2048, Anthropic 1568):
# sending more only costs upload time.
IMAGE_MAX_SIDE = 2048
# The strictest provider limit per picture (Anthropic: 5 MB).
IMAGE_SEND_BYTES = 5_000_000
JPEG_QUALITY = 85


@dataclass(frozen=True)
class FittedImage:
    """The picture as the model gets it."""

    data: bytes
    media_type: str
    resized: bool


class TooManyPixels(Exception):
    """A picture that declares more pixels than we decode (size None: Pillow refused it as a
    decompression bomb before saying)."""

    def __init__(self, size: tuple[int, int] | None, limit: int) -> None:
        super().__init__(f"{size} is over {limit} pixels")
        self.size = size
        self.limit = limit


def fit_image(data: bytes, media_type: str, max_pixels: int) -> FittedImage | None:
    """The picture unchanged when small enough, else scaled to IMAGE_MAX_SIDE, turned upright
    and re-encoded (JPEG, or PNG when it has transparency); None when it cannot be sent.

    Raises TooManyPixels, before decoding anything, for a picture whose header declares more
    than max_pixels: a small file can declare a picture that takes gigabytes to decode.
    """
    # Pillow (~2 MB resident) loads at the first picture, on the thread that fits it: a bot
    # whose model sees no images never needs it.
    from PIL import Image, ImageOps, UnidentifiedImageError

    # Pillow warns when it opens a header over its own limit; ours is lower, checked below.
    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
    try:
        # Image.open reads the header only; pixels are decoded at the first operation on them.
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > max_pixels:
                raise TooManyPixels((width, height), max_pixels)
            oriented = image.getexif().get(0x0112, 1) != 1
            if max(image.size) <= IMAGE_MAX_SIDE and len(data) <= IMAGE_SEND_BYTES and not oriented:
                return FittedImage(data, media_type, resized=False)
            # Scaled first: a JPEG then decodes at a fraction of its size (Pillow's draft), and
            # only the small copy is turned upright (phones store rotation in EXIF, not in
            # pixels). An animation keeps its first frame.
            image.thumbnail((IMAGE_MAX_SIDE, IMAGE_MAX_SIDE), Image.Resampling.LANCZOS)
            picture = ImageOps.exif_transpose(image)
            out = io.BytesIO()
            if picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info:
                picture.save(out, "PNG", optimize=True)
                fitted = FittedImage(out.getvalue(), "image/png", resized=True)
            else:
                picture.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
                fitted = FittedImage(out.getvalue(), "image/jpeg", resized=True)
    except Image.DecompressionBombError as exc:
        raise TooManyPixels(None, max_pixels) from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        # Not a picture Pillow knows: let the provider judge it if it is small enough.
        log.info("Could not read a shared picture (%s); sending it as it is", exc)
        return (
            FittedImage(data, media_type, resized=False) if len(data) <= IMAGE_SEND_BYTES else None
        )
    return fitted if len(fitted.data) <= IMAGE_SEND_BYTES else None
