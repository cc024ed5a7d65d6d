"""Rewrite the expected outputs of the ingest samples in tests/data/<format>/.

    .venv/bin/python -m tests.regenerate_expected

Only after an intended change (e.g. a schema version): review ``git diff tests/data``
line by line before committing — these files are the reviewed truth of the readers.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pipeline import ingest
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions
from pipeline.ingest.iogen import ColumnMapping

DATA = Path(__file__).resolve().parent / "data"
SAMPLE_SUFFIXES = {
    "iogen": (".csv",),
    "fio": (".json", ".txt"),
    "vdbench": (".html",),
    "fio-log": (".log",),
    "diskspd": (".txt", ".xml"),
    "crystaldiskmark": (".txt",),
    "iometer": (".csv",),
    "elbencho": (".csv", ".json", ".txt"),
}
EXPECTED_MARKERS = (".expected.", ".rejects.", "SOURCE")


def is_sample(path: Path, fmt: str) -> bool:
    return path.suffix in SAMPLE_SUFFIXES[fmt] and not any(m in path.name for m in EXPECTED_MARKERS)


def samples(fmt: str, bad: bool) -> list[Path]:
    """The format's samples: files in tests/data/<fmt>/, or anywhere below its bad/."""
    folder = DATA / fmt
    found = (folder / "bad").rglob("*") if bad else folder.iterdir() if folder.is_dir() else []
    return sorted(p for p in found if p.is_file() and is_sample(p, fmt))


def options_for(path: Path) -> ReadOptions:
    """The sample's column mapping (``<sample>.toml`` beside it), where it has one."""
    mapping_file = path.with_suffix(".toml")
    if not mapping_file.exists():
        return ReadOptions(system="S")
    mapping = ColumnMapping.model_validate(tomllib.loads(mapping_file.read_text()))
    return ReadOptions(system="S", options={"mapping": mapping})


def expected_paths(path: Path) -> tuple[Path, Path, Path]:
    stem = path.name.rsplit(".", 1)[0]
    return (
        path.with_name(f"{stem}.expected.csv"),
        path.with_name(f"{stem}.rejects.txt"),
        path.with_name(f"{stem}.expected.txt"),
    )


def regenerate(fmt: str, sample: Path) -> None:
    rows, rejects, message = expected_paths(sample)
    for stale in (rows, rejects, message):
        stale.unlink(missing_ok=True)
    try:
        result = ingest.read(Path(sample.name), options_for(sample), fmt)
    except (InputError, InputErrors) as err:
        message.write_text(f"{err}\n")
        return
    result.intervals.write_csv(rows)
    lines = [str(r) for r in result.rejects] + [f"note: {n}" for n in result.notes]
    if lines:
        rejects.write_text("".join(f"{line}\n" for line in lines))


def main() -> None:
    import os

    for fmt in ingest.names():
        for sample in samples(fmt, bad=False) + samples(fmt, bad=True):
            os.chdir(sample.parent)
            regenerate(fmt, sample)
            print(f"regenerated {sample.relative_to(DATA)}")


if __name__ == "__main__":
    main()
