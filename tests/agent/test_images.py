"""Pictures reach vision models upright and at most IMAGE_MAX_SIDE pixels a side."""

from __future__ import annotations

import io

from PIL import Image

from bot.agent.attachments.images import IMAGE_MAX_SIDE, IMAGE_SEND_BYTES, fit_image

# The default MAX_IMAGE_PIXELS.
PIXELS = 25_000_000


def picture(size: tuple[int, int], mode: str = "RGB", fmt: str = "JPEG", **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, (200, 80, 40) if mode == "RGB" else (200, 80, 40, 128)).save(
        out, fmt, **save
    )
    return out.getvalue()


def opened(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_a_small_picture_is_sent_as_it_is() -> None:
    data = picture((800, 600))

    fitted = fit_image(data, "image/jpeg", PIXELS)

    assert fitted is not None and fitted.data == data and not fitted.resized


def test_a_large_photo_is_scaled_to_the_longest_side_keeping_its_shape() -> None:
    fitted = fit_image(picture((4032, 3024)), "image/jpeg", PIXELS)

    assert fitted is not None and fitted.resized and fitted.media_type == "image/jpeg"
    assert opened(fitted.data).size == (IMAGE_MAX_SIDE, 1536)


def test_a_photo_rotated_by_its_exif_tag_is_turned_upright() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display", as phones write it
    fitted = fit_image(picture((1200, 900), exif=exif), "image/jpeg", PIXELS)

    assert fitted is not None and opened(fitted.data).size == (900, 1200)


def test_a_large_transparent_picture_stays_a_png() -> None:
    fitted = fit_image(picture((3000, 1000), mode="RGBA", fmt="PNG"), "image/png", PIXELS)

    assert fitted is not None and fitted.media_type == "image/png"
    assert opened(fitted.data).mode == "RGBA" and opened(fitted.data).size == (2048, 683)


def test_data_pillow_cannot_read_is_sent_only_when_small() -> None:
    small, large = b"\x89PNG-not-really", b"\x89PNG" + bytes(IMAGE_SEND_BYTES)

    fitted = fit_image(small, "image/png", PIXELS)

    assert fitted is not None and fitted.data == small
    assert fit_image(large, "image/png", PIXELS) is None
