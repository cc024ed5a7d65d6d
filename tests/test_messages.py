"""Reject reasons are language: every key a reader can give exists in both locales, and
the German PDF's reject table says in German why and where (rejects.csv stays English)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.language.fmt import Formatter
from pipeline.language.message import Message
from pipeline.language.strings import Strings, load
from pipeline.render.appendix import rejects_view
from pipeline.report.context import ReportContext
from tests.conftest import ROOT
from tests.regenerate_expected import options_for, samples

PIPELINE = ROOT / "pipeline"
# the callables that take a reject key, and the locale table each key lives in
PREFIX = {
    "Message.of": "",
    "JobError": "fio.",
    "_RowError": "iogen.",
    "_BadRecord": "vdbench.",
    "_BadTest": "crystaldiskmark.",
    "_BadRow": "iometer.",
    "_BadPhase": "elbencho.",
}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        base = _name(func.value)
        return f"{base}.{func.attr}" if base == "Message" else func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _keys(path: Path) -> list[str]:
    """``reject.<key>`` of every literal key given to a Message in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or _name(node.func) not in PREFIX:
            continue
        literals = [a.value for a in node.args if isinstance(a, ast.Constant)]
        strings = [v for v in literals if isinstance(v, str)]
        if strings:  # _RowError(column, key): the key is the last literal
            found.append(f"reject.{PREFIX[_name(node.func)]}{strings[-1]}")
    return found


SOURCES = sorted(p for p in PIPELINE.rglob("*.py") if "Message" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reject_key_in_the_code_exists_in_both_languages(path: Path) -> None:
    keys = _keys(path)
    for lang in ("en", "de"):
        missing = [k for k in keys if k not in load(lang)]
        assert missing == [], f"locales/{lang}.toml lacks {missing}"


def test_every_reject_key_is_used() -> None:
    """Given to a Message, or (iogen's value checks) a literal the reader returns."""
    given = {k for path in SOURCES for k in _keys(path)}
    literals = {
        f"reject.iogen.{node.value}"
        for node in ast.walk(ast.parse((PIPELINE / "ingest" / "iogen.py").read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert (
        sorted(k for k in load("en") if k.startswith("reject.") and k not in given | literals) == []
    )


def test_reject_tables_of_both_languages_have_the_same_keys() -> None:
    en = {k for k in load("en") if k.startswith("reject.")}
    de = {k for k in load("de") if k.startswith("reject.")}
    assert en == de and len(en) > 40


def _sample_rejects() -> list[ingest.base.Reject]:
    found = []
    for fmt in ingest.names():
        for sample in samples(fmt, False):
            found += ingest.read(sample, options_for(sample), fmt).rejects
    return found


def test_every_sample_reject_reads_in_german() -> None:
    rejects = _sample_rejects()
    assert len({r.reason.key for r in rejects}) >= 8  # the samples cover many reasons
    de, en = Strings("de"), Strings("en")
    for reject in rejects:
        assert reject.reason.text(de) != reject.reason.text(en), reject
        assert reject.where.text(de) != reject.where.text(en) or "line" not in str(reject.where)


def test_german_reject_table(fs840_context: ReportContext) -> None:
    rejects = _sample_rejects()
    dataset = combine([], [])
    dataset.rejects.extend(rejects)
    ctx = dataclasses.replace(fs840_context, dataset=dataset)
    view = rejects_view(ctx, Formatter(Strings("de")))
    text = " ".join(span.text for row in view.rows for cell in row for span in cell)
    assert "Zeile" in text and "ist keine Zahl" in text
    for english in ("line ", "is not a number", "must be"):
        assert english not in text
    csv = ctx.dataset.rejects_frame()
    assert csv["reason"].to_list() == [str(r.reason) for r in rejects]
    assert str(Message.of("iogen.host_empty")) == "host is empty"
