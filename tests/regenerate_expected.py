"""Rewrite the expected outputs of the ingest samples in tests/data/<format>/.

    .venv/bin/python -m tests.regenerate_expected

Only after an intended change (e.g. a schema version): review ``git diff tests/data``
line by line before committing — these files are the reviewed truth of the readers.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pipeline import ingest
from pipeline.config import ColumnMapping
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions

DATA = Path(__file__).resolve().parent / "data"
SAMPLE_SUFFIXES = (".csv", ".json", ".txt", ".log", ".html")
EXPECTED_MARKERS = (".expected.", ".rejects.", "SOURCE")


def is_sample(path: Path) -> bool:
    return path.suffix in SAMPLE_SUFFIXES and not any(m in path.name for m in EXPECTED_MARKERS)


def options_for(path: Path) -> ReadOptions:
    mapping_file = path.with_suffix(".toml")
    mapping = ColumnMapping()
    if mapping_file.exists():
        mapping = ColumnMapping.model_validate(tomllib.loads(mapping_file.read_text()))
    return ReadOptions(system="S", mapping=mapping)


def expected_paths(path: Path) -> tuple[Path, Path, Path]:
    stem = path.name.rsplit(".", 1)[0]
    return (
        path.with_name(f"{stem}.expected.csv"),
        path.with_name(f"{stem}.rejects.txt"),
        path.with_name(f"{stem}.expected.txt"),
    )


def regenerate(fmt: str, sample: Path) -> None:
    rows, rejects, message = expected_paths(sample)
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
        folder = DATA / fmt
        for sub in (folder, folder / "bad"):
            if not sub.is_dir():
                continue
            os.chdir(sub)
            for sample in sorted(p for p in sub.iterdir() if is_sample(p)):
                regenerate(fmt, sample)
                print(f"regenerated {sample.relative_to(DATA)}")


if __name__ == "__main__":
    main()
