"""The arithmetic of `make bench` (benchmarks/figures.py) and its scale workload
(benchmarks/workloads.py), without timing anything."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import workloads as W

import figures as F


def test_rounds_alternate_so_neither_side_always_runs_first() -> None:
    assert F.alternate(["a", "b"], 4) == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert F.alternate(["a", "b", "c"], 2) == ["a", "b", "c", "c", "b", "a"]
    assert F.alternate(["a"], 3) == ["a", "a", "a"]
    assert F.alternate(["a", "b"], 0) == []


def test_a_spread_is_median_and_range() -> None:
    spread = F.Spread.of([3.0, 1.0, 2.0, 10.0])
    assert (spread.median, spread.low, spread.high, spread.runs) == (2.5, 1.0, 10.0, 4)
    assert spread.text() == "2.50 s (1.00–10.00, 4 runs)"
    assert F.Spread.of([0.5]).text("MB/s", 1) == "0.5 MB/s (0.5–0.5, 1 run)"
    with pytest.raises(ValueError):
        F.Spread.of([])


def test_runs_give_wall_cpu_and_the_largest_peak() -> None:
    runs = F.Runs((F.Sample(2.0, 3.0, 100.0), F.Sample(4.0, 5.0, 300.0), F.Sample(3.0, 4.0)))
    assert runs.wall.median == 3.0
    assert (runs.cpu.low, runs.cpu.high) == (3.0, 5.0)
    assert runs.rss_mb == 300.0


def test_a_ratio_compares_medians() -> None:
    ours, theirs = F.Spread.of([1.0, 2.0, 100.0]), F.Spread.of([4.0, 5.0, 6.0])
    assert F.ratio(theirs, ours) == 2.5  # an outlier moves neither median
    with pytest.raises(ValueError):
        F.ratio(theirs, F.Spread.of([0.0]))


def test_megabytes_per_cpu_second_reverse_the_range() -> None:
    rate = F.per_cpu(100.0, F.Spread.of([1.0, 2.0, 4.0]))
    assert (rate.median, rate.low, rate.high) == (50.0, 25.0, 100.0)
    with pytest.raises(ValueError):
        F.per_cpu(100.0, F.Spread.of([0.0, 1.0]))


def test_a_verdict_knows_which_way_is_better() -> None:
    assert F.verdict(1.9, 2.0, higher_is_better=False) == "holds"
    assert F.verdict(2.1, 2.0, higher_is_better=False) == "MISSED"
    assert F.verdict(300.0, 300.0, higher_is_better=True) == "holds"
    assert F.verdict(299.0, 300.0, higher_is_better=True) == "MISSED"


def _sweep(folder: Path) -> Path:
    """A sweep of two profiles, one file each, as bench-fio lays them out."""
    for profile, rw in (("4k_r100", "randread"), ("4k_r0", "randwrite")):
        (folder / profile).mkdir(parents=True)
        job = {"jobname": rw, "job options": {"rw": rw}, "read": {"iops": 1.0}}
        doc = {"fio version": "fio-3.33", "jobs": [job, dict(job, jobname="second")]}
        (folder / profile / f"{rw}-1-1.json").write_text(json.dumps(doc), encoding="utf-8")
    (folder / "SOURCE.md").write_text("not a result", encoding="utf-8")
    return folder


def test_scale_copies_the_sweep_under_new_host_names(tmp_path: Path) -> None:
    source = _sweep(tmp_path / "sweep")
    written = W.sweep_copies(tmp_path / "raw", 3, source)
    assert len(written) == 6  # every copy of every result file, nothing else
    assert len(set(written)) == 6
    for path in written:
        copy = int(path.relative_to(tmp_path / "raw").parts[0].removeprefix("h"))
        doc = json.loads(path.read_text(encoding="utf-8"))
        original = json.loads((source / path.parent.name / path.name).read_text("utf-8"))
        assert [job.pop("hostname") for job in doc["jobs"]] == [f"sweep-{copy}"] * 2
        assert doc == original  # otherwise the file is the sweep's own
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == ["h0000", "h0001", "h0002"]


@pytest.mark.skipif(not W.SWEEP.is_dir(), reason="the sweep (make fio-fixtures) is absent")
def test_fio_plot_runs_once_per_profile_from_any_folder(tmp_path: Path) -> None:
    import shlex

    import run

    venv, out = tmp_path / "a venv", tmp_path / "charts; rm -rf x"
    lines = run.fio_plot_script(venv, out).splitlines()
    assert lines[:2] == ["set -e", f"cd {shlex.quote(str(out))}"]
    commands = [shlex.split(line.removesuffix(" >/dev/null")) for line in lines[2:]]
    assert len(commands) == len(W.sweep_profiles()) == 15
    for command in commands:
        assert command[0] == str(venv / "bin" / "fio-plot")
        assert command[command.index("-o") + 1].startswith(str(out))
        mixed = command[command.index("-r") + 1] in ("randrw", "rw")
        assert ("-f" in command) == mixed
