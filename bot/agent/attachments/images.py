"""Fitting a shared picture to what vision models take: a few megapixels, upright, compact."""

from __future__ import annotations

import io
import logging
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


def fit_image(data: bytes, media_type: str) -> FittedImage | None:
    """The picture unchanged when small enough, else turned upright, scaled to IMAGE_MAX_SIDE
    and re-encoded (JPEG, or PNG when it has transparency); None when it cannot be sent."""
    # Pillow (~2 MB resident) loads at the first picture, on the thread that fits it: a bot
    # whose model sees no images never needs it.
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            oriented = image.getexif().get(0x0112, 1) != 1
            if max(image.size) <= IMAGE_MAX_SIDE and len(data) <= IMAGE_SEND_BYTES and not oriented:
                return FittedImage(data, media_type, resized=False)
            # The first frame of an animation; phones store rotation in EXIF, not in pixels.
            picture = ImageOps.exif_transpose(image)
            picture.thumbnail((IMAGE_MAX_SIDE, IMAGE_MAX_SIDE), Image.Resampling.LANCZOS)
            out = io.BytesIO()
            if picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info:
                picture.save(out, "PNG", optimize=True)
                fitted = FittedImage(out.getvalue(), "image/png", resized=True)
            else:
                picture.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
                fitted = FittedImage(out.getvalue(), "image/jpeg", resized=True)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        # Not a picture Pillow knows: let the provider judge it if it is small enough.
        log.info("Could not read a shared picture (%s); sending it as it is", exc)
        return (
            FittedImage(data, media_type, resized=False) if len(data) <= IMAGE_SEND_BYTES else None
        )
    return fitted if len(fitted.data) <= IMAGE_SEND_BYTES else None
