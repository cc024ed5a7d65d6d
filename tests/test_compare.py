"""iopress compare: two measurements profile by profile, a CI gate (exit 1 on a regression
beyond the threshold and the measured noise)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from pypdf import PdfReader

from pipeline.build import BuildResult
from pipeline.comparison import load_side, pick_setup, run
from pipeline.compute.compare import METRICS, Settings, compare, figures, spreads, status
from pipeline.compute.tables import PROFILE
from pipeline.dataset import intervals_path
from tests.cli import iopress

ROOT = Path(__file__).resolve().parent.parent
A800 = ROOT / "data" / "examples" / "a800"
FS840_DIR = ROOT / "data" / "examples" / "fs840"
READ_4K = (pl.col("block_size") == 4096) & (pl.col("access") == "random")
READ_4K &= pl.col("read_pct") == 100
RATES = ("iops", "bytes_per_s", "read_iops", "read_bytes_per_s")


def test_status_needs_both_threshold_and_noise() -> None:
    assert status(8.0, 2.0, 5.0) == "regression"
    assert status(8.0, 9.0, 5.0) == "within noise"
    assert status(4.0, 0.0, 5.0) == "within threshold"
    assert status(-8.0, 2.0, 5.0) == "improvement"
    assert status(0.0, None, 5.0) == "unchanged" and status(None, None, 5.0) == "not reached"


def test_a800_setups_48_against_4_vcpu(a800_shared: BuildResult) -> None:
    data = a800_shared.out
    old = pick_setup(load_side(data), "4vcpu", "OLD")
    new = pick_setup(load_side(data), "48vcpu", "NEW")
    result, _, _ = run(old, new, 5.0, METRICS)
    rows = {(r["block_size"], r["read_pct"], r["metric"]): r for r in result.rows.to_dicts()}
    read = rows[(8192, 100.0, "iops")]
    assert read["old"] == pytest.approx(640_000)  # seed 004, Tabelle 2, 4 vCPU
    # 48 vCPU measured 20 levels, 4 vCPU 16: compared over the common 16 (said so)
    assert any(n.key == "note_levels" for n in result.notes)
    common = a800_shared.dataset.points.filter(
        (pl.col("setup") == "48vcpu") & (pl.col("parallelism") <= 256)
    )
    best = common.filter((pl.col("block_size") == 8192) & (pl.col("read_pct") == 100))
    assert read["new"] == pytest.approx(best["iops"].max())
    assert read["status"] == "improvement" and result.regressions.is_empty()
    assert {r["status"] for r in result.rows.to_dicts() if r["metric"] == "lat"} == {
        "within threshold"
    }


@pytest.mark.slow
def test_the_cli_gate_and_its_outputs(tmp_path: Path, a800_shared: BuildResult) -> None:
    out = tmp_path / "cmp"
    args = ("--old-setup", "4vcpu", "--new-setup", "48vcpu", "-o", out)
    done = iopress("compare", A800, a800_shared.out, *args)
    assert done.returncode == 0, done.stderr
    assert "0 regressions" in done.stdout and "improvement" in done.stdout
    assert {"compare.de.pdf", "compare.en.pdf", "compare.csv"} <= {p.name for p in out.iterdir()}
    assert len(list((out / "charts").glob("*.de.svg"))) == 4  # one overlay per profile
    de = (out / "compare.de.typ").read_text(encoding="utf-8")
    assert "Verbesserung" in de and "Konfiguration 4vcpu" in de
    # a comparison has no version or classification: no empty row, header or footer part
    en = PdfReader(out / "compare.en.pdf")
    cover, page = en.pages[0].extract_text(), en.pages[-1].extract_text()
    assert "Version" not in cover and "Classification" not in cover + page, cover
    swapped = iopress("compare", A800, A800, "--old-setup", "48vcpu", "--new-setup", "4vcpu")
    assert swapped.returncode == 1 and "8K random 100% read" in swapped.stdout


def _variant(
    build: BuildResult, path: Path, change: Callable[[pl.DataFrame], pl.DataFrame]
) -> Path:
    """The build's points, changed, as a dataset of their own (no interval level)."""
    points = build.out / "dataset.parquet"
    change(pl.read_parquet(points)).write_parquet(path, metadata=pl.read_parquet_metadata(points))
    return path


def _planted(tmp_path: Path, build: BuildResult, factor: float) -> Path:
    """The build's dataset with one profile's rate scaled by ``factor``."""
    path = tmp_path / "planted.parquet"
    scaled = [
        pl.when(READ_4K).then(pl.col(c) * factor).otherwise(pl.col(c)).alias(c) for c in RATES
    ]
    _variant(build, path, lambda f: f.with_columns(scaled))
    source = intervals_path(build.out / "dataset.parquet")
    pl.read_parquet(source).with_columns(scaled).write_parquet(intervals_path(path))
    return path


def test_a_planted_ten_percent_drop_fails_and_names_the_profile(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    same = iopress("compare", fs840_build.out, fs840_build.out / "dataset.parquet")
    assert same.returncode == 0 and "0 regressions" in same.stdout
    assert "regression" not in same.stdout.replace("0 regressions", "")
    dropped = iopress("compare", fs840_build.out, _planted(tmp_path, fs840_build, 0.9))
    assert dropped.returncode == 1
    summary = dropped.stdout.strip().splitlines()[-1]
    assert summary.startswith("4 regressions") and summary.count("4K random 100% read") == 4
    assert "8K" not in summary and "-10.0" in dropped.stdout


def test_a_drop_at_one_level_below_the_maximum_fails_the_gate(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """Halved at P 320 of 18 levels: the maximum (P 256), optimum, limit and minimum
    latency stay, so only the figure of every level names it, with its level."""
    at_320 = READ_4K & (pl.col("parallelism") == 320)
    halved = [pl.when(at_320).then(pl.col(c) * 0.5).otherwise(pl.col(c)).alias(c) for c in RATES]
    path = _variant(fs840_build, tmp_path / "dip.parquet", lambda f: f.with_columns(halved))
    done = iopress("compare", fs840_build.out, path)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary == (
        "1 regression: 4K random 100% read (I/O rate at P\u00a0320, the worst level)"
    ), summary
    only = iopress("compare", fs840_build.out, path, "--metric", "iops,lat,optimum,limit")
    assert only.returncode == 0 and "0 regressions" in only.stdout


def test_the_worst_level_is_a_regression_before_a_noisier_larger_drop() -> None:
    """A 20 % drop within a 30 % noise at one level, an 8 % drop beyond its noise at
    another: the row is the regression, and every level improving is an improvement."""
    key = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    key |= {"read_pct": 100.0, "metric": "level", "unit": "IOPS", "target_iops": None}
    levels = [(1, 100.0, 15.0, 80.0), (2, 200.0, 1.0, 184.0), (4, 300.0, 1.0, 300.0)]
    old = pl.DataFrame(
        [key | {"parallelism": p, "value": v, "noise_pct": n} for p, v, n, _ in levels]
    )
    new = pl.DataFrame(
        [key | {"parallelism": p, "value": w, "noise_pct": n} for p, _, n, w in levels]
    )
    (row,) = compare(old, new, 5.0, ("level",)).rows.iter_rows(named=True)
    assert (row["parallelism_old"], row["status"]) == (2, "regression")
    assert row["change_pct"] == pytest.approx(-8.0)
    better = new.with_columns(pl.col("value") * 2)
    (row,) = compare(old, better, 5.0, ("level",)).rows.iter_rows(named=True)
    assert row["status"] == "improvement" and row["parallelism_old"] == 1


def test_a_level_capped_on_one_side_is_still_compared() -> None:
    """fio's rate_iops set at P 2 on the new side only: the point's target rate differs,
    so it matched nothing and the drop from 13,400 to 2,999 IOPS went unseen (a user's
    real run). A level each side measured once is matched across target rates, and said
    so; points left without a match are counted."""
    key = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    key |= {"read_pct": 100.0, "metric": "level", "unit": "IOPS", "noise_pct": 1.0}
    old = pl.DataFrame(
        [
            key | {"parallelism": p, "target_iops": None, "value": v}
            for p, v in ((1, 7e3), (2, 13.4e3))
        ],
        schema_overrides={"target_iops": pl.Float64},
    )
    capped = [(1, None, 7e3), (2, 3e3, 2999.0)]
    new = pl.DataFrame(
        [key | {"parallelism": p, "target_iops": t, "value": v} for p, t, v in capped]
    )
    result = compare(old, new, 5.0, ("level",))
    (row,) = result.rows.iter_rows(named=True)
    assert (row["parallelism_old"], row["status"]) == (2, "regression")
    assert (result.targets_differ, result.levels_apart) == (1, 0)
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import metric

    said = metric(row, Formatter(Strings("en")))
    assert said == "I/O rate at P\u00a02 (target rate old: none, new: 3,000 IOPS), the worst level"
    two = pl.concat([new, new.filter(pl.col("parallelism") == 2).with_columns(target_iops=6e3)])
    result = compare(old, two, 5.0, ("level",))
    assert (result.targets_differ, result.levels_apart) == (0, 3)


def _swept(p2_rates: dict[float, tuple[float, float]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Points and intervals of one profile: P 1, and P 2 at target rates {rate: (iops,
    jitter)}, three rounds each."""
    from pipeline.normalise import to_points
    from pipeline.schema import INTERVAL_FIELDS, conform

    point = {"system": "s", "setup": "", "tool": "fio", "access": "random", "read_pct": 100.0}
    point |= {"block_size": 4096, "queue_depth": 1, "host": "h", "interval_s": 1.0}
    specs = [(1, None, 900.0, 0.01), *((2, t, v, j) for t, (v, j) in p2_rates.items())]
    rows = [
        point
        | {"parallelism": p, "target_iops": t, "interval": i, "line": i, "source": "x.json"}
        | {"iops": v * (1 + j * (i - 2)), "bytes_per_s": v * 4096.0, "lat_mean_us": 100.0}
        for p, t, v, j in specs
        for i in (1, 2, 3)
    ]
    intervals = conform(pl.DataFrame(rows, infer_schema_length=None), INTERVAL_FIELDS)
    return to_points(intervals), intervals


def test_each_target_rate_of_a_level_is_judged_by_its_own_noise() -> None:
    """At P 2 the 1,000 IOPS target jitters by 40 %, the 5,000 one by 1 %: a 20 % drop of
    the steady one passed as "within noise" (80 %, the jittery rate's, both sides added)."""
    old = _swept({1000.0: (990.0, 0.4), 5000.0: (4000.0, 0.01)})
    new = _swept({1000.0: (990.0, 0.4), 5000.0: (3200.0, 0.01)})
    a, b = (figures(points, intervals, Settings()) for points, intervals in (old, new))
    (row,) = compare(a, b, 5.0, ("level",)).rows.iter_rows(named=True)
    assert (row["status"], row["parallelism_old"]) == ("regression", 2)
    assert row["noise_pct"] == pytest.approx(2.0, abs=0.1)


def test_a_rate_sweep_is_compared_rate_by_rate() -> None:
    """vdbench's three target rates at one thread count are three levels' figures, each
    matched with its own rate (not every rate with every other)."""
    from pipeline import ingest
    from pipeline.ingest.base import ReadOptions
    from pipeline.normalise import to_points
    from tests.conftest import DATA

    path = DATA / "vdbench" / "vdbconvert_flatfile.html"
    read = ingest.read(path, ReadOptions(root=path.parent))
    assert read.frame is not None
    points = to_points(read.frame)
    mine = figures(points, read.frame, Settings())
    result = compare(mine, mine, 5.0, ("level",))
    assert result.rows.height == points.select(PROFILE).unique().height
    assert set(result.rows["status"].to_list()) == {"unchanged"}
    # the row names its target rate: three points share its level
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import metric

    row = result.rows.row(0, named=True)
    said = metric(row, Formatter(Strings("en")))
    assert row["target_iops_old"] is not None and "and a target of " in said, said


@pytest.mark.slow
def test_profiles_of_one_side_only_are_listed(tmp_path: Path, fs840_build: BuildResult) -> None:
    keep = ~READ_4K & (pl.col("parallelism") <= 64)
    path = _variant(fs840_build, tmp_path / "fewer.parquet", lambda f: f.filter(keep))
    old, new = load_side(fs840_build.out), load_side(path)
    result, _, _ = run(old, new, 5.0, METRICS)
    assert result.only_old.filter(READ_4K).height == 1 and result.only_new.is_empty()
    keys = [n.key for n in result.notes]
    assert keys == ["note_no_noise", "note_noise_unknown", "note_levels", "units_binary_rate"]
    assert result.rows.filter(pl.col("metric") == "iops")["noise_new"].is_null().all()
    done = iopress("compare", fs840_build.out, path, "-o", tmp_path / "out")
    assert "only in fs840: 4K random 100% read" in done.stdout
    csv = pl.read_csv(tmp_path / "out" / "compare.csv")
    assert csv.filter(pl.col("status") == "old only").height == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--threshold", "five"), "--threshold 'five'"),
        (
            ("--metric", "iops,speed"),
            "no figure 'speed'; choose from iops,lat,optimum,limit,level, or all",
        ),
        (("--old-setup", "nope"), "has no setup 'nope'"),
        (("--metric", "all,bogus"), "no figure 'bogus'"),
    ],
)
def test_bad_options_are_refused(args: tuple[str, ...], message: str) -> None:
    done = iopress("compare", A800, A800, *args)
    assert done.returncode == 2 and message in done.stderr


def test_a800_setups_unnamed_are_refused() -> None:
    done = iopress("compare", A800, ROOT / "data" / "examples" / "fs840")
    assert done.returncode == 2 and "--old-setup" in done.stderr


def test_no_common_profile_is_an_error_and_out_may_not_touch_inputs(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    tripled = pl.col("block_size") * 3
    path = _variant(fs840_build, tmp_path / "other.parquet", lambda f: f.with_columns(tripled))
    done = iopress("compare", fs840_build.out, path, "-o", tmp_path / "c")
    assert done.returncode == 2 and "nothing to compare" in done.stderr
    assert not (tmp_path / "c").exists()
    inside = iopress("compare", A800, A800, "--old-setup", "4vcpu", "-o", A800 / "cmp")
    assert inside.returncode == 2 and not (A800 / "cmp").exists()
    over = iopress("compare", fs840_build.out, path, "-o", fs840_build.out)  # an input
    assert over.returncode == 2 and (fs840_build.out / "fs840.de.pdf").is_file()
    copy = tmp_path / "out"
    copy.mkdir()
    (copy / ".iopress-output").write_text("iopress output\n", encoding="utf-8")
    (copy / "new.parquet").write_bytes(path.read_bytes())
    held = iopress("compare", fs840_build.out, copy / "new.parquet", "-o", copy)
    assert held.returncode == 2 and "holds the input" in held.stderr


def test_a_profile_without_a_common_level_is_listed(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    shifted = pl.when(READ_4K).then(pl.col("parallelism") * 1000).otherwise(pl.col("parallelism"))
    path = _variant(
        fs840_build, tmp_path / "shifted.parquet", lambda f: f.with_columns(parallelism=shifted)
    )
    result, _, _ = run(load_side(fs840_build.out), load_side(path), 5.0, METRICS)
    assert result.apart.filter(READ_4K).height == 1 and result.rows.filter(READ_4K).is_empty()
    assert result.only_old.is_empty() and result.only_new.is_empty()


def test_fios_short_last_snapshot_is_not_noise() -> None:
    """A 0.05 s remainder with a handful of I/Os would widen the noise beyond any drop."""
    rows = [(1, 1.0, 2000.0), (2, 1.0, 2010.0), (3, 1.0, 1990.0), (4, 0.05, 700.0)]
    point = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    point |= {"read_pct": 100.0, "parallelism": 1, "host": "h", "lat_mean_us": 500.0}
    frame = pl.DataFrame(
        [
            point | {"interval": i, "interval_s": s, "iops": v, "bytes_per_s": v * 4096}
            for i, s, v in rows
        ]
    )
    (found,) = spreads(frame).iter_rows(named=True)
    assert found["iops_noise"] == pytest.approx(0.5)


def test_the_noise_of_a_rate_sweep_is_each_rates_own() -> None:
    """vdbench at iorate 50, 500 and 5000 at one thread count: the rounds of the three
    rates were one series (noise 167 %); now each rate's spread, the largest taken."""
    from pipeline import ingest
    from pipeline.compute.compare import spreads
    from pipeline.ingest.base import ReadOptions, interval_frame
    from tests.conftest import DATA

    path = DATA / "vdbench" / "vdbconvert_flatfile.html"
    read = ingest.read(path, ReadOptions(root=path.parent))
    intervals = read.frame if read.frame is not None else interval_frame(read.rows or [])
    alone = [
        spreads(intervals.filter(pl.col("target_iops") == rate))["iops_noise"].item()
        for rate in (50.0, 500.0, 5000.0)
    ]
    assert spreads(intervals)["iops_noise"].to_list() == [max(alone)]
    assert max(alone) < 100


def _one_interval(iops: float) -> pl.DataFrame:
    point = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    point |= {"read_pct": 100.0, "parallelism": 1, "host": "h", "lat_mean_us": 500.0}
    return pl.DataFrame([point | {"interval": 1, "interval_s": 1.0, "iops": iops}])


def test_a_point_of_one_interval_has_no_known_noise() -> None:
    """One interval deviates from nothing: its noise is not known (was 0.0), printed "–",
    and the verdict is the threshold's alone, said in a note."""
    (found,) = spreads(_one_interval(1000.0).with_columns(bytes_per_s=0.0)).iter_rows(named=True)
    assert found["iops_noise"] is None and found["lat_noise"] is None
    key = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    figure = key | {"read_pct": 100.0, "metric": "iops", "unit": "IOPS", "parallelism": 1}
    figure |= {"target_iops": None}
    old = pl.DataFrame([figure | {"value": 1000.0, "noise_pct": None}])
    new = pl.DataFrame([figure | {"value": 500.0, "noise_pct": 1.0}])
    result = compare(old, new, 5.0, METRICS)
    (row,) = result.rows.iter_rows(named=True)
    assert row["noise_pct"] is None and row["status"] == "regression"
    assert result.unknown_noise == 1
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import noise, table

    fmt = Formatter(Strings("en"))
    assert noise(None, fmt) == "–" and table(result, fmt).rows[0][5][0].text == "–"


@pytest.mark.slow
def test_the_cli_says_the_noise_is_not_known(tmp_path: Path) -> None:
    """fio's JSON alone (one interval per point), two setups compared: "–", and why."""
    from tests.test_registry import _two_setups

    folder = _two_setups(tmp_path)
    done = iopress("compare", folder, folder, "--old-setup", "default", "--new-setup", "b")
    assert done.returncode in (0, 1), done.stderr
    assert "noise of" in done.stdout and "judged by the threshold alone" in done.stdout
    assert "– │ unchanged" in done.stdout
    assert not re.search(r"│\s+0\.0 │ \w+", done.stdout)  # the noise, before the verdict


def test_a_figure_not_reached_is_not_counted_as_of_unknown_noise() -> None:
    """A limit not reached on a side has no point, so no noise either; the note on figures
    judged without noise counts only figures that were judged."""
    from pipeline.compute.compare import Comparison

    rows = pl.DataFrame(
        {
            "status": ["not reached", "regression", "unchanged"],
            "noise_pct": [None, None, 1.5],
            "metric": ["limit", "iops", "iops"],
            "old": [None, 10.0, 10.0],
            "new": [5.0, 5.0, 10.0],
        },
        schema={"status": pl.String, "noise_pct": pl.Float64, "metric": pl.String}
        | {"old": pl.Float64, "new": pl.Float64},
    )
    assert Comparison(rows, pl.DataFrame(), pl.DataFrame()).unknown_noise == 1


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "unsaid"), [("en", "service time"), ("de", "Servicezeit")])
def test_a_comparison_without_latency_names_no_service_time(
    tmp_path: Path, lang: str, unsaid: str
) -> None:
    """Two CrystalDiskMark datasets (no latency) compare their maximum rates alone: the
    rule sentence names that figure and none it did not compare."""
    from pipeline.build import build
    from tests.test_no_latency import _folder

    built = build(_folder(tmp_path), tmp_path / "built")
    done = iopress("compare", built.out, built.out, "-o", tmp_path / "cmp")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "cmp" / f"compare.{lang}.typ").read_text(encoding="utf-8")
    assert unsaid not in text
    assert ("maximum I/O rate" if lang == "en" else "maximale IO Rate") in text


def test_the_rule_names_every_figure_compared(a800_shared: BuildResult) -> None:
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import rule

    data = a800_shared.out
    old = pick_setup(load_side(data), "4vcpu", "OLD")
    new = pick_setup(load_side(data), "48vcpu", "NEW")
    result, _, _ = run(old, new, 5.0, METRICS)
    said = rule(result, Formatter(Strings("en")))
    assert said.startswith("Each figure is read from the profile's curve: the maximum I/O rate")
    assert "service time, the I/O rate at the optimum, the I/O rate at the latency" in said
    assert "limit, and the I/O rate at every parallelism level both sides measured (shown:" in said


def test_the_overlay_of_datasets_without_latency_has_no_empty_panel(tmp_path: Path) -> None:
    from pipeline.charts.overlay import overlay_chart
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.prepare import prepare
    from tests.test_no_latency import _folder

    points = prepare(_folder(tmp_path)).dataset.points.filter(READ_4K)
    fmt = Formatter(Strings("en"))
    spec = overlay_chart(points, points, fmt, ("old", "new")).to_dict()
    assert len(spec["hconcat"]) == 1
    timed = points.with_columns(pl.lit(100.0).alias("lat_mean_us"))
    assert len(overlay_chart(points, timed, fmt, ("old", "new")).to_dict()["hconcat"]) == 2


def test_the_intro_counts_in_the_language_s_plural() -> None:
    """ "1 regressions" (a new user's find): each count takes its plural form."""
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import _many

    en, de = Formatter(Strings("en")), Formatter(Strings("de"))
    assert [_many(en, "compare.regressions", n) for n in (0, 1, 2)] == [
        "0 regressions",
        "1 regression",
        "2 regressions",
    ]
    assert _many(de, "compare.improvements", 1) == "1 Verbesserung"
    assert _many(de, "compare.regressions", 3) == "3 Verschlechterungen"
    intro = en.t(
        "compare.intro",
        new="b",
        old="a",
        threshold="5",
        regressions="1 regression",
        improvements="0 improvements",
    )
    assert "1 regression and 0 improvements beyond" in intro


def test_a_build_output_keeps_its_report_s_units(tmp_path: Path, fs840_build: BuildResult) -> None:
    """A decimal report compared as a build output printed MB as 1024² bytes (the
    default) where its own PDF and the report folder print 10⁶ (a reviewer's find)."""
    import json

    from pipeline.dataset import PRESENTATION_KEY

    source = fs840_build.out / "dataset.parquet"
    meta = pl.read_parquet_metadata(source)
    shown = json.loads(meta[PRESENTATION_KEY]) | {"units": "decimal"}
    path = tmp_path / "decimal.parquet"
    pl.read_parquet(source).write_parquet(
        path, metadata=meta | {PRESENTATION_KEY: json.dumps(shown)}
    )
    assert load_side(path).units == "decimal" and load_side(fs840_build.out).units == "binary"


def test_a_wrong_or_foreign_interval_file_is_bad_input_not_a_regression(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """Exit 1 means "regressed" to a CI gate: the intervals' file given as the dataset
    (a traceback, exit 1), a broken intervals' file beside the points (a traceback) and
    another report's intervals beside them (accepted, its noise used) are exit 2."""
    import shutil

    points = fs840_build.out / "dataset.parquet"
    wrong = iopress("compare", intervals_path(points), points)
    assert wrong.returncode == 2 and "this is the intervals level" in wrong.stderr
    side = tmp_path / "side.parquet"
    shutil.copy(points, side)
    intervals_path(side).write_bytes(b"junk")
    broken = iopress("compare", points, side)
    assert broken.returncode == 2 and "not a readable Parquet file" in broken.stderr
    other = pl.read_parquet(intervals_path(points)).with_columns(parallelism=pl.lit(999))
    other.write_parquet(intervals_path(side))
    foreign = iopress("compare", points, side)
    assert foreign.returncode == 2 and "another report's intervals" in foreign.stderr


def test_levels_the_new_run_left_out_fail_the_gate(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """A new run that measured one profile only up to P 8 lost the levels where its old
    maximum lay: compared over the common levels, every figure read "unchanged" and the
    gate passed. Those levels are named and fail the gate; a run with more levels than
    the old one does not."""
    fewer = READ_4K & (pl.col("parallelism") > 8)
    points = fs840_build.out / "dataset.parquet"
    path = _variant(fs840_build, tmp_path / "short.parquet", lambda f: f.filter(~fewer))
    pl.read_parquet(intervals_path(points)).filter(~fewer).write_parquet(intervals_path(path))
    done = iopress("compare", fs840_build.out, path)
    assert done.returncode == 1, done
    assert re.search(r"4K random 100% read: P\s16, .* not measured in the new run", done.stdout)
    assert "1 regression: 4K random 100% read (P" in done.stdout
    grown = iopress("compare", path, fs840_build.out)
    assert grown.returncode == 0, grown


def test_two_runs_of_one_campaign_are_told_apart(tmp_path: Path, fs840_build: BuildResult) -> None:
    """Both sides named by the report's id: "only in fs840" said nothing of which."""
    out = fs840_build.out
    old, new = load_side(out), load_side(out)
    _, a, b = run(old, new, 5.0, METRICS)
    assert (a.label, b.label) == (f"{old.label} (OLD)", f"{old.label} (NEW)")


@pytest.mark.slow
def test_an_output_of_another_kind_is_never_replaced(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """compare -o pointed at a build output replaced its PDFs, site and manifest; a build
    pointed at a comparison's output would replace that. Each is refused before any work
    (exit 2)."""
    out = fs840_build.out
    before = sorted(p.name for p in out.iterdir())
    onto = iopress("compare", out, out, "-o", out)
    assert onto.returncode == 2 and "holds an iopress build output" in onto.stderr, onto
    assert sorted(p.name for p in out.iterdir()) == before
    cmp = tmp_path / "cmp"
    assert iopress("compare", out, out, "-o", cmp).returncode == 0
    built = iopress("build", FS840_DIR, "-o", cmp)
    assert built.returncode == 2 and "holds an iopress compare output" in built.stderr, built
    assert (cmp / "compare.csv").is_file()


def test_both_sides_are_judged_by_the_old_sides_latency_limits(
    fs840_build: BuildResult,
) -> None:
    """NEW's report raised its limits to 3 and 10 ms and lost 20 % of one profile's rate:
    judged each by its own limits, the rate at the limit read as an improvement. Both are
    judged by OLD's limits, and the note names both sides' limits."""
    from dataclasses import replace

    old = load_side(fs840_build.out)
    scaled = [pl.when(READ_4K).then(pl.col(c) * 0.8).otherwise(pl.col(c)).alias(c) for c in RATES]
    new = replace(
        old,
        label="new",
        points=old.points.with_columns(scaled),
        intervals=old.intervals.with_columns(scaled),
        settings=Settings((3000.0, 10000.0), old.settings.small_block, 0.0),
    )
    result, _, _ = run(old, new, 5.0, ("limit",))
    rows = result.rows.filter(READ_4K)
    assert rows["status"].to_list() == ["regression"], rows
    (note,) = [n for n in result.notes if n.key == "note_settings"]
    assert "(1000 µs and 3000 µs, 0 pp); those of new differ (3000 µs and 10000 µs" in str(note)


def test_a_report_folder_is_compared_whatever_its_texts_say(tmp_path: Path) -> None:
    """A new run without a profile its summary quotes failed compare with exit 2 (the
    placeholder names nothing): a comparison reads the data and settings, not the texts."""
    import shutil

    folder = tmp_path / "a800"
    shutil.copytree(A800, folder)
    summary = folder / "text" / "de" / "summary.md"
    summary.write_text(summary.read_text(encoding="utf-8") + "\n{{ nope }}\n", encoding="utf-8")
    done = iopress("compare", A800, folder, "--old-setup", "48vcpu", "--new-setup", "48vcpu")
    assert done.returncode == 0 and "0 regressions" in done.stdout, done


@pytest.mark.parametrize("name", ["x[/]y", "[link=https://evil.example/]d[/link]", "a\\[b]"])
def test_a_setups_name_is_printed_as_text_not_markup(
    tmp_path: Path, fs840_build: BuildResult, name: str
) -> None:
    """A setup's name is the data's: "x[/]" crashed compare and tables with a MarkupError
    (exit 1, a regression to a gate), "[link=…]" printed a hidden terminal hyperlink."""

    def two(frame: pl.DataFrame) -> pl.DataFrame:  # two setups: each row names its own
        return pl.concat([frame.with_columns(setup=pl.lit(s)) for s in (name, "plain")])

    path = _variant(fs840_build, tmp_path / "named.parquet", two)
    source = intervals_path(fs840_build.out / "dataset.parquet")
    two(pl.read_parquet(source)).write_parquet(intervals_path(path))
    for args in (("compare", path, path), ("tables", path)):
        ran = iopress(*args)
        assert ran.returncode == 0, ran
        assert "\x1b]8;" not in ran.stdout and "Traceback" not in ran.stderr
    assert name in iopress("compare", path, path).stdout.replace("\n", "")


def test_a_dataset_of_too_many_rows_is_refused_before_it_is_read(
    tmp_path: Path, fs840_build: BuildResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 36 MB dataset of one row repeated 300 million times took 24 GB to read: a file
    that holds more rows than any lab's archive is refused by its count alone."""
    import pipeline.dataset as D
    from pipeline.errors import InputError

    monkeypatch.setattr(D, "MAX_POINT_ROWS", 10)
    with pytest.raises(InputError, match=r"rows \(at most 10 are read\)"):
        D.read_points(fs840_build.out / "dataset.parquet")


def test_levels_run_on_other_numbers_of_servers_are_noted(fs840_build: BuildResult) -> None:
    """a800 on 3 VMs against a rerun on 2: every regression looked like the system's."""
    from dataclasses import replace

    old = load_side(fs840_build.out)
    fewer = old.points.with_columns(hosts=pl.lit(1, pl.Int64))
    result, _, _ = run(old, replace(old, label="rerun", points=fewer), 5.0, METRICS)
    (note,) = [n for n in result.notes if n.key == "note_hosts"]
    assert "(old: 2; new: 1)" in str(note), str(note)
    same, _, _ = run(old, replace(old, label="again"), 5.0, METRICS)
    assert not [n for n in same.notes if n.key == "note_hosts"]


def test_a_rate_at_a_limit_no_point_reaches_says_why_its_noise_is_none() -> None:
    """NEW has no point within the latency limit (its rate there is 0): the noise is not
    known because there is no point, not because of one interval (the note said so)."""
    from pipeline.language.message import Message
    from pipeline.language.strings import Strings

    key = {"setup": "", "queue_depth": 1, "access": "random", "block_size": 4096}
    figure = key | {"read_pct": 100.0, "unit": "IOPS", "target_iops": None}
    rows = [
        figure | {"metric": "limit", "parallelism": 4, "value": 1000.0, "noise_pct": 2.0},
        figure | {"metric": "iops", "parallelism": 1, "value": 1000.0, "noise_pct": None},
    ]
    old = pl.DataFrame(rows)
    new = old.with_columns(
        pl.when(pl.col("metric") == "limit").then(None).otherwise(pl.col(c)).alias(c)
        for c in ("parallelism", "noise_pct")
    ).with_columns(pl.when(pl.col("metric") == "limit").then(0.0).otherwise(1000.0).alias("value"))
    result = compare(old, new, 5.0, METRICS)
    assert result.none_within == 1 and result.unknown_noise == 1
    said = Message.counted("compare", "note_noise_none_within", result.none_within)
    assert said.text(Strings("en")).startswith("One rate at a latency limit has no noise, as one")
    again = Message.counted("compare", "note_noise_unknown", 2).text(Strings("de"))
    assert again.startswith("Das Rauschen von 2 Kennzahlen ist unbekannt")


def test_a_maximum_or_optimum_held_to_a_rate_names_its_target() -> None:
    """A helper's compare of two rate sweeps: compare.csv left target_iops empty for the
    optimum and maximum rows, and their text did not say the points were held to a rate."""
    from pipeline.language.fmt import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.compare_doc import metric

    old = _swept({1000.0: (990.0, 0.01), 5000.0: (4000.0, 0.01)})
    new = _swept({1000.0: (990.0, 0.01), 5000.0: (4100.0, 0.01)})
    a, b = (figures(points, intervals, Settings()) for points, intervals in (old, new))
    rows = {
        r["metric"]: r for r in compare(a, b, 5.0, ("iops", "optimum")).rows.iter_rows(named=True)
    }
    assert (rows["iops"]["target_iops_old"], rows["iops"]["target_iops_new"]) == (5000.0, 5000.0)
    said = metric(rows["iops"], Formatter(Strings("en")))
    assert said == "maximum I/O rate (its point held to a target of 5,000 IOPS)"
    mixed = {**rows["iops"], "target_iops_new": None}
    assert metric(mixed, Formatter(Strings("de"))).endswith(
        "(Zielrate seines Messpunkts alt: 5’000, neu: keine IOPS)"
    )


def test_an_interpolated_rate_at_the_limit_names_no_target() -> None:
    """The rate at the latency limit between a point held to 5,000 IOPS and the next was
    said to be "held to a target of 5,000 IOPS" (its lower point's)."""
    points, intervals = _swept({1000.0: (990.0, 0.01), 5000.0: (4000.0, 0.01)})
    swept = pl.col("parallelism") == 2  # one level: its two targets are the curve
    crossing = points.filter(swept).with_columns(
        pl.when(pl.col("target_iops") == 5000.0).then(2000.0).otherwise(500.0).alias("lat_mean_us")
    )
    a = figures(crossing, intervals.filter(swept), Settings(limits_us=(1000.0, 1000.0)))
    (row,) = compare(a, a, 5.0, ("limit",)).rows.iter_rows(named=True)
    assert 990.0 < row["old"] < 4000.0  # between the two targets' rates: interpolated
    assert row["target_iops_old"] is None
