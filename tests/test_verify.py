"""iopress verify: the seed-000 transcription gives exactly the real discrepancies, the
seed-004 one (a800) none; every printed form of a cell is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from pipeline.verify import Expected, Reading, agrees, candidates, parse, verify
from tests.cli import iopress
from tests.conftest import A800, FS840

PUBLISHED = FS840 / "published" / "seed000.csv"
SEED004 = A800 / "published" / "seed004.csv"

REAL = [
    'line 53: cost / FS 900 2016 / price_per_tb_effective: printed "1\'000 CHF*", '
    'exact "1\'023 CHF*"',
    'line 59: cost / Tiered Midrange 2016 / price_per_kiops: printed "1\'150 CHF", '
    'exact "1\'167 CHF"',
    "line 83: spc1 / OS 18'800 V3 / 50: printed \"1'505.068 @ 0.55 ms\", exact "
    "\"1'505'068.000 @ 0.55 ms\"",
    "line 105: spc1_sizing / OS 18'800 V3 400000 / lat_mean_us: printed '0.45 ms', exact '0.40 ms'",
    "line 109: spc1_sizing / OS 18'800 V3 800000 / lat_mean_us: printed '0.50 ms', exact '0.46 ms'",
]


def test_seed_000_gives_exactly_the_real_discrepancies(fs840_context: ReportContext) -> None:
    cells, figures, found = verify(fs840_context, PUBLISHED)
    assert (cells, figures) == (110, 134)
    assert [str(d) for d in found] == REAL


def test_a_larger_tolerance_accepts_the_rounded_cost(fs840_context: ReportContext) -> None:
    found = verify(fs840_context, PUBLISHED, tolerance=0.025).found
    assert "price_per_tb_effective" not in " ".join(str(d) for d in found)


@pytest.mark.parametrize("text", ["1'008'045", "1’008’045", "1,008,045", "1.008.045"])
def test_printed_in_either_language(text: str) -> None:
    (printed,) = parse(f"{text} @ 0.50 ms")[:1]
    assert agrees(printed, Expected(1_008_045, "rate"), "IOPS", 0.01)


def test_ambiguous_point_reads_both_ways() -> None:
    assert candidates("12.984") == [Reading(12.984, 3), Reading(12984.0, 0, ".", ".")]
    assert candidates("1'505.068") == [Reading(1505.068, 3, "'")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.008.045,5", 1_008_045.5),  # de-DE: the last mark is the decimal one
        ("1’008’045.5", 1_008_045.5),  # de-CH
        ("1,008,045.5", 1_008_045.5),  # en
        ("0,55", 0.55),
        ("1234.5", 1234.5),  # no thousands reading: 1234 is no group of three
    ],
)
def test_every_number_style_reads_one_way(text: str, value: float) -> None:
    assert [r.value for r in candidates(text)] == [value]


@pytest.mark.parametrize("text", ["1'2345", "1.2.3,4,5", "0.984.000", "1,2.3"])
def test_a_number_no_style_prints_is_refused(text: str) -> None:
    assert candidates(text) == []


def test_precision_and_tolerance() -> None:
    lat = Expected(293.2, "time")  # µs
    assert agrees(parse("0.3 ms")[0], lat, "ms", 0.01)  # within half a unit (0.05 ms)
    assert not agrees(parse("0.30 ms")[0], lat, "ms", 0.01)  # 0.005 ms and 1 % are exceeded


def test_unknown_figure_names_the_line(tmp_path: Path, fs840_context: ReportContext) -> None:
    bad = tmp_path / "p.csv"
    bad.write_text(
        "table,row,column,printed\nperformance,random 3K 100,maximum,1 @ 1 ms\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        verify(fs840_context, bad)
    assert str(caught.value).startswith(
        f"{bad}: line 2: performance / random 3K 100 / maximum names no figure"
    )


def test_cli_exit_status(tmp_path: Path) -> None:
    run = iopress("verify", FS840, "--published", PUBLISHED)
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == "110 cells (134 figures) checked, 5 differ"
    good = tmp_path / "good.csv"
    good.write_text(
        "table,row,column,printed\nmin_latency,random 4K 100,lat,230 µs\n", encoding="utf-8"
    )
    ok = iopress("verify", FS840, "--published", good)
    assert ok.returncode == 0 and ok.stdout == "1 cell (1 figure) checked, 0 differ\n"
    broken = tmp_path / "broken.csv"  # bad input is no differing figure: 2, as compare
    broken.write_text("table,row,column,printed\nmin_latency,random 4K 100\n", "utf-8")
    refused = iopress("verify", FS840, "--published", broken)
    assert refused.returncode == 2 and f"{broken}: line 2: " in refused.stderr, refused
    assert "Traceback" not in refused.stderr, refused


def test_a_row_that_names_two_rows_is_an_error_not_the_first(
    tmp_path: Path, fs840_context: ReportContext
) -> None:
    """ "Tiered Midrange" has a 2014 and a 2016 price per TB: without the year the row is
    ambiguous; a figure the rows share (SPC-1 price on every load) is not."""
    ambiguous = tmp_path / "ambiguous.csv"
    ambiguous.write_text(
        "table,row,column,printed\ncost,Tiered Midrange,price_per_tb,875 CHF\n", "utf-8"
    )
    with pytest.raises(InputError, match=r"2 rows match; name one in the row: year=2014\|2016"):
        verify(fs840_context, ambiguous)
    year = tmp_path / "year.csv"
    year.write_text(
        "table,row,column,printed\ncost,Tiered Midrange 2016,price_per_tb,875 CHF\n", "utf-8"
    )
    assert verify(fs840_context, year).figures == 1


@pytest.fixture(scope="module")
def a800_context() -> ReportContext:
    return prepare(A800)


def test_seed_004_tabelle_2_gives_no_difference(a800_context: ReportContext) -> None:
    """Issue 40: the 12 cells of Tabelle 2 ("128 Prozesse, 648'293 IOPS, 590 µs") were all
    reported, the parallelism read as the rate and the exact value in an internal form."""
    assert verify(a800_context, SEED004) == (12, 36, [])


def test_seed_004_with_one_digit_changed(tmp_path: Path, a800_context: ReportContext) -> None:
    text = SEED004.read_text(encoding="utf-8")
    for old, new in [
        ("128 Prozesse, 648'293", "129 Prozesse, 648'293"),  # a parallelism: exactly
        ("9'963 IOPS", "9'663 IOPS"),
        ("11.0 GB/s", "11.9 GB/s"),
    ]:
        changed = tmp_path / "changed.csv"
        changed.write_text(text.replace(old, new, 1), encoding="utf-8")
        (found,) = verify(a800_context, changed).found
        assert new in found.printed and old in found.exact, found


def test_cli_verifies_the_a800_transcription() -> None:
    run = iopress("verify", A800, "--published", SEED004)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "12 cells (36 figures) checked, 0 differ\n"


OPTIMUM = "key_figures,random 8K 100 setup=48vcpu,optimum"


@pytest.mark.parametrize(
    ("printed", "exact"),
    [
        ("128 processes, 648,293 IOPS, 590 µs", ""),
        ("128 workers @ 648.293 IOPS @ 0.59 ms", ""),
        ("P 128\n648’293 IOPS\n590 µs", ""),
        ("648'293 IOPS, 590 µs", ""),  # the parallelism left out
        ("648'293, 590", ""),  # in the units of the table
        ("1 Prozess, 648'293 IOPS, 590 µs", "128 Prozesse, 648'293 IOPS, 590 µs"),
        ("128 processes, 648,293 IOPS, 0.69 ms", "128 processes, 648,293 IOPS, 0.59 ms"),
        ("128 Prozesse, 0.65 Mio. IOPS, 590 µs", ""),
        ("128 Prozesse, 0.66 Mio. IOPS, 590 µs", "128 Prozesse, 0.65 Mio. IOPS, 590 µs"),
    ],
)
def test_every_printed_form_of_a_key_figure(
    printed: str, exact: str, tmp_path: Path, a800_context: ReportContext
) -> None:
    path = tmp_path / "p.csv"
    quoted = printed.replace('"', '""')
    path.write_text(f'table,row,column,printed\n{OPTIMUM},"{quoted}"\n', encoding="utf-8")
    assert [d.exact for d in verify(a800_context, path).found] == ([exact] if exact else [])


def test_a_cell_over_several_lines_keeps_the_line_numbers(
    tmp_path: Path, a800_context: ReportContext
) -> None:
    """A cell copied from a PDF spans lines; the line named is the one it starts on."""
    path = tmp_path / "p.csv"
    path.write_text(
        f'table,row,column,printed\n{OPTIMUM},"128 Prozesse\n648\'293 IOPS\n590 µs"\n'
        f"{OPTIMUM},129 Prozesse\n",
        encoding="utf-8",
    )
    assert [d.line for d in verify(a800_context, path).found] == [5]


def test_a_cell_of_other_figures_names_them(tmp_path: Path, a800_context: ReportContext) -> None:
    path = tmp_path / "p.csv"
    path.write_text(f"table,row,column,printed\n{OPTIMUM},648'293\n", encoding="utf-8")
    (found,) = verify(a800_context, path).found
    # the cell prints the VMs' CPU load too (seed 002's MPIO case): "CPU 58 %"
    assert found.exact == "128 processes, 648,293 IOPS, 590 µs, CPU\u00a058\u00a0%"
    assert found.note == "the cell holds 4 figures, 1 printed"


def test_a_number_no_style_prints_names_its_line(
    tmp_path: Path, a800_context: ReportContext
) -> None:
    path = tmp_path / "p.csv"
    path.write_text(f"table,row,column,printed\n{OPTIMUM},1'28 Prozesse\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: .*\"1'28\" is no number as printed"):
        verify(a800_context, path)


@pytest.mark.parametrize(
    ("value", "printed", "places"),
    [(0.000056, 3, 6), (0.056, 3, 3), (0.0, 3, 3), (12.3, 0, 0), (0.0004, 1, 5), (0.0005, 3, 3)],
)
def test_an_exact_value_below_the_printed_places_shows_its_digits(
    value: float, printed: int, places: int
) -> None:
    """0.056 µs transcribed as "0.056 ms" was reported as exactly "0.000 ms": the exact
    value gets the places that show two of its digits where the printed ones show none."""
    from pipeline.verify import _places

    assert _places(value, printed) == places


@pytest.mark.parametrize("space", [" ", "\u00a0", "\u202f", "\u2009"])
def test_a_unit_after_any_kind_of_space_is_read(space: str) -> None:
    """A PDF's narrow no-break space (U+202F) before "ms" left the unit unread, so the
    figure was taken in the table's unit: 0.20 read as another latency."""
    (found,) = parse(f"0.20{space}ms")
    assert (found.readings[0].value, found.unit) == (0.2, "ms")


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("min_latency,random 1K 100\n", "line 2: not 4 fields"),  # a TypeError traceback
        (f"{OPTIMUM},648,293 IOPS\n", "line 2: not 4 fields"),  # the last field dropped
        (f"{OPTIMUM},648'293\n{OPTIMUM},\"128 Prozesse\n", "line 3: not CSV: a quote opened"),
    ],
)
def test_a_transcription_line_that_is_not_four_fields_names_its_line(
    tmp_path: Path, a800_context: ReportContext, body: str, said: str
) -> None:
    path = tmp_path / "p.csv"
    path.write_text("table,row,column,printed\n" + body, encoding="utf-8")
    with pytest.raises(InputError, match=said):
        verify(a800_context, path)


@pytest.mark.parametrize("given", ["inf", "nan", "-5", "100", "1e9"])
def test_a_tolerance_that_is_no_percentage_is_refused(given: str, tmp_path: Path) -> None:
    """--tolerance inf passed every figure; -5, nan and 1e9 were taken as given."""
    path = tmp_path / "p.csv"
    path.write_text(f"table,row,column,printed\n{OPTIMUM},648'293\n", encoding="utf-8")
    ran = iopress("verify", A800, "--published", path, "--tolerance", given)
    assert ran.returncode == 2 and f"--tolerance {given!r}: give a percentage" in ran.stderr, ran


def test_a_tolerance_with_a_manifest_alone_is_refused(tmp_path: Path) -> None:
    ran = iopress("verify", A800, "--manifest", tmp_path / "m.json", "--tolerance", "5")
    assert ran.returncode == 2 and "--tolerance applies to --published only" in ran.stderr, ran


def test_a_cell_without_its_parallelism_but_with_its_cpu_agrees(
    tmp_path: Path, a800_context: ReportContext
) -> None:
    """The cell "648'293 IOPS @ 590 µs (CPU 58 %)": every printed figure right, the parallelism left
    out; both optional figures were dropped at once and the cell "held 4 figures, 3
    printed". A wrong CPU is still named, shown with plain spaces (not "CPU\\xa058\\xa0%")."""
    path = tmp_path / "p.csv"
    right, wrong = "648'293 IOPS @ 590 µs (CPU 58 %)", "648'293 IOPS @ 590 µs (CPU 68 %)"
    path.write_text(f'table,row,column,printed\n{OPTIMUM},"{right}"\n', encoding="utf-8")
    assert verify(a800_context, path).found == []
    path.write_text(f'table,row,column,printed\n{OPTIMUM},"{wrong}"\n', encoding="utf-8")
    (found,) = verify(a800_context, path).found
    assert "\\xa0" not in str(found) and "CPU 58 %" in str(found), str(found)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("performance,random 1K 100,maximal,1", "no column 'maximal': one of ['maximum', "),
        ("performance,random 9K 100,maximum,1", "no row 'random 9K 100' in performance"),
    ],
)
def test_a_misspelt_column_or_an_absent_row_is_named(
    line: str, said: str, tmp_path: Path, fs840_context: ReportContext
) -> None:
    """A misspelt selecting column read "3 rows match" without saying why."""
    path = tmp_path / "p.csv"
    path.write_text(f"table,row,column,printed\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        verify(fs840_context, path)
    assert said in str(caught.value)


def test_rows_told_apart_by_their_setup_are_named(
    tmp_path: Path, a800_context: ReportContext
) -> None:
    path = tmp_path / "p.csv"
    path.write_text("table,row,column,printed\nkey_figures,random 8K 100,speed,1\n", "utf-8")
    with pytest.raises(InputError, match=r"2 rows match; name one in the row: setup=48vcpu\|4vcpu"):
        verify(a800_context, path)


def test_rows_told_apart_by_their_queue_depth_are_named(tmp_path: Path) -> None:
    """fs820's queue-depth sweep: "8 rows match; name one in the row: " named nothing, as
    the queue depth is a number, not a word."""
    from pipeline.prepare import prepare

    ctx = prepare(FS840.parent / "fs820")
    path = tmp_path / "p.csv"
    line = "min_latency,random 4K 100 setup=1link,lat_mean_us,200 µs"
    path.write_text(f"table,row,column,printed\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"rows match; name one in the row: queue_depth=1\|2\|4"):
        verify(ctx, path)
