"""Reading many files on a process pool gives exactly what reading them one by one gives,
errors included, in the order of the files."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import ingest
from pipeline.errors import InputError, InputErrors
from pipeline.ingest.base import ReadOptions
from tests.conftest import DATA

FIO = DATA / "fio"


def _summary(outcome: ingest.Outcome) -> tuple[object, ...]:
    if isinstance(outcome, InputError | InputErrors):
        return ("error", str(outcome))
    return (
        outcome.records_read,
        outcome.accepted,
        [str(r) for r in outcome.rejects],
        outcome.intervals.sort(outcome.intervals.columns).rows(),
    )


def test_pool_matches_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    good = sorted(FIO.glob("*.json"))
    bad = sorted((FIO / "bad").iterdir())[:2]
    paths: list[Path] = [*good, *bad, *good]
    jobs: list[ingest.Job] = [(p, ReadOptions(label=p.name), "fio") for p in paths]
    serial = [_summary(o) for o in ingest.read_many(jobs)]
    monkeypatch.setattr(ingest, "PARALLEL_FROM", 1)
    monkeypatch.setattr(ingest, "PARALLEL_BYTES", 0)
    pooled = [_summary(o) for o in ingest.read_many(jobs)]
    assert pooled == serial
    assert [s[0] == "error" for s in serial] == [p in bad for p in paths]


def test_one_file_under_two_names_is_two_runs_of_its_points() -> None:
    """Two files that are not views of one run (no reader read one beside the other) are
    two runs: their points are refused by default, naming both; "newest" keeps the one
    listed last where a run has no fio time stamp (the copy has none: it is no file)."""
    from pipeline.dataset.assemble import combine
    from pipeline.ingest.base import ReadResult

    first = ingest.read(FIO / "jsonplus.json", ReadOptions(label="a.json"), "fio")
    assert first.frame is None and first.rows  # fio JSON gives plain rows
    again = ReadResult(
        frame=first.intervals.with_columns(source=pl.lit("b.json")),
        rejects=[],
        records_read=first.intervals.height,
        source="b.json",
    )
    for results, kept in (([first, again], "b.json"), ([again, first], "a.json")):
        first.frame = None  # plain rows again, as read
        with pytest.raises(InputErrors, match=r"measured in 2 runs, one in each of [ab].json"):
            combine(results)
        first.frame = None
        data = combine(results, rule="newest")
        assert data.intervals["source"].unique().to_list() == [kept]
        assert len(data.rejects) == first.accepted
        assert all(
            f"another run of this point than {kept}, which is listed later" in str(r)
            for r in data.rejects
        )


def test_batched_rows_give_what_each_file_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain rows of consecutive files move into shared frames (memory grows with the data,
    not the number of files): each file still has its own rows and counts, and any choice
    of files combines as without batches."""
    from pipeline.dataset.assemble import combine

    good = sorted(FIO.glob("*.json")) + sorted((DATA / "fio-sweep").glob("*/*.json"))[:20]
    jobs: list[ingest.Job] = [(p, ReadOptions(label=p.name), "fio") for p in good]
    monkeypatch.setattr(ingest, "BATCH_ROWS", 10**9)
    whole = [_result(o) for o in ingest.read_many(jobs)]
    monkeypatch.setattr(ingest, "BATCH_ROWS", 7)
    batched = [_result(o) for o in ingest.read_many(jobs)]
    assert sum(r.batch is not None for r in batched) > len({id(r.batch) for r in batched}) > 2
    assert [_summary(r) for r in batched] == [_summary(r) for r in whole]
    for chosen in (slice(None), slice(None, None, 2), slice(3, -3)):
        assert combine(batched[chosen]).intervals.equals(combine(whole[chosen]).intervals)


def _result(outcome: ingest.Outcome) -> ingest.ReadResult:
    assert isinstance(outcome, ingest.ReadResult), outcome
    return outcome


def test_a_jobs_json_beside_its_own_logs_is_read_once() -> None:
    """fio's JSON (the whole run, one interval) and the job's interval logs (one row per
    window) are one measurement: listed together, the logs' rows are rejected, every
    window, not just the one whose number the JSON's interval shares."""
    from pipeline.dataset.assemble import combine

    win = DATA / "fio-log"
    whole = ingest.read(win / "win.json", ReadOptions(root=win, label="win.json"), "fio")
    logs = [
        ingest.read(p, ReadOptions(root=win, label=p.name), "fio-log")
        for p in sorted(win.glob("win_*.log"))
    ]
    windows = sum(r.accepted for r in logs)
    assert windows > whole.accepted  # more windows than the JSON has records
    data = combine([whole, *logs])
    assert data.intervals["source"].unique().to_list() == ["win.json"]
    twice = [r for r in data.rejects if "already read from win.json" in str(r)]
    assert len(twice) == windows
    assert len(data.rejects) == windows + sum(len(r.rejects) for r in [whole, *logs])
    assert data.records_read == data.intervals.height + len(data.rejects)


def test_hosts_are_named_before_a_point_read_twice_is_looked_for() -> None:
    """fio client/server's JSON names the host ``srv:8765``, the logs' folder ``srv``:
    the same host (its one port), so the logs' rows are read twice, named by [[hosts]] or
    not; a second port on the address is another server."""
    from pipeline.dataset.assemble import combine
    from pipeline.ingest.base import ReadResult

    win = DATA / "fio-log"
    whole = ingest.read(win / "win.json", ReadOptions(root=win, label="win.json"), "fio")
    log = ingest.read(win / "win_iops.1.log", ReadOptions(root=win, label="log"), "fio-log")
    results = [
        ReadResult(
            frame=r.intervals.with_columns(host=pl.lit(host)),
            rejects=[],
            records_read=r.intervals.height,
            source=r.source,
            sidecars=r.sidecars,  # the log's JSON: one run
            path=r.path,
        )
        for r, host in ((whole, "srv:8765"), (log, "srv"))
    ]
    unnamed = combine(results)
    assert unnamed.intervals["source"].unique().to_list() == ["win.json"]
    assert unnamed.intervals["host"].unique().to_list() == ["srv:8765"]
    named = combine(results, hosts=lambda found: dict.fromkeys(found, "server one"))
    assert named.intervals["source"].unique().to_list() == ["win.json"]
    assert named.intervals["host"].unique().to_list() == ["server one"]
    two = [*results, results[0]]
    two[2] = ReadResult(
        frame=whole.intervals.with_columns(host=pl.lit("srv:8766"), source=pl.lit("b.json")),
        rejects=[],
        records_read=whole.intervals.height,
        source="b.json",
    )
    # srv:8765's logs now a host of their own beside srv:8766, another server: their 0.2 s
    # windows cannot be summed with the JSONs' whole runs (alignment.check_lengths)
    with pytest.raises(InputError, match=r"host srv:876\d's intervals last 1.001 s, host srv's"):
        combine(two)


def test_fios_last_partial_average_weighs_by_the_time_it_covers(tmp_path: Path) -> None:
    """fio ends an averaged log with an entry for the few milliseconds after the last
    window (e.g. 803 ms after 800 ms with log_avg_msec=200; window 5 of this job did no
    I/O): it counts for 3 ms, not for as much as the 200 ms entry of its window."""
    win = tmp_path / "win"
    shutil.copytree(DATA / "fio-log", win)
    before = ingest.read(win / "win_iops.1.log", ReadOptions(root=win), "fio-log").intervals
    for log in (win / "win_lat.1.log", win / "win_lat.2.log"):  # both clones of the job
        lines = log.read_text().splitlines(keepends=True)
        rows = [line.split(", ") for line in lines]
        last = {r[2]: int(r[1]) for r in rows if r[0] == "800"}  # per direction
        at = max(i for i, r in enumerate(rows) if r[0] == "800") + 1
        lines[at:at] = [f"803, {10 * v}, {d}, 0, 0\n" for d, v in last.items()]
        log.write_text("".join(lines))
    after = ingest.read(win / "win_iops.1.log", ReadOptions(root=win), "fio-log").intervals
    lat = [frame.filter(pl.col("interval") == 4)["lat_mean_us"].item() for frame in (before, after)]
    assert lat[1] == pytest.approx(lat[0] * (200 + 3 * 10) / 203, rel=1e-9)
    assert after.height == before.height  # no window of its own
