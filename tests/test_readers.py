"""The readers' contract (``ingest.base.Reader``): the registry holds everything the
rest of the code knows of a format, and no module above names one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.config import Source
from pipeline.errors import InputError
from pipeline.ingest.base import ReadOptions

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"
# the chain and the rules over any format's data
FORMAT_BLIND = ("build.py", "prepare.py", "publish.py", "validate.py", "normalise.py")


@pytest.mark.parametrize("name", FORMAT_BLIND)
def test_no_format_is_named(name: str) -> None:
    names = {reader.NAME for reader in ingest.FORMATS}
    tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
    found = [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert not found, f"{name} names a format: {found}"


@pytest.mark.parametrize("reader", ingest.FORMATS, ids=lambda r: r.NAME)
def test_a_readers_options_are_keys_of_a_source(reader: ingest.Reader) -> None:
    for key, model in reader.OPTIONS.items():
        assert Source.model_fields[key].annotation == model | None, (reader.NAME, key)


def test_an_empty_file_is_read_by_the_reader_that_expects_it(tmp_path: Path) -> None:
    log = tmp_path / "run_slat.1.log"
    log.touch()
    assert ingest.read(log, ReadOptions()).format == "fio-log"
    other = tmp_path / "run.json"
    other.touch()
    with pytest.raises(InputError, match="empty"):
        ingest.read(other, ReadOptions())
