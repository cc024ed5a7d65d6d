"""Words for people, decided now and put into a language later: a key of the locales'
``[reject]`` table and its values. The readers say why a record was rejected this way, so
that the German PDF says it in German while the CLI and ``rejects.csv`` stay English."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pipeline.language.strings import Strings
from pipeline.paths import TOOL


@dataclass(frozen=True)
class Message:
    key: str
    values: tuple[tuple[str, str], ...] = ()
    table: str = "reject"  # the locales' table of the key
    count: int | None = None  # a plural family (key.one, key.other) chosen by this number

    @classmethod
    def of(cls, key: str, **values: object) -> Message:
        """``Message.of("fio.no_io")``; values are text from the raw file, shown as read."""
        return cls(key, tuple((name, str(value)) for name, value in values.items()))

    @classmethod
    def in_table(cls, table: str, key: str, **values: object) -> Message:
        """A message of another table (``compare``'s notes on what was matched)."""
        return cls(key, tuple((name, str(value)) for name, value in values.items()), table)

    @classmethod
    def counted(cls, table: str, key: str, n: int, **values: object) -> Message:
        """A message of ``n`` things, in each language's plural form ("1 figure")."""
        said = tuple((name, str(value)) for name, value in {"n": n, **values}.items())
        return cls(key, said, table, n)

    def text(self, strings: Strings) -> str:
        if self.count is not None:
            return strings.count(f"{self.table}.{self.key}", self.count, **dict(self.values))
        return strings(f"{self.table}.{self.key}", **dict(self.values))

    def __str__(self) -> str:
        return self.text(Strings(TOOL))


def findings_count(rules: list[str], listed: Path) -> str:
    """How many validation findings a build has, by rule (one rule per finding), all of
    them in ``listed`` (validation.csv): said by the build, and again by an up-to-date
    rerun, which reads them back from that file."""
    counts = ", ".join(f"{rule} {n}" for rule, n in Counter(rules).items())
    return Strings(TOOL).count("cli.findings", len(rules), n=len(rules), rules=counts, path=listed)
