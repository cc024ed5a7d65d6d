"""fio specifics, asserted directly against fio's own JSON (beyond the golden samples)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import ingest
from pipeline.dataset.assemble import combine
from pipeline.errors import InputError
from pipeline.ingest import fio
from pipeline.ingest.base import ReadOptions
from pipeline.ingest.fio_log import FioParams
from pipeline.language import Formatter, Strings
from pipeline.normalise import to_points
from pipeline.validate import agreement, message
from tests.conftest import DATA
from tests.test_validate import REPORT

SAMPLES = DATA / "fio"


def _job(name: str) -> dict[str, Any]:
    doc = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    job: dict[str, Any] = doc["jobs"][0]
    return job


def test_percentiles_and_max_from_fio_3_clat_ns() -> None:
    result = ingest.read(SAMPLES / "jsonplus.json", ReadOptions())
    row = result.intervals.row(0, named=True)
    clat = _job("jsonplus.json")["read"]["clat_ns"]
    assert row["lat_p99_us"] == pytest.approx(clat["percentile"]["99.000000"] / 1000)
    assert row["lat_p9999_us"] == pytest.approx(clat["percentile"]["99.990000"] / 1000)
    lat = _job("jsonplus.json")["read"]["lat_ns"]
    assert row["lat_max_us"] == pytest.approx(lat["max"] / 1000)
    assert row["lat_mean_us"] == pytest.approx(lat["mean"] / 1000)


def test_mixed_job_weights_directions_by_ios_and_has_no_percentiles() -> None:
    row = ingest.read(SAMPLES / "randrw_group.json", ReadOptions()).intervals.row(0, named=True)
    job = _job("randrw_group.json")
    r, w = job["read"], job["write"]
    expected = (r["total_ios"] * r["lat_ns"]["mean"] + w["total_ios"] * w["lat_ns"]["mean"]) / (
        (r["total_ios"] + w["total_ios"]) * 1000
    )
    assert row["lat_mean_us"] == pytest.approx(expected)
    assert (row["read_pct"], row["parallelism"], row["queue_depth"]) == (70.0, 2, 4)
    assert row["lat_p99_us"] is None


def test_status_interval_snapshots_become_intervals() -> None:
    """Each --status-interval snapshot is cumulative: intervals are their differences, and
    the point (time-weighted over the intervals) equals fio's final cumulative figure."""
    text = (SAMPLES / "status_interval.json").read_text(encoding="utf-8")
    last = json.loads(text[text.rindex("\n{") + 1 :])
    result = ingest.read(SAMPLES / "status_interval.json", ReadOptions())
    rows = result.intervals
    assert rows["interval"].to_list() == [1, 2, 3]
    final = last["jobs"][0]["write"]
    assert rows["interval_s"].sum() == pytest.approx(final["runtime"] / 1000)
    ios = (rows["iops"] * rows["interval_s"]).sum()
    assert ios == pytest.approx(final["total_ios"], rel=1e-9)
    point = to_points(rows)
    assert point["iops"][0] == pytest.approx(final["iops"], rel=1e-6)
    assert point["lat_mean_us"][0] == pytest.approx(final["lat_ns"]["mean"] / 1000, rel=1e-6)
    assert any("differences between consecutive snapshots" in n for n in result.notes)


@pytest.mark.parametrize("name", ["status_interval.json", "jsonplus.json"])
def test_text_after_the_json_is_noted_as_text_before_it_is(tmp_path: Path, name: str) -> None:
    """fio's warnings (or a shell's output) after the JSON are skipped with a note naming
    their lines, as text before it is; blank lines after it are no note."""
    text = (SAMPLES / name).read_text(encoding="utf-8").rstrip("\n") + "\n"
    lines = text.count("\n")
    after = tmp_path / "after.json"
    after.write_text(text + "".join(f"fio: warning {i}\n" for i in range(75)), encoding="utf-8")
    both = tmp_path / "both.json"
    both.write_text("fio-3.33\n" + text + "\nDone.\n", encoding="utf-8")
    blank = tmp_path / "blank.json"
    blank.write_text(text + "\n\n  \n", encoding="utf-8")
    plain = ingest.read(SAMPLES / name, ReadOptions())
    noted = ingest.read(after, ReadOptions())
    assert f"text after the JSON (lines {lines + 1}-{lines + 75}) skipped" in noted.notes
    assert noted.intervals.equals(plain.intervals.with_columns(source=noted.intervals["source"]))
    notes = ingest.read(both, ReadOptions()).notes
    assert "text before the JSON (line 1) skipped" in notes  # not "lines 1-1"
    assert f"text after the JSON (line {lines + 3}) skipped" in notes
    assert not [n for n in ingest.read(blank, ReadOptions()).notes if "text" in n]


def _final(name: str) -> dict[str, Any]:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    final: dict[str, Any] = json.loads(text[text.rindex("\n{") + 1 :])
    return final


@pytest.mark.parametrize(
    ("name", "side", "ramp", "count"),
    [
        ("ramp_status.json", "read", 1, 4),  # the ramp's snapshot has less run time: no drop
        ("ramp_status_plus.json", "write", 2, 4),  # json+, the run time goes down
        ("layout_status.json", "read", 6, 3),  # a new 2 GiB file: 6 snapshots of layout
    ],
)
def test_snapshots_before_fio_restarts_are_not_data_and_the_point_is_fios_final(
    name: str, side: str, ramp: int, count: int
) -> None:
    """fio starts its counters again when ramp_time ends, or when it has laid out a new
    file: from there the snapshots are differenced anew, those before are rejected (not
    measured), and the point equals fio's final cumulative figures."""
    result = ingest.read(SAMPLES / name, ReadOptions())
    final = _final(name)["jobs"][0][side]
    point = to_points(result.intervals)
    assert point["iops"][0] == pytest.approx(final["iops"], rel=1e-6)
    assert point["lat_mean_us"][0] == pytest.approx(final["lat_ns"]["mean"] / 1000, rel=1e-6)
    assert result.intervals["interval_s"].sum() == pytest.approx(final["runtime"] / 1000)
    assert [str(r.reason).split(" (")[0] for r in result.rejects] == [
        "before fio started the job's counters again"
    ] * ramp
    assert result.intervals["interval"].to_list() == list(range(1, count + 1))


@pytest.mark.parametrize("factor", [1.0, 1.03])
def test_status_snapshots_are_compared_with_fios_final_record(
    tmp_path: Path, factor: float
) -> None:
    """The intervals of --status-interval output add up to fio's final record; where they
    do not (here: the final IOPS edited 3 % up), a validation warning names the file."""
    text = (SAMPLES / "status_interval.json").read_text(encoding="utf-8")
    start = text.rindex("\n{") + 1
    final = json.loads(text[start:])
    final["jobs"][0]["write"]["iops"] *= factor
    path = tmp_path / "status.json"
    path.write_text(text[:start] + json.dumps(final, indent=1), encoding="utf-8")
    found = agreement(combine([ingest.read(path, ReadOptions())]), REPORT)
    assert [(p.values["ours"], p.values["theirs"]) for p in found] == (
        [("status.json", "status.json")] if factor > 1 else []
    )
    if found:  # the final record's line; a null engine's latencies in two digits, not 0.0
        (problem,) = found
        assert problem.values["line"] > text[:start].count("\n")  # in the final document
        said = message(problem, Formatter(Strings("en")))
        assert " at 0.0 µs" not in said and re.search(r" at 0\.0\d+ µs", said), said


@pytest.mark.parametrize(
    ("name", "side"), [("ramp_status.json", "read"), ("layout_status.json", "read")]
)
def test_a_status_interval_point_has_fios_whole_run_percentiles(name: str, side: str) -> None:
    """Percentiles cannot be subtracted: the intervals of --status-interval output have
    none, and the point takes those of fio's final record (clat, the whole run)."""
    data = combine([ingest.read(SAMPLES / name, ReadOptions())])
    assert data.intervals["lat_p99_us"].null_count() == data.intervals.height
    table = _final(name)["jobs"][0][side]["clat_ns"]["percentile"]
    point = data.points.row(0, named=True)
    for column, key in (("lat_p50_us", "50.000000"), ("lat_p99_us", "99.000000")):
        assert point[column] == pytest.approx(table[key] / 1000, rel=1e-9)
    assert point["lat_p9999_us"] == pytest.approx(table["99.990000"] / 1000, rel=1e-9)


def test_startdelay_restarts_a_job_and_an_ended_job_is_idle() -> None:
    """Two jobs of one profile, the second with startdelay=2: its counters start again
    when the delay is over (its run time goes down), the first job's last snapshots add
    nothing (it had ended). Each job's intervals add up to its final record."""
    result = ingest.read(SAMPLES / "startdelay_status.json", ReadOptions())
    reasons = [(r.where.values[0][1], str(r.reason)[:20]) for r in result.rejects]
    assert reasons == [
        ("jobs[1]", "before fio started t"),
        ("jobs[1]", "before fio started t"),
        ("jobs[0]", "no run time and no I"),
        ("jobs[0]", "no run time and no I"),
    ]
    jobs = _final("startdelay_status.json")["jobs"]
    ios = (result.intervals["iops"] * result.intervals["interval_s"]).sum()
    assert ios == pytest.approx(sum(j["read"]["total_ios"] for j in jobs))


def test_trim_is_rejected_with_reason() -> None:
    result = ingest.read(SAMPLES / "trim.json", ReadOptions())
    assert result.accepted == 0 and len(result.rejects) == 1
    assert "trim jobs are not supported" in str(result.rejects[0].reason)


def test_sniff() -> None:
    assert fio.sniff((SAMPLES / "preamble.txt").read_bytes())
    assert fio.sniff(b'{\n  "fio version" : "fio-3.33",')
    assert not fio.sniff(b"host;block_size;access\n")


CORPUS = DATA.parents[2] / "shared" / "corpus"
FIO_JSON = sorted(
    p
    for folder in ("fio", "fio-truth", "pts")
    for p in (DATA / folder).rglob("*.json")
    if "bad" not in p.parts
) + sorted(
    p for pattern in ("*.json", "fio-result.txt") for p in CORPUS.rglob(pattern)
)  # the corpus is optional: absent, the list is shorter


def _outcome(path: Path) -> object:
    try:
        result = ingest.read(path, ReadOptions(root=path.parent))
    except Exception as exc:  # the same refusal either way
        return type(exc).__name__, str(exc)
    rows = result.intervals.to_dicts() if not result.intervals.is_empty() else []
    return rows, [str(r) for r in result.rejects], result.notes, result.records_read


@pytest.mark.parametrize("path", FIO_JSON, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_typed_fast_path_reads_what_the_full_parse_reads(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The typed decoder names only the fields iopress reads; with it forced off (every
    file parsed in full, as a hand-edited file is), every row, reject and note is the same."""
    fast = _outcome(path)

    def refuse(_: str) -> None:
        raise msgspec.ValidationError("forced")

    monkeypatch.setattr(fio, "_TYPED", SimpleNamespace(decode=refuse))
    assert _outcome(path) == fast


@pytest.mark.parametrize(
    ("where", "value", "named"),
    [
        (("read", "iops"), "1e999", "read.iops"),
        (("read", "lat_ns", "mean"), "true", "read.lat_ns.mean"),
        (("read", "lat_ns", "max"), "NaN", "read.max"),
        (("read", "clat_ns", "percentile", "99.000000"), "-Infinity", "read.percentile.99"),
        (("read", "clat_ns", "percentile", "50.000000"), '"12"', "read.percentile.50"),
    ],
)
def test_a_field_that_is_not_a_finite_number_rejects_its_record(
    tmp_path: Path, where: tuple[str, ...], value: str, named: str
) -> None:
    """Whatever path the file takes (typed decoding, full parse, Python's JSON for NaN),
    a field iopress reads that is not a finite number rejects the record and names it."""
    doc = json.loads((SAMPLES / "jsonplus.json").read_text(encoding="utf-8"))
    target = doc["jobs"][0]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = "@@"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc, indent=1).replace('"@@"', value), encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert result.accepted == 0 and len(result.rejects) == 1
    reason = str(result.rejects[0].reason)
    assert f"{named} is " in reason and "not a number" in reason, reason


def _edited(tmp_path: Path, sample: str, change: Callable[[dict[str, Any]], None]) -> Path:
    doc = json.loads((SAMPLES / sample).read_text(encoding="utf-8"))
    change(doc["jobs"][0])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda j: j.update(error=5), "fio reports error 5 for this job"),
        (lambda j: j["read"].update(runtime=0), "runtime is 0"),
        (lambda j: j["read"].update(iops=1e308), "read.iops is 1e+308: larger than any"),
        (lambda j: j["read"].update(bw_bytes=10**300), "read.bw_bytes is 1e+300: larger"),
    ],
    ids=["error", "runtime_0", "iops_1e308", "bw_huge_int"],
)
def test_a_failed_or_impossible_job_is_rejected_with_its_reason(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], reason: str
) -> None:
    """A job fio says failed ("error": errno), ran no time, or whose figures are beyond
    any device (hand-edited) is no measurement: rejected, the field named."""
    result = ingest.read(_edited(tmp_path, "jsonplus.json", change), ReadOptions())
    assert result.accepted == 0 and len(result.rejects) == 1
    assert reason in str(result.rejects[0].reason), result.rejects[0].reason


@pytest.mark.parametrize(
    ("sample", "field", "value"),
    [
        ("jsonplus.json", "jobname", r"a\u001b[31mb"),
        ("jsonplus.json", "hostname", r"host\u0000"),
        ("status_interval.json", "jobname", r"live\u0085"),
    ],
)
def test_a_control_character_in_fios_text_is_an_input_error(
    tmp_path: Path, sample: str, field: str, value: str
) -> None:
    """Decoded from JSON escapes, a control character would reach the report and the
    terminal: the file is refused, naming the JSON path (in every snapshot)."""
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    name = text[text.index('"jobname"') : text.index(",", text.index('"jobname"')) + 1]
    own = f'"{field}" : "{value}",'  # in the first (or only) document
    text = text.replace(name, own if field == "jobname" else name + own, 1)
    path = tmp_path / "edited.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        ingest.read(path, ReadOptions())
    assert err.value.path == path and f"jobs[0].{field} (JSON document at line 1)" in str(err.value)
    assert "control character" in str(err.value)


@pytest.mark.parametrize(("raw", "shown"), [("\x7f", "\\x7f"), ("\u202e", "\\u202e")])
def test_a_control_character_written_raw_is_an_input_error(
    tmp_path: Path, raw: str, shown: str
) -> None:
    """DEL is ASCII and JSON allows it raw in a string, as it does a bidi override:
    written as they are, not escaped, they are found as well."""
    doc = json.loads((SAMPLES / "jsonplus.json").read_text(encoding="utf-8"))
    doc["jobs"][0]["hostname"] = f"host{raw}"
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        ingest.read(path, ReadOptions())
    assert "jobs[0].hostname (JSON document at line 1)" in str(err.value)
    assert f"control character '{shown}'" in str(err.value)


@pytest.mark.parametrize("first", [0, 1, 2])
def test_option_values_equal_as_keys_but_not_as_text_are_told_apart(
    tmp_path: Path, first: int
) -> None:
    """Records of one job share their resolved profile, but only when their options read
    the same: numjobs 3 and 3.0 (or iodepth 1 and true) are one dictionary key in Python
    and a valid and an invalid option in fio. Whatever the order, the same records pass."""
    doc = json.loads((SAMPLES / "per_job.json").read_text(encoding="utf-8"))
    values: list[object] = [3.0, 3.0, 3.0]
    values[first] = 3
    for job, value in zip(doc["jobs"], values, strict=True):
        job["job options"]["numjobs"] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = ingest.read(path, ReadOptions())
    assert result.accepted == 1 and len(result.rejects) == 2
    assert all("'3.0'" in str(r.reason) for r in result.rejects)


PER_JOB_KEYS = [13, 260, 507]  # the lines of per_job.json's three "jobname" keys


def _lines(path: Path) -> list[int]:
    return ingest.read(path, ReadOptions()).intervals["line"].to_list()


def test_each_record_has_the_line_of_its_jobname() -> None:
    text = (SAMPLES / "per_job.json").read_text(encoding="utf-8").splitlines()
    assert all(text[n - 1].strip().startswith('"jobname"') for n in PER_JOB_KEYS)
    assert _lines(SAMPLES / "per_job.json") == PER_JOB_KEYS


@pytest.mark.parametrize("missing", [0, 1, 2])
def test_a_record_without_jobname_moves_no_other_records_line(tmp_path: Path, missing: int) -> None:
    """The records are found by their "jobname" keys; one without has its opening brace's
    line (the line above, in fio's layout), and the others keep their own."""
    text = (SAMPLES / "per_job.json").read_text(encoding="utf-8").splitlines(keepends=True)
    del text[PER_JOB_KEYS[missing] - 1]
    path = tmp_path / "edited.json"
    path.write_text("".join(text), encoding="utf-8")
    expected = [n - (i > missing) for i, n in enumerate(PER_JOB_KEYS)]
    expected[missing] = PER_JOB_KEYS[missing] - 1
    assert _lines(path) == expected


def test_a_jobname_that_is_a_value_is_not_taken_for_a_record(tmp_path: Path) -> None:
    """Then the records are found by the JSON's nesting: brackets in a string are text."""
    text = (SAMPLES / "per_job.json").read_text(encoding="utf-8").splitlines(keepends=True)
    text[18:18] = ['        "description" : "jobname",\n', '        "x" : "] }, {[ \\" ]",\n']
    path = tmp_path / "edited.json"
    path.write_text("".join(text), encoding="utf-8")
    assert _lines(path) == [13, 262, 509]


DEEP = '{"jobs": [{"x": ' + "[" * 994 + "]" * 994 + '}, {"g": 1}]}'


@pytest.mark.parametrize(
    ("text", "lines"),
    [  # hand-edited JSON (a review's finds): each record keeps the line of its own key
        (
            '{"jobs": [\n{"jobname": "a",\n "job options": {"jobname": "a"}},'
            '\n{\n"jobname": "a"}\n]}',
            [2, 5],
        ),
        ('{"other": [{"jobname": "a"}],\n"jobs": [\n{"g": 1,\n"jobname": "a"}]}', [4]),
        ('{"jobs": [\n{"job options":\n {"jobname": "x"},\n "jobname": "a"}\n]}', [4]),
        ('{"jobs": [\n{"jobname": "a",\n "jobname": "b"}\n]}', [3]),  # the key decoders keep
        ('{"jobs": [\n{"jobname": "x"}],\n "jobs": [\n\n{\n"jobname": "a"}, {"g": 1}]}', [6, 6]),
        ('{"jobs": [\n{\n"jobname": 5}, {\n"jobname": null}\n]}', [3, 4]),
        ('{"jobs": [\n{\n"jobn\\u0061me": "a"},\n{\n"jobname": "a"}]}', [3, 5]),
        (DEEP, [1, 1]),  # nested too deep for Python's decoder: no crash
    ],
    ids=[
        "nested",
        "other_array",
        "nested_first",
        "twice",
        "jobs_twice",
        "number",
        "escaped",
        "deep",
    ],
)
def test_records_are_found_by_their_own_keys(text: str, lines: list[int]) -> None:
    from pipeline.ingest import fio_lines

    records = [{"x": []}, {"g": 1}] if text == DEEP else json.loads(text)["jobs"]
    assert fio_lines.batch_lines(text, "jobs", [(0, records)]) == [lines]


_PIECES = ["{", '"jobname"', 'jobname"', '"', "x", "\n", '"jobname"jobname"']


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=12).map("".join),
    st.integers(0, 200),
    st.integers(0, 4),
)
def test_jobname_keys_are_counted_as_str_count_counts_them(tail: str, cut: int, count: int) -> None:
    """One pass finds the keys: where text around a document holds overlapping
    '"jobname"jobname"', they are counted as str.count counts, as before."""
    from pipeline.ingest import fio_lines

    text = "{" + tail
    end = min(cut, len(text))
    records: list[Any] = [{"jobname": "a"}] * count
    expected = None
    if text.count('"jobname"', 0, end) == count:
        expected, pos = [], 0
        for _ in records:
            pos = text.find('"jobname"', pos + 1)
            expected.append(pos)
    assert fio_lines._by_jobname(text, 0, end, records) == expected


def test_a_job_file_among_the_sources_is_named_as_such(tmp_path: Path) -> None:
    """A folder source (raw/) takes fio's job file beside its outputs: the error says
    what it is and where it belongs, not just "format not recognised"."""
    from pipeline.errors import InputError

    job = tmp_path / "sweep.fio"
    job.write_text("[global]\n; made by hand\nioengine=null\nbs=4k\n\n[read]\nrw=read\n")
    with pytest.raises(InputError, match="a fio job file, not a tool's output") as found:
        ingest.detect(job)
    assert "method = [...]" in str(found.value) and "give only the tool's outputs" in str(
        found.value
    )
    toml = tmp_path / "mapping.toml"  # TOML quotes its text: not a job file
    toml.write_text('[columns]\nhost = "Host"\nbs = "Block"\n', encoding="utf-8")
    with pytest.raises(InputError, match="format not recognised"):
        ingest.detect(toml)


def test_params_given_for_a_file_that_is_no_fio_log_are_said_to_be_unused() -> None:
    vdbench = DATA / "vdbench" / "vdbconvert_flatfile.html"
    read = ingest.read(
        vdbench, ReadOptions(options={"params": FioParams(bs="8k")}, root=vdbench.parent)
    )
    assert "[sources.params] not used: they describe fio-log output, this is vdbench output" in (
        read.notes
    )
    assert not any("params" in n for n in ingest.read(vdbench, ReadOptions()).notes)


@pytest.mark.parametrize(
    "name", ["status_interval.json", "ramp_status.json", "ramp_status_plus.json"]
)
def test_status_snapshots_give_the_run_s_cpu_load(name: str) -> None:
    """fio's usr_cpu and sys_cpu are % of the job's runtime so far: an interval's load is
    the CPU time between two snapshots over their runtime, and a point's the intervals'
    weighed by time (the mean of the running figures, and of a 3 ms remainder with no
    load, printed 18 % where fio's run said 19.8 %)."""
    path = DATA / "fio" / name
    text = path.read_text(encoding="utf-8")
    decoder, index, final = json.JSONDecoder(), 0, None
    while (index := text.find("{", index)) >= 0:
        final, index = decoder.raw_decode(text, index)
    assert isinstance(final, dict)
    jobs = final["jobs"]
    fio = sum(j["usr_cpu"] + j["sys_cpu"] for j in jobs) / len(jobs)
    point = to_points(ingest.read(path, ReadOptions(root=path.parent), "fio").intervals)
    # each snapshot rounds its figure; the tables print whole per cent
    assert point["cpu_pct"][0] == pytest.approx(fio, abs=0.1)


def test_a_json_cut_inside_a_string_is_said_to_be_cut_short(tmp_path: Path) -> None:
    """A copy made while fio wrote ends anywhere, mostly inside a key or a text: it said
    "Unterminated string starting at" and to give fio's JSON output."""
    from pipeline.errors import InputError

    text = (DATA / "fio" / "jsonplus.json").read_text(encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"jobname"') + 5], encoding="utf-8")
    with pytest.raises(InputError, match="the file ends inside its JSON") as found:
        ingest.read(cut, ReadOptions(), "fio")
    assert "run the job again" in str(found.value)
