"""Reading an untrusted report folder: one containment rule and one text decoder.

A report folder may come from anybody (auditors build folders vendors sent them). Every
file a build reads goes through :func:`inside`: it must resolve, symlinks included, to a
path inside the folder (or inside the SPC-1 catalogue, for catalogue ids). Text is decoded
by :func:`decode`: UTF-8 (with or without BOM), UTF-16 and UTF-32 with a BOM, strictly;
anything else, and a NUL character, is an error naming the line.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from pipeline.errors import InputError

OUTSIDE_HINT = "keep every file the report names inside the report folder (no links out)"
# Whole-file readers (fio JSON, IOgen and vdbench tables, narrative, TOML) refuse larger
# files up front instead of growing without bound; fio logs are streamed and not limited.
MAX_TEXT_BYTES = 512 * 1024 * 1024

# Longest BOM first: the UTF-32-LE BOM begins with the UTF-16-LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def is_inside(root: Path, path: Path) -> bool:
    """Does ``path`` resolve (symlinks included) to ``root`` or below it?"""
    return path.resolve().is_relative_to(root.resolve())


def inside(root: Path, name: str | Path, where: Path | str = "", place: str = "") -> Path:
    """``root / name`` if it resolves inside ``root``; else an error naming ``where``
    (the file that named it) and ``place`` (where in that file)."""
    path = root / name
    if not is_inside(root, path):
        raise InputError(
            where or path,
            place,
            f"{str(name)!r} points outside the report folder",
            OUTSIDE_HINT,
        )
    return path


def encoding_of(raw: bytes) -> tuple[str, int]:
    """The encoding a BOM announces (UTF-8 without one) and the BOM's length."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name, len(bom)
    return "utf-8", 0


def utf8_head(raw: bytes) -> bytes:
    """The first bytes of a file as UTF-8 (for format sniffing), whatever its BOM says."""
    name, skip = encoding_of(raw)
    if name == "utf-8":
        return raw
    return raw[skip:].decode(name, errors="ignore").encode("utf-8")


def decode(raw: bytes, path: Path | str) -> str:
    """Text of a file's bytes; bad bytes and NUL are errors naming the line."""
    name, skip = encoding_of(raw)
    try:
        text = raw[skip:].decode(name)
    except UnicodeDecodeError as exc:
        line = raw[: skip + exc.start].count(b"\n" if name == "utf-8" else "\n".encode(name)) + 1
        raise InputError(
            path,
            f"line {line}",
            f"not {name.upper()} text (byte {skip + exc.start})",
            "save the file as UTF-8",
        ) from None
    if "\0" in text:
        line = text[: text.index("\0")].count("\n") + 1
        raise InputError(path, f"line {line}", "NUL character in text", "remove it")
    return text


def read_bytes(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """A whole file, refused up front when it is larger than ``limit``."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise InputError(
                path,
                "",
                f"file too large to read whole ({size:,} bytes; the limit is {limit:,})",
                "split it into one file per run, or check that the right file is named",
            )
        return path.read_bytes()
    except OSError as exc:
        raise InputError(path, "", f"cannot read: {exc.strerror}", "check the path") from None


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    return decode(read_bytes(path, limit), path)
