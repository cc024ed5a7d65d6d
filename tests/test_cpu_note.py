"""What a table's CPU figure is. fio's usr_cpu + sys_cpu of a group of jobs is the mean of
one worker's CPU time in % of one core (99.5 % at 1 job, 12 % at 16 on a two-core machine
that 16 workers kept busy), not the load of the server the note said it was."""

from __future__ import annotations

from pipeline.prepare import prepare
from pipeline.report.views import cpu_notes
from tests.conftest import DATA, FS840

MIXED = DATA / "reports" / "mixed"


def test_fio_s_cpu_figure_is_said_to_be_one_worker_s() -> None:
    ctx = prepare(DATA / "fio-levels" / "qd")
    assert ctx.formatter("en").cpu_tools == {"fio"}
    for lang, words in (
        ("en", ("one of fio's workers", "% of one core", "not the load of the servers")),
        ("de", ("eines der fio-Worker", "% eines Kerns", "nicht die Belastung der Server")),
    ):
        [note] = cpu_notes(ctx.formatter(lang))
        assert all(w in note for w in words), note


def test_the_servers_load_keeps_its_note_and_a_mix_gets_both() -> None:
    plain = cpu_notes(prepare(FS840).formatter("en"))
    assert plain == [
        "CPU: the mean CPU load of the servers that generated the load, while the point was "
        "measured."
    ]
    mixed = prepare(MIXED)
    tools = mixed.formatter("en").cpu_tools
    notes = cpu_notes(mixed.formatter("en"))
    assert ("fio" in tools) == any("fio's workers" in n for n in notes)
    assert bool(tools - {"fio"}) == any("load of the servers that generated" in n for n in notes)
