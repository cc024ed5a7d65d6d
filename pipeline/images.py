"""Images of the narrative (photos, slides, screenshots): untrusted files, checked before use.

An image is read like a source (inside the report folder, links resolved, hashed into the
provenance) and recognised by its content, never its name: PNG or JPEG. Its size is read
from its header and refused above ``MAX_PIXELS`` before anything is decompressed; a PNG's
compressed data is then inflated, bounded by the size its header promises, and must give
exactly that size; a JPEG's segments must all lie inside the file and end in EOI. What
is kept is rewritten without metadata (text chunks, EXIF with its GPS position, comments;
a JPEG's EXIF orientation alone is written again, so that a photo stays upright).
"""

from __future__ import annotations

import struct
import tempfile
import zlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from pipeline import cache
from pipeline.errors import InputError
from pipeline.inputs import inside, read_bytes

MAX_BYTES = 20 * 1024 * 1024
MAX_PIXELS = 40_000_000  # a 40-megapixel photo; 30000 × 30000 is a decompression bomb
MAX_SIDE = 20_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HINT = "save the image as PNG or JPEG (at most 40 megapixels, 20 MB) inside the report folder"


@dataclass(frozen=True)
class Picture:
    """A checked image: its kind ("png" or "jpeg"), size in pixels and the bytes to use."""

    kind: str
    width: int
    height: int
    data: bytes

    @property
    def ext(self) -> str:
        return "png" if self.kind == "png" else "jpg"


@dataclass(frozen=True)
class Placed:
    """An image where a text places it: its caption, description (alt text), the name
    it has in the outputs, and the checked image."""

    caption: str
    alt: str
    file: str
    picture: Picture


class Refused(ValueError):
    """What is wrong with an image; the caller names the file and line."""


def check(data: bytes) -> Picture:
    """The image in ``data`` checked and cleaned, or ``Refused`` saying why."""
    if len(data) > MAX_BYTES:
        raise Refused(f"image too large ({len(data):,} bytes; the limit is {MAX_BYTES:,})")
    if data.startswith(PNG_SIGNATURE):
        return _png(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg(data)
    raise Refused(f"not a PNG or JPEG image (its content is {_kind(data)})")


def _kind(data: bytes) -> str:
    """What a refused file holds, in words."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if b"<svg" in head.lower() or head.startswith(b"<?xml"):
        return "SVG or XML: SVG is not supported, export it as PNG"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if not data:
        return "empty"
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "unknown binary data"
    return "text"


def _size(width: int, height: int) -> None:
    if width < 1 or height < 1:
        raise Refused(f"image has no pixels ({width} × {height})")
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise Refused(
            f"image of {width:,} × {height:,} pixels is larger than iopress decodes "
            f"(at most {MAX_PIXELS:,} pixels, {MAX_SIDE:,} a side)"
        )


# --- PNG ------------------------------------------------------------------------------

# colour type -> channels; and the bit depths each allows
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_KEPT = (b"IHDR", b"PLTE", b"tRNS", b"gAMA", b"sRGB", b"cHRM")  # the rest is metadata


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(type, payload) of every chunk up to IEND, each checked against its CRC."""
    found, at = [], len(PNG_SIGNATURE)
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, end = data[at + 4 : at + 8], at + 12 + length
        if end > len(data):
            raise Refused(f"PNG chunk {kind!r} runs past the end of the file (truncated)")
        payload = data[at + 8 : at + 8 + length]
        if zlib.crc32(kind + payload) != struct.unpack(">I", data[end - 4 : end])[0]:
            raise Refused(f"PNG chunk {kind!r} is damaged (its checksum does not match)")
        found.append((kind, payload))
        if kind == b"IEND":
            return found
        at = end
    raise Refused("PNG ends without its IEND chunk (truncated)")


def _expected(width: int, height: int, bits: int, interlaced: bool) -> int:
    """Bytes of the inflated image data: per row a filter byte and the row's pixels, for
    the whole image or for each of the seven Adam7 passes."""
    passes = [(0, 0, 1, 1)]
    if interlaced:
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
                  (1, 0, 2, 2), (0, 1, 1, 2)]  # fmt: skip
    total = 0
    for x0, y0, dx, dy in passes:
        w, h = (width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy
        if w and h:
            total += h * (1 + (w * bits + 7) // 8)
    return total


def _png(data: bytes) -> Picture:
    chunks = _chunks(data)
    if chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        raise Refused("PNG does not start with its header (IHDR)")
    width, height, depth, colour, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
    _size(width, height)
    if depth not in _DEPTHS.get(colour, ()) or comp or filt or inter > 1:
        raise Refused(f"PNG header is invalid (colour type {colour}, bit depth {depth})")
    if colour == 3 and not any(kind == b"PLTE" for kind, _ in chunks):
        raise Refused("PNG with a palette has no palette (PLTE)")
    compressed = b"".join(p for kind, p in chunks if kind == b"IDAT")
    expected = _expected(width, height, depth * _CHANNELS[colour], bool(inter))
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, expected + 1)
    except zlib.error as exc:
        raise Refused(f"PNG image data is damaged ({exc})") from None
    if len(raw) != expected or not inflater.eof:
        raise Refused(f"PNG image data holds {len(raw):,} bytes where its size needs {expected:,}")
    kept = [(k, p) for k, p in chunks if k in _KEPT]
    return Picture("png", width, height, _png_bytes([*kept, (b"IDAT", compressed), (b"IEND", b"")]))


def _png_bytes(chunks: list[tuple[bytes, bytes]]) -> bytes:
    out = [PNG_SIGNATURE]
    for kind, payload in chunks:
        crc = zlib.crc32(kind + payload)
        out.append(struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc))
    return b"".join(out)


# --- JPEG -----------------------------------------------------------------------------

# baseline, extended and progressive Huffman frames (what every decoder reads)
_FRAMES = (0xC0, 0xC1, 0xC2)
_OTHER_FRAMES = (0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF)
_DROPPED = (*range(0xE1, 0xEE), 0xEF, 0xFE)  # APP1–13, APP15 (EXIF, XMP, …), comments
_STANDALONE = (0x01, *range(0xD0, 0xD8))  # TEM, RST0–7: no length


def _jpeg(data: bytes) -> Picture:
    out, size, at, turned = [data[:2]], (0, 0), 2, 1
    while True:
        marker, at = _marker(data, at)
        if marker == 0xD9:
            out.append(b"\xff\xd9")
            break
        if marker in _STANDALONE:
            out.append(bytes((0xFF, marker)))
            continue
        segment, at = _segment(data, at, marker)
        size = _frame(segment, marker) or size
        if marker == 0xDA:
            if size == (0, 0):
                raise Refused("JPEG scan before its frame header (SOF)")
            scanned = _scan_end(data, at)
            segment, at = segment + data[at:scanned], scanned
        out += _kept(marker, segment)
        if marker == 0xE1:
            turned = _orientation(segment[4:]) or turned
    if size == (0, 0):
        raise Refused("JPEG has no frame header (SOF)")
    if turned != 1:  # after JFIF's APP0, which comes first
        out.insert(2 if out[1:2] and out[1].startswith(b"\xff\xe0") else 1, _exif(turned))
    width, height = size[::-1] if turned >= 5 else size  # 5–8: turned a quarter
    return Picture("jpeg", width, height, b"".join(out))


def _kept(marker: int, segment: bytes) -> list[bytes]:
    """What of a segment goes into the copy: JFIF's APP0 remade, metadata none."""
    if marker == 0xE0:
        return _jfif(segment[4:])
    return [] if _metadata(marker, segment) else [segment]


def _jfif(payload: bytes) -> list[bytes]:
    """APP0 as JFIF states it and nothing more: version, density unit and densities,
    no thumbnail (a JFXX extension or other APP0 data can carry anything)."""
    if payload[:5] != b"JFIF\0" or len(payload) < 14:
        return []
    fields = payload[5:12] + b"\0\0"  # version, units, X and Y density; no thumbnail
    return [b"\xff\xe0" + struct.pack(">H", 2 + 5 + len(fields)) + b"JFIF\0" + fields]


def _orientation(payload: bytes) -> int | None:
    """The EXIF orientation (1–8: how a camera held sideways turned the photo) of an APP1
    payload, or None where it states none or cannot be read."""
    if payload[:6] != b"Exif\0\0":
        return None
    tiff = payload[6:]
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    try:
        if order is None or struct.unpack(order + "H", tiff[2:4])[0] != 42:
            return None
        (ifd,) = struct.unpack(order + "I", tiff[4:8])
        (count,) = struct.unpack(order + "H", tiff[ifd : ifd + 2])
        for entry in range(ifd + 2, ifd + 2 + 12 * min(count, 512), 12):
            tag, kind, _, value = struct.unpack(order + "HHIH", tiff[entry : entry + 10])
            if tag == 0x0112 and kind == 3:
                return value if 1 <= value <= 8 else None
    except struct.error:  # offsets past the segment's end
        return None
    return None


def _exif(orientation: int) -> bytes:
    """An APP1 segment that states the orientation and nothing else (no camera, no time,
    no GPS position): PDF viewers through typst and browsers turn the photo by it."""
    tiff = b"MM\0*\0\0\0\x08" + struct.pack(">HHHIHHI", 1, 0x0112, 3, 1, orientation, 0, 0)
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", 2 + len(payload)) + payload


def _metadata(marker: int, segment: bytes) -> bool:
    """Segments left out: EXIF, XMP, comments …; APP14 only where it is Adobe's colour
    transform, which decoders need."""
    return marker in _DROPPED or (marker == 0xEE and segment[4:9] != b"Adobe")


def _marker(data: bytes, at: int) -> tuple[int, int]:
    """The marker at ``at`` (fill bytes 0xFF skipped) and where its segment starts."""
    if at >= len(data) or data[at] != 0xFF:
        raise Refused(f"JPEG is damaged or truncated (no marker at byte {at:,})")
    while at < len(data) and data[at] == 0xFF:
        at += 1
    if at >= len(data):
        raise Refused("JPEG ends without its end marker (truncated)")
    return data[at], at + 1


def _segment(data: bytes, at: int, marker: int) -> tuple[bytes, int]:
    if at + 2 > len(data):
        raise Refused("JPEG ends inside a segment (truncated)")
    (length,) = struct.unpack(">H", data[at : at + 2])
    if length < 2 or at + length > len(data):
        raise Refused(f"JPEG segment at byte {at:,} runs past the end of the file")
    return bytes((0xFF, marker)) + data[at : at + length], at + length


def _frame(segment: bytes, marker: int) -> tuple[int, int] | None:
    """(width, height) of a frame header; other segments give None."""
    if marker in _OTHER_FRAMES:
        raise Refused("JPEG is lossless, hierarchical or arithmetic-coded: save it as baseline")
    if marker not in _FRAMES:
        return None
    if len(segment) < 10:
        raise Refused("JPEG frame header is too short")
    _, height, width, components = struct.unpack(">BHHB", segment[4:10])
    if components not in (1, 3):
        raise Refused(f"JPEG with {components} colour components: save it as RGB or grey")
    _size(width, height)
    return width, height


def _scan_end(data: bytes, at: int) -> int:
    """Where the entropy-coded data after a scan header ends: at the first marker that
    is neither a stuffed 0xFF00 nor a restart marker."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            raise Refused("JPEG ends inside its image data (truncated)")
        following = data[at + 1]
        if following != 0 and not 0xD0 <= following <= 0xD7 and following != 0xFF:
            return at
        at += 1 if following == 0xFF else 2


def _decode(picture: Picture) -> bytes:
    """typst (the PDF's own decoder, in memory-safe Rust) decodes the whole image once."""
    import typst

    with tempfile.TemporaryDirectory(prefix="iopress-image-") as tmp:
        (Path(tmp) / f"image.{picture.ext}").write_bytes(picture.data)
        (Path(tmp) / "main.typ").write_text(f'#image("image.{picture.ext}")\n', encoding="utf-8")
        try:
            typst.compile(str(Path(tmp) / "main.typ"), root=tmp, ignore_system_fonts=True)
        except typst.TypstError as exc:
            raise Refused(f"image cannot be decoded ({exc.message.strip()})") from None
    return b"decoded"


def decoded(picture: Picture) -> Picture:
    """``picture`` once it decoded whole (remembered in the cache by its content)."""
    name = cache.key("image-decoded", metadata.version("typst"), picture.data)
    cache.cached(name, lambda: _decode(picture))
    return picture


MAX_PLACED = 500  # images placed in one report's texts, every language together
MAX_DOCUMENT_PIXELS = 600_000_000  # one language's distinct images together (≈ 2.4 GB decoded)
SCALE_HINT = "scale the images down: a page shows at most about 8 megapixels of one"


def read(root: Path, name: str, where: Path | str, place: str) -> Picture:
    """The image ``name`` (relative to the report folder ``root``), read inside it and
    checked; every problem is an input error naming ``where`` and ``place``."""
    path = inside(root, name, where, place)
    if not path.is_file():
        raise InputError(where, place, f"image {name!r} not found", f"check the path; {HINT}")
    try:
        return decoded(check(read_bytes(path, MAX_BYTES)))
    except Refused as why:
        raise InputError(where, place, f"image {name!r}: {why}", HINT) from None
    except InputError as err:
        raise InputError(where, place, f"image {name!r}: {err.message}", HINT) from None
