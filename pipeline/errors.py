"""The user-facing error types. Only the CLI turns them into text and an exit code."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def shown(path: Path | str) -> str:
    """A path as a user can recognise it: a byte of its name that is not UTF-8 (read by
    Python as a lone surrogate, ``\udcff``) escaped as Python's backslashreplace and
    ``ls -b`` print it, ``\xff``; a name in UTF-8 unchanged. Every error prints paths so."""
    text = os.fspath(path)
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a surrogate no file system byte gives
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def is_utf8(path: Path | str) -> bool:
    """Whether every byte of ``path`` is UTF-8 (it prints as it is)."""
    return shown(path) == os.fspath(path)


@dataclass
class InputError(Exception):
    """Bad input: names the file, the place in it, what is wrong and how to fix it."""

    path: Path | str
    where: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        place = f"{shown(self.path)}: {self.where}" if self.where else shown(self.path)
        text = f"{place}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text


# Errors and rejects printed in full; the rest are counted (a folder of 100,000 bad files
# gave 200,001 lines). Every reject is in rejects.csv all the same.
SHOWN = 20


@dataclass
class InputErrors(Exception):
    """Several input errors collected before failing once."""

    errors: list[InputError]

    def __str__(self) -> str:
        if len(self.errors) == 1:  # one error is one error, without a count
            return str(self.errors[0])
        lines = [f"{len(self.errors)} input errors:"]  # two or more
        lines += [str(e) for e in self.errors[:SHOWN]]
        if len(self.errors) > SHOWN:
            lines.append(f"… and {len(self.errors) - SHOWN} more")
        return "\n".join(lines)


@dataclass
class UsageError(Exception):
    """A command asked for something iopress refuses to do (exit status 2); nothing was
    touched."""

    message: str
    hint: str = ""

    def __str__(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


@dataclass
class ToolFailure(Exception):
    """A program a build runs (Vega, pandoc) failed or died, not for anything in the input
    (exit status 1): what failed, and what to try. The earlier output stays."""

    tool: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.tool}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text


class NotFound(ValueError):
    """A reference in the user's input (a placeholder, a transcribed figure, a chart
    profile) names no value; its message says what exists. The caller knows the file and
    the place and raises the ``InputError``."""


@dataclass
class OutputError(Exception):
    """The output could not be written (disk full, a read-only or missing folder, a name
    the file system refuses, another build writing there): exit status 1, the earlier
    output kept."""

    path: Path | str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{shown(self.path)}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text
