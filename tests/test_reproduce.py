"""``iopress verify --manifest``: a published manifest.json checked against the report
folder now — its input files (size, SHA-256), its counts and every figure it lists. A
transcription of printed cells (``--published``) misses what the tables do not print (a
percentile, a CPU figure) and a file changed without changing a printed cell."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult
from pipeline.reproduce import same
from tests.cli import iopress
from tests.conftest import ROOT

FS840 = ROOT / "data" / "examples" / "fs840"
RAW = "raw/fs840.iogen.csv"
LINE = "p760;1K_ran_100R;1K;random;100;1;1;20;118095;5.766357;0.199948;0.199948;;2.8"


def _copy(folder: Path, old: str = "", new: str = "") -> Path:
    """fs840 at ``folder`` with ``old`` replaced by ``new`` in its raw CSV."""
    shutil.copytree(FS840, folder)
    raw = folder / RAW
    text = raw.read_text(encoding="utf-8")
    assert old in text
    raw.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_the_published_manifest_is_reproduced(fs840_build: BuildResult) -> None:
    manifest = fs840_build.out / "manifest.json"
    ran = iopress("verify", FS840, "--manifest", manifest)
    assert ran.returncode == 0, ran
    listed = json.loads(manifest.read_text(encoding="utf-8"))
    files, figures = len(listed["inputs"]), len(listed["figures"])
    assert figures > 500
    assert f"{files} input files and {figures} figures of the manifest checked" in ran.stdout
    assert ran.stdout.rstrip().endswith("0 differ")


def test_a_changed_raw_value_is_named_with_the_figures_it_moves(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    """One interval's I/O count of the 1K random read at parallelism 1 raised by 1,000:
    the file and each figure derived from it, with the published and the current value."""
    folder = _copy(tmp_path / "fs840", LINE, LINE.replace(";118095;", ";119095;"))
    ran = iopress("verify", folder, "--manifest", fs840_build.out / "manifest.json")
    assert ran.returncode == 1, ran
    lines = ran.stdout.splitlines()
    assert any(line.startswith(f"{RAW}: size ") and "SHA-256" in line for line in lines), ran
    moved = [line for line in lines if line.startswith("performance / ") and "/ iops:" in line]
    assert len(moved) == 1 and "block_size=1024" in moved[0] and "kind=speed" in moved[0], ran
    assert moved[0].endswith("/ iops: published 10000 IOPS, now 10016.666666666666 IOPS"), ran
    assert not lines[-1].endswith(" 0 differ")


def test_a_file_read_now_and_not_listed_is_named(fs840_build: BuildResult, tmp_path: Path) -> None:
    """A copy of the raw file as from a fourth host, read by a wider source pattern: a file
    the published build did not read."""
    folder = _copy(tmp_path / "fs840")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    assert 'path = "raw/fs840.iogen.csv"' in toml
    (folder / "report.toml").write_text(toml.replace('"raw/fs840.iogen.csv"', '"raw/*.csv"'))
    lines = (folder / RAW).read_text(encoding="utf-8").splitlines(keepends=True)
    fourth = lines[:2] + [line.replace("p760;", "x760;") for line in lines if "p760;" in line]
    (folder / "raw" / "again.iogen.csv").write_text("".join(fourth), encoding="utf-8")
    ran = iopress("verify", folder, "--manifest", fs840_build.out / "manifest.json")
    assert "raw/again.iogen.csv: read now (SHA-256 " in ran.stdout, ran
    assert ran.returncode == 1


def test_an_edited_figure_in_the_manifest_is_named(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    listed = json.loads((fs840_build.out / "manifest.json").read_text(encoding="utf-8"))
    figure = next(f for f in listed["figures"] if f["column"] == "lat_mean_us")
    exact = figure["value"]
    figure["value"] = exact * 0.9
    del listed["figures"][-1]
    edited = tmp_path / "manifest.json"
    edited.write_text(json.dumps(listed), encoding="utf-8")
    ran = iopress("verify", FS840, "--manifest", edited)
    assert ran.returncode == 1, ran
    assert f"/ lat_mean_us: published {exact * 0.9} µs, now {exact} µs" in ran.stdout, ran
    assert ": derived now, not in the manifest (now " in ran.stdout, ran


HEAD = '"report": {}, "accounting": {}, '
FIGURE = '{"table": "t", "row": {"a": 1}, "column": "c", "value": 1}'


@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        ('{"inputs": [', "line 1, column 13", "not JSON"),
        ("{" + HEAD + '"inputs": [], "figures": {}}', "figures", "valid list"),
        (
            "{" + HEAD + '"inputs": [{"path": "a", "size": "12", "sha256": "x"}], "figures": []}',
            "inputs[0].size",
            "valid integer",
        ),
        ("{" + HEAD + '"figures": []}', "inputs", "Field required"),
        ('{"inputs": [], "figures": []}', "report", "Field required"),
        ("[]", "the whole file", "valid dictionary"),
        ("[" * 100_000 + "]" * 100_000, "", "not a manifest: nested too deeply"),
        ('{"x": ' + "9" * 5000 + "}", "", "not a manifest: Exceeds the limit"),
        (
            "{" + HEAD + f'"inputs": [], "figures": [{FIGURE}, {FIGURE}]}}',
            "figures[1]",
            "the same figure as figures[0]",
        ),
        (
            "{" + HEAD + '"inputs": [{"path": "a", "size": 1, "sha256": "x"}, '
            '{"path": "a", "size": 2, "sha256": "y"}], "figures": []}',
            "inputs[1]",
            "the same input as inputs[0]",
        ),
        (
            "{" + HEAD + '"inputs": [], "figures": '
            '[{"table": "t", "row": {"a": [1]}, "column": "c", "value": 1}]}',
            "figures[0].row",
            "a row names its columns' values",
        ),
    ],
)
def test_a_manifest_that_is_none_is_refused_with_its_place(
    tmp_path: Path, text: str, where: str, said: str
) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(text, encoding="utf-8")
    ran = iopress("verify", FS840, "--manifest", manifest)
    assert ran.returncode == 2, ran
    assert (f"{manifest}: {where}: " if where else f"{manifest}: ") in ran.stderr, ran
    assert said in ran.stderr and "Traceback" not in ran.stderr, ran


def test_a_manifest_beyond_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 506 MB manifest of tiny entries took 10 GB and more than 5 minutes."""
    from pipeline import reproduce

    monkeypatch.setattr(reproduce, "MAX_MANIFEST", 1000)
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{" + HEAD + '"inputs": [], "figures": []}' + " " * 1000, "utf-8")
    ran = iopress("verify", FS840, "--manifest", manifest)
    assert ran.returncode == 2 and "too large (1,061 bytes; a manifest iopress" in ran.stderr, ran


def test_a_name_from_the_manifest_prints_no_line_of_its_own(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    listed = json.loads((fs840_build.out / "manifest.json").read_text(encoding="utf-8"))
    listed["inputs"].append({"path": "a\nfake: 0 differ\u202e", "size": 1, "sha256": "x"})
    edited = tmp_path / "manifest.json"
    edited.write_text(json.dumps(listed), encoding="utf-8")
    ran = iopress("verify", FS840, "--manifest", edited)
    assert "a\\nfake: 0 differ\\u202e: in the manifest (SHA-256 x), not read now" in ran.stdout
    assert not any(line.startswith("fake") for line in ran.stdout.splitlines()), ran


def test_a_report_built_with_keep_going_is_verified_with_it(tmp_path: Path) -> None:
    """A build that went on past a file it could not read: verify refused the folder for
    that file until it was given --keep-going too."""
    from pipeline.build import build

    folder = _copy(tmp_path / "fs840")
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    (folder / "report.toml").write_text(toml.replace('"raw/fs840.iogen.csv"', '"raw/*.csv"'))
    (folder / "raw" / "broken.iogen.csv").write_text("host;test\nnothing\n", encoding="utf-8")
    out = build(folder, tmp_path / "out", keep_going=True).out
    refused = iopress("verify", folder, "--manifest", out / "manifest.json")
    assert refused.returncode == 2 and "broken.iogen.csv" in refused.stderr, refused
    assert "note: a manifest of a build made with --keep-going" in refused.stderr, refused
    ran = iopress("verify", folder, "--manifest", out / "manifest.json", "--keep-going")
    assert ran.returncode == 0 and ran.stdout.rstrip().endswith(" 0 differ"), ran


def test_verify_needs_a_transcription_or_a_manifest() -> None:
    ran = iopress("verify", FS840)
    assert ran.returncode == 2 and "--published" in ran.stderr and "--manifest" in ran.stderr


@pytest.mark.parametrize(
    ("published", "now", "equal"),
    [
        (None, None, True),
        (None, 0.0, False),
        (float("nan"), float("nan"), True),
        (1.0, 1.0 + 1e-12, True),
        (1.0, 1.0 + 1e-6, False),
        (0.0, 1e-300, False),
    ],
)
def test_same_figure(published: float | None, now: float | None, equal: bool) -> None:
    assert same(published, now) is equal


def test_a_reformatted_manifest_is_the_same_and_a_missing_key_a_difference(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    """``jq .`` writes iopress's ``100.0`` as ``100`` (and a SHA-256 may come upper-case):
    the same figures, not 942 differences; a manifest without its report id or one of
    its counts is a difference named, not a traceback."""
    listed = json.loads((fs840_build.out / "manifest.json").read_text(encoding="utf-8"))
    for figure in listed["figures"]:
        row = figure["row"]
        row.update({k: int(v) for k, v in row.items() if isinstance(v, float) and v.is_integer()})
    listed["inputs"][0]["sha256"] = listed["inputs"][0]["sha256"].upper()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(listed, indent=2), encoding="utf-8")
    ran = iopress("verify", FS840, "--manifest", manifest)
    assert ran.returncode == 0 and ran.stdout.rstrip().endswith("0 differ"), ran
    del listed["report"]["id"]
    del listed["accounting"]["records_read"]
    manifest.write_text(json.dumps(listed), encoding="utf-8")
    ran = iopress("verify", FS840, "--manifest", manifest)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran
    assert "report id: published –, now fs840" in ran.stdout, ran
    assert "records_read: published –, now" in ran.stdout, ran


def test_a_figure_published_as_none_or_whole_reads_plainly() -> None:
    """ "published None IOPS", "published 1.0 workers/host, now 2 workers/host"."""
    from pipeline.reproduce import _value

    assert _value({"value": None, "unit": "IOPS"}) == "–"
    assert _value({"value": 1.0, "unit": "workers/host"}) == "1 workers/host"
    assert _value({"value": 0.59, "unit": "ms"}) == "0.59 ms"


def test_a_broken_report_toml_gets_no_keep_going_note(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    """The note on --keep-going was printed for any failure, also of report.toml, which
    no build goes on past."""
    folder = _copy(tmp_path / "fs840")
    toml = folder / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "\nnot toml at all\n", "utf-8")
    ran = iopress("verify", folder, "--manifest", fs840_build.out / "manifest.json")
    assert ran.returncode == 2 and "report.toml" in ran.stderr, ran
    assert "--keep-going" not in ran.stderr, ran
