"""What a table's CPU figure is. fio's usr_cpu + sys_cpu of a group of jobs is the mean of
one worker's CPU time in % of one core (99.5 % at 1 job, 12 % at 16 on a two-core machine
that 16 workers kept busy), not the load of the server the note said it was."""

from __future__ import annotations

import polars as pl

from pipeline.compute.tables import PROFILE, performance
from pipeline.prepare import prepare
from pipeline.report.views import _has_cpu, cpu_notes
from tests.conftest import DATA, FS840

MIXED = DATA / "reports" / "mixed"


def test_fio_s_cpu_figure_is_said_to_be_one_worker_s() -> None:
    ctx = prepare(DATA / "fio-levels" / "qd")
    assert set().union(*ctx.formatter("en").cpu_tools.values()) == {"fio"}
    perf = performance(ctx.dataset.points)
    for lang, words in (
        ("en", ("one of fio's workers", "% of one core", "not the load of the servers")),
        ("de", ("eines der fio-Worker", "% eines Kerns", "nicht die Belastung der Server")),
    ):
        [note] = cpu_notes(ctx.formatter(lang), perf)
        assert all(w in note for w in words), note


def test_the_servers_load_keeps_its_note_and_a_mix_gets_both() -> None:
    fs840 = prepare(FS840)
    plain = cpu_notes(fs840.formatter("en"), performance(fs840.dataset.points))
    assert plain == [
        "CPU: the mean CPU load of the servers that generated the load, while the point was "
        "measured."
    ]
    mixed = prepare(MIXED)
    notes = cpu_notes(mixed.formatter("en"), performance(mixed.dataset.points))
    assert any("fio's workers" in n for n in notes)
    assert any("load of the servers that generated" in n for n in notes)


def test_a_table_gets_the_note_of_its_own_tools() -> None:
    """In a report of IOgen, vdbench and fio, a table of IOgen's profiles says nothing of
    fio's workers, and one of fio's profile nothing of the servers' load."""
    mixed = prepare(MIXED)
    points, fmt = mixed.dataset.points, mixed.formatter("en")
    for tool, said, unsaid in (
        ("iogen", "load of the servers that generated", "fio's workers"),
        ("fio", "fio's workers", "load of the servers that generated"),
    ):
        mine = points.join(
            points.filter(pl.col("tool") == tool).select(PROFILE).unique(),
            on=PROFILE,
            nulls_equal=True,
        )
        assert mine.height and _has_cpu(mine)
        notes = " ".join(cpu_notes(fmt, performance(mine)))
        assert said in notes and unsaid not in notes, (tool, notes)


def test_a_load_under_half_a_percent_is_not_printed_as_zero() -> None:
    """fio's worker of a sweep used 0.13 % of a core: "CPU 0 %" read as no load at all."""
    from pipeline.language import Formatter
    from pipeline.language.strings import Strings
    from pipeline.report.views import cpu

    fmt = Formatter(Strings("en"))
    shown = [cpu(fmt, x) for x in (0.0, 0.13, 0.04, 0.0004, 0.5, 32.3)]
    assert shown == ["0", "0.1", "0.04", "0.000", "1", "32"]
