"""Small PNG and JPEG images made by the tests themselves (no image library, no binary
files in the repository): one colour, any size.

``jpeg`` writes a baseline JPEG whose every 8 × 8 block is one colour, so only the DC
coefficients are coded (quantisation 1, a two-code DC table and an end-of-block AC one).
"""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload)
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def png(width: int, height: int, rgb: tuple[int, int, int] = (40, 120, 200)) -> bytes:
    """A truecolour PNG of one colour, with a text chunk (metadata iopress leaves out)."""
    row = b"\0" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"tEXt", b"Comment\0made by the tests")
        + _chunk(b"IDAT", zlib.compress(row * height, 9))
        + _chunk(b"IEND", b"")
    )


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` × ``height`` pixels over a few bytes of data (a
    decompression bomb's header: nothing in it is ever inflated)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + _chunk(b"IEND", b"")
    )


class _Bits:
    def __init__(self) -> None:
        self.bits: list[int] = []

    def put(self, value: int, n: int) -> None:
        self.bits += [(value >> (n - 1 - i)) & 1 for i in range(n)]

    def bytes(self) -> bytes:
        bits = self.bits + [1] * (-len(self.bits) % 8)
        out = bytearray()
        for i in range(0, len(bits), 8):
            byte = int("".join(map(str, bits[i : i + 8])), 2)
            out += b"\xff\x00" if byte == 0xFF else bytes((byte,))
        return bytes(out)


def _category(value: int) -> int:
    return abs(value).bit_length()


def jpeg(width: int, height: int, ycc: tuple[int, int, int] = (90, 150, 110)) -> bytes:
    """A baseline JPEG of one colour (Y, Cb, Cr), with an EXIF segment and a comment."""
    dcs = [8 * (v - 128) for v in ycc]  # a flat block's DC coefficient at quantisation 1
    cats = sorted({_category(d) for d in dcs} | {0})
    codes = {c: i for i, c in enumerate(cats)}  # DC codes: length 2 ("00", "01", …)
    bits = _Bits()
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    for index in range(blocks):
        for dc in dcs:
            diff = dc if index == 0 else 0
            cat = _category(diff)
            bits.put(codes[cat], 2)
            if cat:
                bits.put(diff if diff > 0 else diff - 1 + (1 << cat), cat)
            bits.put(0, 1)  # end of block: AC code "0"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + b"\x01" * 64
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3)
    sof += b"".join(bytes((i + 1, 0x11, 0)) for i in range(3))
    dc_counts = bytes([0, len(cats)] + [0] * 14)
    dht = b"\x00" + dc_counts + bytes(cats) + b"\x10" + bytes([1] + [0] * 15) + b"\x00"
    dht = b"\xff\xc4" + struct.pack(">H", 2 + len(dht)) + dht
    sos = b"\xff\xda" + struct.pack(">HB", 12, 3) + b"\x01\x00\x02\x00\x03\x00" + b"\x00\x3f\x00"
    exif = b"Exif\0\0MM\0*\0\0\0\x08\0\0\0\0\0\0"
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + len(exif)) + exif
    com = b"\xff\xfe" + struct.pack(">H", 2 + 11) + b"test photo!"
    jfif = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return b"\xff\xd8" + jfif + app1 + com + dqt + sof + dht + sos + bits.bytes() + b"\xff\xd9"
