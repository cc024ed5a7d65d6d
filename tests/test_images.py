"""The checks of a narrative image (pipeline/images.py), one fault at a time, on images the
tests make (tests/images.py)."""

from __future__ import annotations

import struct
import zlib

import pytest

from pipeline import images
from tests.images import _chunk, jpeg, png, png_header_only


def test_a_sound_png_and_jpeg_pass_without_their_metadata() -> None:
    made = images.check(png(40, 30))
    assert (made.kind, made.width, made.height) == ("png", 40, 30)
    assert b"tEXt" not in made.data and b"made by the tests" not in made.data
    photo = images.decoded(images.check(jpeg(24, 16)))
    assert (photo.kind, photo.width, photo.height, photo.ext) == ("jpeg", 24, 16, "jpg")
    assert b"Exif" not in photo.data and b"test photo" not in photo.data
    assert photo.data.startswith(b"\xff\xd8") and photo.data.endswith(b"\xff\xd9")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "its content is empty"),
        (b"plain text\n", "its content is text"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "SVG is not supported"),
        (b"GIF89a" + b"\0" * 20, "its content is GIF"),
        (b"RIFF\0\0\0\0WEBPVP8 ", "its content is WebP"),
        (bytes(range(256)) * 4, "unknown binary data"),
    ],
)
def test_what_is_not_png_or_jpeg_is_named(data: bytes, said: str) -> None:
    with pytest.raises(images.Refused, match=said):
        images.check(data)


def test_size_limits_are_read_from_the_header() -> None:
    with pytest.raises(images.Refused, match="30,000 × 30,000 pixels"):
        images.check(png_header_only(30000, 30000))
    with pytest.raises(images.Refused, match="20,001 × 1 pixels"):
        images.check(png_header_only(20001, 1))  # one side too long, few pixels
    with pytest.raises(images.Refused, match="image too large"):
        images.check(png(4, 4) + b"\0" * images.MAX_BYTES)


def test_a_png_whose_data_inflates_beyond_its_size_is_refused_early() -> None:
    """100 × 100 pixels over data that would inflate to 16 MB: refused after inflating
    no more than the 30,100 bytes the header promises, and one."""
    header = struct.pack(">IIBBBBB", 100, 100, 8, 2, 0, 0, 0)
    bomb = zlib.compress(b"\0" * (16 * 1024 * 1024), 9)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", bomb)
    with pytest.raises(images.Refused, match="holds 30,101 bytes where its size needs 30,100"):
        images.check(data + _chunk(b"IEND", b""))


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: d[:-20], "truncated"),
        (lambda d: d[:40] + bytes([d[40] ^ 1]) + d[41:], "checksum does not match"),
        (lambda d: d.replace(b"IHDR", b"IHDX"), "checksum|header"),
    ],
)
def test_a_damaged_png_is_refused(damage: object, said: str) -> None:
    with pytest.raises(images.Refused, match=said):
        images.check(damage(png(16, 16)))  # type: ignore[operator]


def test_an_interlaced_png_is_measured_by_its_passes() -> None:
    """Adam7: seven passes, each row with its filter byte (9 × 7 pixels, RGB)."""
    header = struct.pack(">IIBBBBB", 9, 7, 8, 2, 0, 0, 1)
    size = images._expected(9, 7, 24, True)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
    data += _chunk(b"IDAT", zlib.compress(b"\0" * size)) + _chunk(b"IEND", b"")
    assert images.check(data).width == 9
    assert size == sum(
        h * (1 + 3 * w) for w, h in ((2, 1), (1, 1), (3, 1), (2, 2), (5, 2), (4, 4), (9, 3))
    )


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: d[: len(d) // 2], "truncated|past the end"),
        (lambda d: d.replace(b"\xff\xc0", b"\xff\xc3"), "lossless, hierarchical or arithmetic"),
        (  # a frame of height 0 (the height left to a DNL marker)
            lambda d: d.replace(b"\xff\xc0\x00\x11\x08\x00\x10", b"\xff\xc0\x00\x11\x08\x00\x00"),
            "no pixels",
        ),
    ],
)
def test_a_damaged_jpeg_is_refused(damage: object, said: str) -> None:
    with pytest.raises(images.Refused, match=said):
        images.check(damage(jpeg(16, 16)))  # type: ignore[operator]


def _with_exif(data: bytes, tiff: bytes) -> bytes:
    """``data`` (tests.images.jpeg) with its EXIF segment replaced by one of ``tiff``."""
    payload = b"Exif\0\0" + tiff
    at = data.index(b"\xff\xe1")
    (length,) = struct.unpack(">H", data[at + 2 : at + 4])
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + len(payload)) + payload
    return data[:at] + app1 + data[at + 2 + length :]


def _ifd(order: str, *entries: tuple[int, int, int]) -> bytes:
    """A TIFF header and one IFD of (tag, type, value) entries in byte order ``order``."""
    head = (b"II" if order == "<" else b"MM") + struct.pack(order + "HI", 42, 8)
    body = b"".join(struct.pack(order + "HHIHH", t, k, 1, v, 0) for t, k, v in entries)
    return head + struct.pack(order + "H", len(entries)) + body + b"\0\0\0\0"


@pytest.mark.parametrize("order", ["<", ">"])
def test_a_sideways_photo_keeps_its_orientation_and_nothing_else(order: str) -> None:
    """A phone's photo taken upright is stored sideways with EXIF orientation 6: the
    orientation stays (typst and browsers turn the photo by it; its size is the turned
    one), the rest of the EXIF (here a GPS pointer) goes."""
    gps = (0x8825, 4, 0)
    photo = images.decoded(images.check(_with_exif(jpeg(24, 16), _ifd(order, gps, (0x0112, 3, 6)))))
    assert (photo.width, photo.height) == (16, 24)
    assert images._orientation(photo.data[photo.data.index(b"Exif") :]) == 6
    assert b"\x88\x25" not in photo.data and b"\x25\x88" not in photo.data
    upright = images.check(_with_exif(jpeg(24, 16), _ifd(order, (0x0112, 3, 1), gps)))
    assert (upright.width, upright.height) == (24, 16) and b"Exif" not in upright.data


@pytest.mark.parametrize(
    "tiff",
    [
        b"",
        b"XX\0*",
        b"MM\0*\xff\xff\xff\xff",
        b"MM\0*\0\0\0\x08\xff\xff",
        _ifd(">", (0x0112, 3, 9)),
    ],
)
def test_an_unreadable_orientation_is_no_orientation(tiff: bytes) -> None:
    photo = images.check(_with_exif(jpeg(24, 16), tiff))
    assert (photo.width, photo.height) == (24, 16) and b"Exif" not in photo.data


def _with_app0(data: bytes, payload: bytes) -> bytes:
    at = data.index(b"\xff\xe0")
    (length,) = struct.unpack(">H", data[at + 2 : at + 4])
    app0 = b"\xff\xe0" + struct.pack(">H", 2 + len(payload)) + payload
    return data[:at] + app0 + data[at + 2 + length :]


def test_app0_is_remade_as_plain_jfif_and_other_app0_data_goes() -> None:
    """APP0 was kept whole: a JFIF segment with text after its fields (a camera's serial,
    a position) or a JFXX thumbnail reached the PDF and the site."""
    extra = b"GPS 47.3769N serial=CAM-12345"
    jfif = b"JFIF\0\x01\x02\x01\x00\x48\x00\x48\x01\x01" + b"\x80\x80\x80" + extra
    photo = images.decoded(images.check(_with_app0(jpeg(24, 16), jfif)))
    assert b"CAM-12345" not in photo.data and b"\x80\x80\x80" not in photo.data
    at = photo.data.index(b"\xff\xe0")
    assert photo.data[at : at + 18] == b"\xff\xe0\x00\x10JFIF\0\x01\x02\x01\x00\x48\x00\x48\0\0"
    jfxx = images.check(_with_app0(jpeg(24, 16), b"JFXX\0\x10THUMBNAIL"))
    assert b"THUMBNAIL" not in jfxx.data and b"\xff\xe0" not in jfxx.data
