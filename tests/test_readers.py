"""The readers' contract (``ingest.base.Reader``): the registry holds everything the
rest of the code knows of a format, and no module above names one."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest
from pydantic import BaseModel

from pipeline import ingest
from pipeline.config import Source
from pipeline.dataset.sources import reader_options
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


def _source_model() -> type[BaseModel]:
    """The model of a report.toml source, with the readers' options (``ingest.REPORT``)."""
    (source,) = get_args(ingest.REPORT.model_fields["sources"].annotation)
    assert isinstance(source, type) and issubclass(source, Source)
    return source


@pytest.mark.parametrize("reader", ingest.FORMATS, ids=lambda r: r.NAME)
def test_a_readers_options_are_keys_of_a_source(reader: ingest.Reader) -> None:
    for key, model in reader.OPTIONS.items():
        assert _source_model().model_fields[key].annotation == model | None, (reader.NAME, key)
        assert key not in Source.model_fields  # config declares no reader's option


@pytest.mark.parametrize("reader", ingest.FORMATS, ids=lambda r: r.NAME)
def test_a_reader_declares_its_options_models(reader: ingest.Reader) -> None:
    """ColumnMapping and FioParams lived in config.py, which then knew IOgen's columns and
    fio's job options; each reader's module declares its options' models now."""
    config = (PACKAGE / "config.py").read_text(encoding="utf-8")
    for model in reader.OPTIONS.values():
        assert model.__module__ == reader.__name__, (reader.NAME, model)  # type: ignore[attr-defined]
        assert model.__name__ not in config, model


def test_an_option_for_another_reader_is_noted(tmp_path: Path) -> None:
    """Given to a reader that does not read it, an option is said to be unused (a column
    mapping given to another reader was ignored without a word)."""
    mapping = reader_options({"mapping": {"delimiter": ","}})
    log = tmp_path / "run_slat.1.log"
    log.touch()
    notes = ingest.read(log, ReadOptions(options=mapping)).notes
    assert "[sources.mapping] not used: they describe iogen output, this is fio-log output" in notes


def test_an_empty_file_is_read_by_the_reader_that_expects_it(tmp_path: Path) -> None:
    log = tmp_path / "run_slat.1.log"
    log.touch()
    assert ingest.read(log, ReadOptions()).format == "fio-log"
    other = tmp_path / "run.json"
    other.touch()
    with pytest.raises(InputError, match="empty"):
        ingest.read(other, ReadOptions())
