"""The seeds' sentences as placeholders (issue 33): the I/O rate at a latency limit, the
latency at an I/O rate on the measured curve, the share of the maximum, the CPU load;
renamed placeholder names that keep working with a warning; the customer and audit
editions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult, refuse
from pipeline.errors import InputError, InputErrors
from pipeline.prepare import prepare
from pipeline.report.context import ReportContext
from tests.cli import iopress
from tests.conftest import DATA, FS840, pdf_text

SWEEP = DATA / "fio-sweep" / "4k_r100"
NBSP = "\u00a0"


def _null_report(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """Debian's fio on the null engine (tests/data/fio-sweep: 4K random reads at 1, 2, 4,
    8 and 16 jobs), with ``text`` appended to the English conclusion."""
    folder = tmp_path / "null"
    shutil.copytree(DATA / "reports" / "mixed" / "text", folder / "text")
    shutil.copytree(SWEEP, folder / "raw")
    (folder / "report.toml").write_text(
        'id = "null"\nauthor = "t"\nversion = "1"\ndate = 2026-11-21\n'
        'title = { de = "Null", en = "Null" }\nclassification = "intern"\n'
        'sponsor = { de = "Ohne.", en = "None." }\n'
        '[system]\nname = "null engine"\nvendor = "fio"\n'
        '[[sources]]\npath = "raw"\n',
        encoding="utf-8",
    )
    section = folder / "text" / "en" / "conclusion.md"
    section.write_text(section.read_text(encoding="utf-8") + text + "\n", encoding="utf-8")
    return folder, section


def _curve() -> list[tuple[float, float, float]]:
    """(IOPS, mean latency in µs, CPU %) per jobs level, read from fio's JSON by hand."""
    found = []
    for jobs in (1, 2, 4, 8, 16):
        doc = json.loads((SWEEP / f"randread-1-{jobs}.json").read_text(encoding="utf-8"))
        job = doc["jobs"][0]
        read = job["read"]
        found.append((read["iops"], read["lat_ns"]["mean"] / 1000, job["usr_cpu"] + job["sys_cpu"]))
    return found


def _last_line(tmp_path: Path, text: str) -> str:
    ctx = prepare(_null_report(tmp_path, text)[0])
    return ctx.filled["en"]["conclusion"].text.rstrip("\n").splitlines()[-1].replace("\\", "")


def test_the_hand_computed_curve() -> None:
    """The values the tests below expect, computed from fio's JSON without iopress."""
    (i1, l1, _), (i2, l2, _), (i4, l4, _), _, (i16, _, cpu16) = _curve()
    assert round(l1 + (5e6 - i1) / (i2 - i1) * (l2 - l1), 4) == 0.0548  # µs at 5 M IOPS
    assert round(l2 + (6.7e6 - i2) / (i4 - i2) * (l4 - l2), 3) == 0.108  # 6.7 M, rising part
    assert round(i2 + (0.1 - l2) / (l4 - l2) * (i4 - i2)) == 6_603_824  # IOPS at 0.1 µs
    assert round((i2 + (0.1 - l2) / (l4 - l2) * (i4 - i2)) / i16 * 100) == 81
    assert (round(i4), round(i4 / i16 * 100), round(5e6 / i16 * 100)) == (6_933_674, 85, 61)
    assert round(cpu16) == 12


SENTENCES = {
    # between the 1- and 2-job points: interpolated, and said so with "≈"
    "latency at a rate": (
        '{{ latency_at_iops("4K", "random", 100, 5000000).lat_mean }}',
        f"≈{NBSP}0.055\u00a0µs",
    ),
    "its share of the maximum": (
        '{{ latency_at_iops("4K", "random", 100, 5000000).share_of_maximum }}',
        "61",
    ),
    # 6.7 M IOPS is reached twice (2→4 jobs, and 4→8 falling back): the curve's first
    "latency where the curve first reaches the rate": (
        '{{ latency_at_iops("4K", "random", 100, iops=6700000).lat_mean_us }}',
        f"≈{NBSP}0.11\u00a0µs",
    ),
    "rate at a limit, interpolated": (
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.1).iops }} '
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.1).share_of_maximum }} '
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.1).limit }}',
        f"≈{NBSP}6,603,824 ≈{NBSP}81 0.10\u00a0µs",
    ),
    # under 0.2 µs the 4-job point is the best; the crossing after it is lower
    "rate at a limit, measured": (
        '{{ iops_at_latency("4K", "random", 100, limit_ms=0.0002).iops }} '
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.2).share_of_maximum }} '
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.2).parallelism }}',
        "6,933,674 85 4",
    ),
    "CPU load": ('{{ maximum("4K", "random", 100).cpu_pct }}', "12"),
    "share of the maximum": ('{{ maximum("4K", "random", 100).share_of_maximum }}', "100"),
}


@pytest.mark.parametrize(("text", "printed"), SENTENCES.values(), ids=SENTENCES.keys())
def test_a_sentence_prints_the_hand_computed_figure(
    text: str, printed: str, tmp_path: Path
) -> None:
    assert _last_line(tmp_path, text) == printed


BEYOND = {
    "a rate above the curve": (
        '{{ latency_at_iops("4K", "random", 100, 9000000).lat_mean }}',
        "9,000,000 IOPS lies outside the measured curve (4,455,914 to 8,174,660 IOPS); "
        "iopress does not extrapolate",
    ),
    "a rate below the curve": (
        '{{ latency_at_iops("4K", "random", 100, 1000).lat_mean }}',
        "outside the measured curve",
    ),
    "a limit under every point": (
        '{{ iops_at_latency("4K", "random", 100, limit_us=0.04).iops }}',
        "no I/O rate at 0.040\u00a0µs: every measured point is slower (0.047\u00a0µs)",
    ),
    "two limits": (
        '{{ iops_at_latency("4K", "random", 100, limit_ms=1, limit_us=5).iops }}',
        "once",
    ),
    "a limit as text": ('{{ iops_at_latency("4K", "random", 100, limit_ms="1").iops }}', "limit"),
    "a rate as text": ('{{ latency_at_iops("4K", "random", 100, "5000").iops }}', "I/O rate"),
    "no CPU at a limit": (
        '{{ iops_at_latency("4K", "random", 100).cpu_pct }}',
        ".cpu_pct: this point has none",
    ),
}


@pytest.mark.parametrize(("text", "said"), BEYOND.values(), ids=BEYOND.keys())
def test_never_beyond_the_measured_points(text: str, said: str, tmp_path: Path) -> None:
    """Nothing is extrapolated: a rate or limit outside the curve is an error naming the
    file and the line."""
    folder, section = _null_report(tmp_path, text)
    line = section.read_text(encoding="utf-8").count("\n")
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    [error] = caught.value.errors
    assert isinstance(error, InputError)
    assert (error.path, error.where) == (section, f"line {line}"), error
    assert said in str(error), error


def _cells(ctx: ReportContext, table: str) -> dict[str, list[str]]:
    view = ctx.views(ctx.formatter("en"))[table]
    return {row[0][0].text: [" ".join(s.text for s in c) for c in row[1:]] for row in view.rows}


def test_the_example_prints_a_limit_and_cpu_as_its_tables(
    fs840_context: ReportContext, tmp_path: Path
) -> None:
    """fs840 (seed 000): the text's I/O rate at the report's limit and CPU load read as
    the iops_at_latency and performance tables print them."""
    folder = fs840_context.folder
    text = (
        '{{ iops_at_latency("4K", "random", 100).iops }} IOPS at '
        '{{ iops_at_latency("4K", "random", 100).limit }}, '
        '{{ iops_at_latency("4K", "random", 100).share_of_maximum }} % of the maximum; '
        'CPU {{ maximum("4K", "random", 100).cpu_pct }} % at '
        '{{ maximum("4K", "random", 100).iops }} IOPS'
    )
    sentence = _filled(folder, text, tmp_path)
    limit = _cells(fs840_context, "iops_at_latency")["4K random"][0]
    perf = _cells(fs840_context, "performance")["4K random IOPS"][0]
    rate = limit.removesuffix(" IOPS")
    assert sentence.startswith(f"{rate} IOPS at 1.0\u00a0ms, "), (sentence, limit)
    cpu = re.search(r"CPU\xa0(\d+)\xa0%", perf)
    assert cpu and f"CPU {cpu[1]} % at 1,003,798 IOPS" in sentence, (sentence, perf)
    assert cpu[1] == "94"  # seed 000: "more than 90 % at 1'000'000 IOPS"


def _filled(folder: Path, text: str, tmp: Path) -> str:
    copy = Path(shutil.copytree(folder, tmp / "copy"))
    section = copy / "text" / "en" / "conclusion.md"
    section.write_text(section.read_text(encoding="utf-8") + text + "\n", encoding="utf-8")
    filled = prepare(copy).filled["en"]["conclusion"].text
    return filled.rstrip("\n").splitlines()[-1].replace("\\", "")


OLD_NAMES = '{{ maximum("4K", "random", 100).mb_s }} {{ optimum("8K", "random", 100).lat_ms }}\n'
OLD_NAMES += (
    '{{ min_latency("4K", "random", 100).lat_us }} {{ value("speedup", "example-1", "old_ms") }}'
)


def test_renamed_names_print_as_the_new_ones_with_a_warning(tmp_path: Path) -> None:
    """Names users wrote against the earlier docs keep working: the same text as the new
    name, and a warning naming file, line and the new name; ``--strict`` refuses them."""
    copy = Path(shutil.copytree(FS840, tmp_path / "old"))
    section = copy / "text" / "en" / "conclusion.md"
    own = section.read_text(encoding="utf-8")
    line = own.count("\n") + 1
    new = OLD_NAMES.replace(".mb_s", ".bytes_per_s").replace(".lat_ms", ".lat_mean_ms")
    new = new.replace(".lat_us", ".lat_mean_us").replace('"old_ms"', '"old_lat_mean_us"')
    texts = {}
    for name, text in (("old", OLD_NAMES), ("new", new)):
        texts[name] = _prepared_with(copy, section, own, text).filled["en"]["conclusion"].text
    assert texts["old"] == texts["new"]
    old_ctx = _prepared_with(copy, section, own, OLD_NAMES)
    found = [(d.path, d.line, d.old, d.new) for d in old_ctx.deprecated()]
    assert found == [
        (section, line, ".mb_s", ".bytes_per_s"),
        (section, line, ".lat_ms", ".lat_mean_ms"),
        (section, line + 1, ".lat_us", ".lat_mean_us"),
        (section, line + 1, '"old_ms"', '"old_lat_mean_us"'),
    ], found
    refuse(old_ctx, strict=False)  # a warning only
    with pytest.raises(InputErrors) as caught:
        refuse(old_ctx, strict=True)
    said = str(caught.value)
    assert f"{section}: line {line}: placeholder name .mb_s is deprecated, now .bytes_per_s" in said


def _prepared_with(copy: Path, section: Path, own: str, text: str) -> ReportContext:
    """``copy`` with the conclusion's ``own`` text and then ``text``."""
    section.write_text(own + text + "\n", encoding="utf-8")
    return prepare(copy)


def _no_audit_pages(text: str) -> None:
    assert not re.search(r"[0-9a-f]{32}", text), "a SHA-256 digest (or a half of one)"
    for word in ("pydantic", "polars", "Versions", "Provenance", "Interval deviation"):
        assert word not in text, word
    assert "littles-law" not in text


def test_the_customer_edition_leaves_out_the_audit_pages(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """``--edition customer``: no checksums, versions or deviation matrix, a short data
    and method section naming where the audit material is; the audit edition (the
    default, the shared build) keeps them. The customer build also carries a renamed
    placeholder: it builds with a warning (exit 0), and ``--strict`` refuses it."""
    copy = Path(shutil.copytree(FS840, tmp_path / "fs840"))
    section = copy / "text" / "en" / "conclusion.md"
    section.write_text(section.read_text(encoding="utf-8") + OLD_NAMES + "\n", encoding="utf-8")
    strict = iopress("build", copy, "-o", tmp_path / "strict", "--strict")
    assert strict.returncode == 1 and "placeholder name .mb_s is deprecated" in strict.stderr
    assert not (tmp_path / "strict").exists()
    ran = iopress("build", copy, "-o", tmp_path / "out", "--edition", "customer")
    assert ran.returncode == 0, ran
    assert "warning:" in ran.stderr and "now .bytes_per_s" in ran.stderr, ran
    for lang, title in (("en", "Data and method"), ("de", "Daten und Methode")):
        customer = pdf_text(tmp_path / "out" / f"fs840.{lang}.pdf")
        _no_audit_pages(customer)
        assert title in customer and "manifest.json" in customer
        audit = pdf_text(fs840_build.out / f"fs840.{lang}.pdf")
        assert re.search(r"\b[0-9a-f]{32}\b", audit) and "pydantic" in audit
    english = pdf_text(tmp_path / "out" / "fs840.en.pdf")
    assert "not judged, at most 3 intervals per point" in english
    assert "Little's law" in english and "0.0 percentage points" not in english


def test_the_method_says_what_each_setup_measured(tmp_path: Path) -> None:
    """Array B measured 4K only, array A 4K at two mixes and 64K at one: the method said
    of both "100% read, 100% write for the block sizes 4K random, 64K random" (a review
    on real fio data). It says each setup's, and each block size's mixes where they
    differ."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences
    from tests.conftest import DATA
    from tests.test_chart_family import _two_setups

    folder = _two_setups(tmp_path / "r")
    shutil.copytree(DATA / "fio-sweep" / "4k_r0", folder / "a" / "4k_r0")
    ctx = prepare(folder)
    said = method_sentences(ctx, ctx.formatter("en"))
    assert (
        "Array A: We measured 4K random at 100% read and 100% write; 64K random at 100% "
        "read. Parallelism levels per server: 1, 2, 4, 8, 16." in said
    ), said
    assert (
        "Array B: We measured 100% read for the block size 4K random. Parallelism levels "
        "per server: 1, 2, 4, 8, 16." in said
    ), said
    german = method_sentences(ctx, ctx.formatter("de"))
    assert any(
        s.startswith("Array A: Gemessen wurden 4K Random mit 100% Read und ") for s in german
    )


@pytest.mark.parametrize(
    ("low", "high", "shown"), [(1.001, 1.074, "1"), (20.0, 20.0, "20"), (10.0, 900.0, "10–900")]
)
def test_an_interval_length_is_the_shortest_where_points_are_alike(
    low: float, high: float, shown: str
) -> None:
    """fio's runs of 1 s measured 1.001–1.074 s and the method said "1.1 s", beside another
    setup's "1 s"."""
    from pipeline.language import Formatter, Strings
    from pipeline.render.whitepaper import _seconds

    assert _seconds(low, high, Formatter(Strings("en"))) == shown
