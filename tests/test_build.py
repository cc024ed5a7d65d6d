"""Smoke tests of a whole build: both PDFs, the site, the data files, atomic output."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from pipeline.build import BuildResult, build
from pipeline.errors import InputErrors
from pipeline.prepare import prepare
from tests.conftest import DATA, FS840, ROOT, pdf_text


def _pdf_text(path: Path) -> tuple[int, str]:
    return len(PdfReader(path).pages), pdf_text(path)


def test_outputs_exist(fs840_build: BuildResult) -> None:
    out = fs840_build.out
    for name in (
        "fs840.de.pdf",
        "fs840.en.pdf",
        "site/index.html",
        "dataset.parquet",
        "dataset.intervals.parquet",
        "tables/min_latency.csv",
        "tables/performance.csv",
        "rejects.csv",
    ):
        assert (out / name).is_file(), name
    charts = sorted(p.name for p in (out / "charts").iterdir())
    assert "standard_random_4k.de.svg" in charts
    assert "standard_random_4k.en.pdf" in charts
    assert "standard_random_4k.en.vl.json" in charts


@pytest.mark.parametrize(
    ("lang", "words", "number", "foreign_number"),
    [
        (
            "de",
            [
                "Vorbemerkung",
                "Management Summary",
                "Abbildung 1 – Messergebnisse 4K Random",
                "Tabelle 1 – Minimale Latency abhängig von Blockgrösse",
                "Tabelle 2 – Performance abhängig von Blockgrösse",
                "Klassifikation",
                "nicht klassifiziert",
                "Fazit",
                "Seite",
            ],
            "1’008’045",
            "1,008,045",
        ),
        (
            "en",
            [
                "Preliminary note",
                "Management summary",
                "Figure 1 – Results 4K random",
                "Table 1 – Minimum latency by block size",
                "Table 2 – Performance by block size",
                "Classification",
                "unclassified",
                "Conclusion",
                "Page",
            ],
            "1,008,045",
            "1’008’045",
        ),
    ],
)
def test_pdf_language_and_number_style(
    fs840_build: BuildResult, lang: str, words: list[str], number: str, foreign_number: str
) -> None:
    pages, text = _pdf_text(fs840_build.out / f"fs840.{lang}.pdf")
    assert pages >= 6
    flat = re.sub(r"\s+", " ", text)
    for word in words:
        assert word in flat, word
    assert number in flat
    assert foreign_number not in flat


def test_pdf_has_title_and_reconstruction_notice(fs840_build: BuildResult) -> None:
    _, text = _pdf_text(fs840_build.out / "fs840.en.pdf")
    flat = re.sub(r"\s+", " ", text)
    assert "IBM all-flash storage for core applications on Power Systems" in flat
    assert "reconstructed from published figures, not measured" in flat


def test_site_pages_per_language_and_downloads(fs840_build: BuildResult) -> None:
    site = fs840_build.out / "site"
    for page in (
        "index.html",
        "fs840.html",
        "de/index.html",
        "de/fs840.html",
        "de/fs840_steady.html",
    ):
        assert (site / page).is_file(), page
    for name in (
        "fs840-de.pdf",
        "fs840-datasheet-en.pdf",
        "tables.xlsx",
        "dataset.parquet",
        "performance.csv",
    ):
        assert (site / "downloads" / "fs840" / name).is_file(), name
    assert not list(site.rglob("*-spec.json"))  # inlined in the pages
    assert (site / "assets" / "vega-embed.js").stat().st_size > 500_000
    de = (site / "de" / "fs840.html").read_text(encoding="utf-8")
    en = (site / "fs840.html").read_text(encoding="utf-8")
    assert "Messergebnisse 4K Random" in de and "1’008’045" in de
    assert "Results 4K random" in en and "1,008,045" in en
    assert "charts/fs840/standard_random_4k-de.svg" in de and 'class="iop-chart"' in de


def test_site_loads_nothing_from_outside(fs840_build: BuildResult) -> None:
    """No page loads anything from elsewhere (links a reader may follow are fine: the
    SPC-1 reports)."""
    site = fs840_build.out / "site"
    external = re.compile(r"""<(\w+)[^>]*\s(?:src|href)\s*=\s*["'](?:https?:)?//""", re.IGNORECASE)
    followed = 0
    for page in site.rglob("*.html"):
        hits = [m for m in external.finditer(page.read_text(encoding="utf-8"))]
        assert [m.group(0) for m in hits if m.group(1).lower() != "a"] == [], page
        followed += len(hits)
    assert followed == 2 * 2  # the two SPC-1 reports, in both languages
    for sheet in site.rglob("*.css"):
        assert "fonts.googleapis" not in sheet.read_text(encoding="utf-8")


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_two_cold_builds_into_different_caches_are_byte_identical(
    fs840_build: BuildResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session build drew into the session's cache; this one into a new, empty cache:
    every output file (chart PDFs, datasets, site) has the same bytes."""
    monkeypatch.setenv("IOPRESS_CACHE", str(tmp_path / "other-cache"))
    again = build(FS840, tmp_path / "again")
    assert (tmp_path / "other-cache").is_dir()  # it really drew anew
    first, second = _tree(fs840_build.out), _tree(again.out)
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert differ == []


def test_failed_build_leaves_earlier_output_untouched(tmp_path: Path) -> None:
    report = tmp_path / "report"
    shutil.copytree(FS840, report)
    out = tmp_path / "out"
    out.mkdir()
    (out / ".iopress-output").touch()  # an earlier build's output
    (out / "good.txt").write_text("earlier good output")
    broken = report / "text" / "en" / "results.md"
    broken.write_text('fine\n\nthen {{ maximum("3K", "random", 100).iops }}\n')
    with pytest.raises(InputErrors) as caught:
        build(report, out)
    assert str(caught.value).startswith(f"{broken}: line 3: placeholder")
    assert (out / "good.txt").read_text() == "earlier good output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "report"]


def test_a_refused_report_kills_the_vega_process_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vega's process starts (≈ 0.8 s) while the report is read; a refusal kills it, so
    the command answers without waiting at exit for the engine's start."""
    import signal

    from pipeline import vlrender

    vlrender.stop()  # this test process's own, if an earlier test started one
    killed: list[Any] = []
    real_stop = vlrender.stop

    def stop() -> None:
        killed.extend(vlrender.renderer().vega._processes.values())
        real_stop()

    monkeypatch.setattr(vlrender, "stop", stop)
    report = tmp_path / "report"
    shutil.copytree(FS840, report)
    (report / "raw" / "fs840.iogen.csv").write_text("host;test\nx;y;z\n", encoding="utf-8")
    with pytest.raises(InputErrors):
        build(report, tmp_path / "out")
    assert len(killed) == 1
    killed[0].join(timeout=30)
    assert killed[0].exitcode == -signal.SIGKILL
    assert vlrender.renderer.cache_info().currsize == 0  # the next build starts a new one


MIXED = Path(__file__).resolve().parent / "data" / "reports" / "mixed"


@pytest.mark.slow
def test_report_mixing_iogen_fio_and_vdbench_builds(tmp_path: Path) -> None:
    result = build(MIXED, tmp_path / "mixed")
    assert sorted(set(result.dataset.points["tool"].to_list())) == ["fio", "iogen", "vdbench"]
    assert result.dataset.accounting() == {"records_read": 12, "accepted": 11, "rejected": 1}
    _, text = _pdf_text(result.out / "mixed.en.pdf")
    flat = re.sub(r"\s+", " ", text)
    assert "Mixed sources: <test> & #1 $5 *bold*" in flat  # literal, never markup
    assert "Test System #1 <A&B>" in flat
    page = (result.out / "site" / "mixed.html").read_text(encoding="utf-8")
    assert "Mixed sources: &lt;test&gt; &amp; #1 $5 *bold*" in page
    perf = (result.out / "tables" / "performance.csv").read_text(encoding="utf-8")
    assert perf.startswith('"setup","queue_depth","access",')  # the registry's, always


def test_directives_place_a_table_and_a_chart(fs840_context: object) -> None:
    from pipeline.render import whitepaper

    typ = whitepaper.body(fs840_context, "en")  # type: ignore[arg-type]
    summary = typ[typ.index('"Management summary"') : typ.index('"Benchmark setup"')]
    assert "<tab-min_latency>" in summary and "<fig-standard_random_4k>" in summary
    assert typ.count("<tab-min_latency>") == 1 and typ.count("<fig-standard_random_4k>") == 1


def test_unknown_directive_names_file_and_line(tmp_path: Path) -> None:
    report = tmp_path / "report"
    shutil.copytree(FS840, report)
    text = report / "text" / "de" / "conclusion.md"
    text.write_text('Fazit.\n\n{{ chart("nope") }}\n', encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        build(report, tmp_path / "out")
    assert f"{text}: line 3: placeholder names nothing: no chart 'nope'" in str(caught.value)


@pytest.mark.parametrize("sponsor", [None, '""', '{ de = "", en = "" }'])
def test_no_sponsor_leaves_no_empty_preliminary_note(tmp_path: Path, sponsor: str | None) -> None:
    """The sponsor disclosure is optional (issue 33): without one, or an empty one, the
    report has no "1 Vorbemerkung" with nothing under it."""
    from pipeline.render import whitepaper

    report = Path(shutil.copytree(DATA / "reports" / "mixed", tmp_path / "report"))
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("sponsor = "))
    toml.write_text(text.replace(line, f"sponsor = {sponsor}" if sponsor else ""), "utf-8")
    ctx = prepare(report)
    for lang, word in (("de", "Vorbemerkung"), ("en", "Preliminary note")):
        body = whitepaper.body(ctx, lang)
        assert word not in body
        assert '#heading(level: 1, "Management' in body


def test_section_in_one_language_only(tmp_path: Path) -> None:
    report = tmp_path / "report"
    shutil.copytree(FS840, report)
    extra = report / "text" / "de" / "results.md"
    (report / "text" / "en" / "results.md").unlink()
    with pytest.raises(InputErrors) as caught:
        build(report, tmp_path / "out")
    assert f"{extra}: section has no en counterpart\n  hint: write text/en/results.md" in str(
        caught.value
    )


def test_manifest_traces_every_figure_to_raw_lines(fs840_build: BuildResult) -> None:
    import hashlib
    import json

    manifest = json.loads((fs840_build.out / "manifest.json").read_text(encoding="utf-8"))
    raw = FS840 / "raw" / "fs840.iogen.csv"
    files = {e["path"]: e for e in manifest["inputs"]}
    assert files["report.toml"]["format"] == "report"
    assert files["text/de/summary.md"]["format"] == "narrative"
    entry = files["raw/fs840.iogen.csv"]
    assert entry["sha256"] == hashlib.sha256(raw.read_bytes()).hexdigest()
    assert entry["size"] == raw.stat().st_size
    assert manifest["versions"]["iopress"] and manifest["versions"]["typst"] == "0.15.0"
    maxima = [
        f
        for f in manifest["figures"]
        if f["table"] == "performance"
        and f["row"]["kind"] == "maximum"
        and f["column"] == "iops"
        and f["row"]["block_size"] == 1024
        and f["row"]["read_pct"] == 100.0
    ]
    (figure,) = maxima
    assert round(figure["value"]) == 1_008_045 and figure["unit"] == "IOPS"
    (origin,) = figure["derived_from"]
    lines = raw.read_text(encoding="utf-8").splitlines()
    assert origin["source"] == "raw/fs840.iogen.csv" and len(origin["lines"]) == 6
    assert all(
        ";256;" in lines[n - 1] and ";1K;random;100;" in lines[n - 1] for n in origin["lines"]
    )
    tables = {f["table"] for f in manifest["figures"]}
    assert tables >= {
        "performance",
        "min_latency",
        "iops_at_latency",
        "cost",
        "footprint",
        "spc1",
        "spc1_sizing",
        "speedup",
    }
    # an SPC-1 row derives from its own record, not from every record the report names
    records = {"FS 900": "AE00008", "OS 18'800 V3": "A00163"}
    for f in manifest["figures"]:
        if f["table"] in ("spc1", "spc1_sizing"):
            wanted = [{"source": f"data/spc1/{records[f['row']['system']]}.toml"}]
            assert f["derived_from"] == wanted, f


def test_a_typst_error_is_an_input_error_naming_the_source(tmp_path: Path) -> None:
    import datetime as dt

    from pipeline.errors import InputError
    from pipeline.render.typst_doc import compile_pdf

    source = tmp_path / "broken.typ"
    source.write_text("#let x = \n#foo(", encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.typ: typst: the document does not compile"):
        compile_pdf(source, tmp_path / "broken.pdf", tmp_path, dt.date(2026, 1, 1))
    assert not (tmp_path / "broken.pdf").exists()


def test_a_host_name_no_tool_gave_is_refused(tmp_path: Path) -> None:
    """[[hosts]] raw names a host the data does not have: the report would state a
    mapping that is not there. Refused, naming the entry and the data's hosts."""
    report = tmp_path / "report"
    shutil.copytree(MIXED, report)
    toml = report / "report.toml"
    entry = '\n[[hosts]]\nname = "loadgen-A"\nraw = ["perf99:8765"]\n'
    toml.write_text(toml.read_text(encoding="utf-8") + entry, encoding="utf-8")
    with pytest.raises(InputErrors) as refused:
        build(report, tmp_path / "out")
    said = str(refused.value)
    assert "report.toml: hosts[0].raw[0]: no host 'perf99:8765' in the data" in said
    assert "(its hosts: hostA, hostB, local)" in said and not (tmp_path / "out").exists()


def test_a_note_two_tables_share_is_printed_once(tmp_path: Path) -> None:
    """The key figures' note (how the optimum is found) is the first sentence of the
    performance table's: with both tables in the section it is said once."""
    report = tmp_path / "report"
    shutil.copytree(MIXED, report)
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text('tables = ["performance", "key_figures"]\n' + text, encoding="utf-8")
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import body

    ctx = prepare(report)  # the documents' sources, as a build writes them
    sentence = "The optimum holds as long as I/O performance rises relatively faster"
    assert body(ctx, "en").count(sentence) == 1
    assert body(ctx, "de").count("Der Optimalwert ist") == 1


def test_the_method_names_the_servers_of_each_setup(tmp_path: Path) -> None:
    """Two servers in one setup, one in the other: the method said "on 2 servers" for
    both (the largest count). Now it says it per setup where they differ."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences

    report = tmp_path / "report"
    shutil.copytree(MIXED, report)
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace('path = "raw/iogen.csv"', 'path = "raw/iogen.csv"\nsetup = "two"')
    text = text.replace('path = "raw/fio.json"', 'path = "raw/fio.json"\nsetup = "one"')
    text = text.replace('path = "raw/vdbench.html"', 'path = "raw/vdbench.html"\nsetup = "one"')
    setups = '[[setups]]\nname = "two"\n[[setups]]\nname = "one"\n'
    toml.write_text(text.replace("[[sources]]", setups + "[[sources]]", 1), encoding="utf-8")
    ctx = prepare(report)
    said = " ".join(method_sentences(ctx, ctx.formatter("en")))
    assert "two: The load was generated synchronously on 2 servers." in said
    assert "one: The load was generated on one server." in said


def test_the_intervals_are_said_per_setup_where_they_differ() -> None:
    """fs820's Iometer points ran 60 s, its CrystalDiskMark points 5 s: "one interval of
    5–60 s" read as one kind of run. A consultant's fio setup (one interval of 1 s) beside
    an IOgen setup (3 of 20 s) read "3 intervals of 1–20 s", true of neither."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import _intervals_sentence

    ctx = prepare(ROOT / "data" / "examples" / "fs820")
    said = _intervals_sentence(ctx.dataset.intervals, ctx.formatter("en"))
    assert said == (
        "One FC link, without MPIO and two FC links with Multipath I/O (MPIO): Each point "
        "was measured in one interval of 60 s. CrystalDiskMark, one FC link, without MPIO "
        "and CrystalDiskMark, two FC links with MPIO: Each point was measured in one "
        "interval of 5 s."
    )
    mixed = prepare(MIXED)  # one setup: IOgen's 2 intervals of 20 s, fio's one of 1 s
    said = _intervals_sentence(mixed.dataset.intervals, mixed.formatter("de"))
    assert said.startswith("Pro Messpunkt wurden 1 bis 2 Intervalle von 1–20 s gemessen")


def test_setups_alike_share_their_queue_depth_sentence() -> None:
    """fs820's two Iometer setups printed the same queue-depth sentence twice, each begun
    in lower case; a description of one-letter first word ("a link") stayed lower too."""
    from pipeline.language import Formatter, Strings
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import _setups_named, method_sentences

    ctx = prepare(ROOT / "data" / "examples" / "fs820")
    said = [s for s in method_sentences(ctx, ctx.formatter("en")) if "Queue depths" in s]
    assert len(said) == 2 and said[0].startswith("One FC link, without MPIO and two FC")
    described = {"a": "a single link", "b": "iSCSI path", "c": "nvme8n1 rw", "d": "scratch0 file"}
    fmt = Formatter(Strings("en"), described)
    assert _setups_named(["a"], fmt) == "A single link"
    assert _setups_named(["b"], fmt) == "iSCSI path"
    # a device's name is no word to capitalise ("Nvme8n1 rw", "Scratch0 file")
    assert [_setups_named([k], fmt) for k in "cd"] == ["nvme8n1 rw", "scratch0 file"]
    assert _setups_named(["plain-id"], fmt) == "plain-id"


def test_the_method_names_a_range_where_a_setup_s_points_differ() -> None:
    """fs820's Iometer sweeps ran on server 1 alone, its block-size tests on both: the
    method said "synchronously on 2 servers" of each setup."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences

    ctx = prepare(ROOT / "data" / "examples" / "fs820")
    for lang, words in (
        (
            "en",
            "One FC link, without MPIO and two FC links with Multipath I/O (MPIO): The load "
            "was generated synchronously on 1 to 2 servers, depending on the point.",
        ),
        (
            "de",
            "Ein FC-Link, ohne MPIO und zwei FC-Links mit Multipath I/O (MPIO): Die Last "
            "wurde je nach Messpunkt synchron auf 1 bis 2 Servern erzeugt.",
        ),
    ):
        said = " ".join(method_sentences(ctx, ctx.formatter(lang)))
        assert words in said and "synchronously on 2 servers" not in said


def test_the_method_prints_what_each_setup_is_for_one_setup_too(tmp_path: Path) -> None:
    """A setup's description (a campaign's: engine, direct I/O, depths, warm-up) was shown
    only as the label of several setups; with one setup nowhere. Now the method prints it,
    with the setup's name where there are several."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences

    report = tmp_path / "report"
    shutil.copytree(MIXED, report)
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    one = '[[setups]]\nname = "default"\ndescription = { de = "fio, Engine libaio.", '
    one += 'en = "fio, engine libaio." }\n'
    toml.write_text(text.replace("[[sources]]", one + "[[sources]]", 1), encoding="utf-8")
    ctx = prepare(report)
    assert method_sentences(ctx, ctx.formatter("en"))[0] == "Setup: fio, engine libaio."
    assert method_sentences(ctx, ctx.formatter("de"))[0] == "Setup: fio, Engine libaio."
    text = text.replace('path = "raw/fio.json"', 'path = "raw/fio.json"\nsetup = "b"')
    two = '[[setups]]\nname = "a"\ndescription = { de = "A", en = "first" }\n'
    two += '[[setups]]\nname = "b"\ndescription = { de = "B", en = "second" }\n'
    text = text.replace("[[sources]]", two + "[[sources]]", 1)
    toml.write_text(text.replace('path = "raw/iogen.csv"', 'path = "raw/iogen.csv"\nsetup = "a"'))
    toml.write_text(
        toml.read_text().replace('"raw/vdbench.html"', '"raw/vdbench.html"\nsetup = "a"')
    )
    ctx = prepare(report)
    said = method_sentences(ctx, ctx.formatter("en"))
    assert said[:2] == ["Setup a: first.", "Setup b: second."]


def test_the_method_names_the_queue_depths_with_their_levels() -> None:
    """A product of depths and levels is one list; seed 002's grid (QD 1…32 at one worker,
    the workers rising at QD 4) says which levels each depth had; one depth, as one."""
    import polars as pl

    from pipeline.language import Formatter
    from pipeline.language.strings import Strings
    from pipeline.render.whitepaper import _depth_sentences

    def said(pairs: list[tuple[int, int]], lang: str = "en", blocks: object = None) -> list[str]:
        n = len(pairs)
        frame = pl.DataFrame(
            {"setup": ["s"] * n, "queue_depth": [d for d, _ in pairs]}
            | {"parallelism": [p for _, p in pairs], "access": ["random"] * n}
            | {"block_size": blocks or [4096] * n, "read_pct": [100.0] * n}
        )
        return _depth_sentences(frame, Formatter(Strings(lang)))

    product = [(d, p) for d in (1, 4, 16) for p in (1, 2, 4)]
    assert said(product) == [
        "Queue depths (I/Os in flight per worker): 1, 4, 16, each at every parallelism level."
    ]
    grid = [(d, 1) for d in (1, 2, 4, 8, 16, 32)] + [(4, p) for p in (2, 4, 8, 16)]
    assert said(grid) == [
        "Queue depths (I/Os in flight per worker): 1, 2, 8, 16, 32 at parallelism 1; "
        "4 at parallelism 1, 2, 4, 8, 16."
    ]
    assert said([(4, 1), (4, 2)], "de") == ["Queue Depth (gleichzeitige I/Os je Worker): 4."]
    # PerfKitBenchmarker: 4K at QD 1 and 64, 512K only at QD 64: said, not left to be read
    # as every profile at every depth
    (mixed,) = said([(1, 1), (64, 1), (64, 1)], blocks=[4096, 4096, 524288])
    assert mixed.endswith(
        "Not every profile at every queue depth: queue depth 1: 4K random 100% read; "
        "queue depth 64: 4K random 100% read, 512K random 100% read."
    ), mixed


@pytest.mark.parametrize(
    ("raw", "mapped"),
    [
        (["127.0.0.1:8765"], {"127.0.0.1:8765": "a"}),  # as the tool gives it
        (["loadgen:8765"], None),  # no such host
        (["127.0.0.1"], None),  # two servers on that address: which one?
    ],
)
def test_host_names_match_the_data(raw: list[str], mapped: dict[str, str] | None) -> None:
    from pipeline.config import Report
    from pipeline.dataset.hosts import host_names

    report = Report.model_validate(
        {**_minimal_report(), "hosts": [{"name": "a", "raw": raw}]}, strict=False
    )
    found = ["127.0.0.1:8765", "127.0.0.1:8766"]
    if mapped is None:
        with pytest.raises(InputErrors, match=r"hosts\[0\]\.raw\[0\]: no host"):
            host_names(report, Path("report.toml"), True, found)
        assert host_names(report, Path("report.toml"), False, found) == {}  # a file failed
    else:
        assert host_names(report, Path("report.toml"), True, found) == mapped
    # one server on the address: a name without the port is the campaign's way to name it
    one = host_names(report, Path("report.toml"), False, ["127.0.0.1:8765"])
    assert one == ({"127.0.0.1:8765": "a"} if raw[0].startswith("127") else {})


def _minimal_report() -> dict[str, object]:
    import tomllib

    return tomllib.loads((MIXED / "report.toml").read_text(encoding="utf-8"))


def _one_source(folder: Path, raw: Path) -> Path:
    """The mixed test report with ``raw`` as its only raw file."""
    shutil.copytree(MIXED, folder, ignore=shutil.ignore_patterns("raw"))
    (folder / "raw").mkdir()
    shutil.copy(raw, folder / "raw" / raw.name)
    toml = (folder / "report.toml").read_text(encoding="utf-8")
    toml = toml[: toml.index("[[sources]]")] + f'[[sources]]\npath = "raw/{raw.name}"\n'
    (folder / "report.toml").write_text(toml, encoding="utf-8")
    return folder


def test_the_method_says_percentiles_of_several_servers_are_an_upper_bound(
    tmp_path: Path,
) -> None:
    """fio client/server on two servers (tests/data/fio-truth/cs): each percentile is the
    larger server's; the method would say so beside a percentile chart, but one point
    draws none. One mix, not 100/70/0: its colours are the legend's (not "other
    mixes")."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences
    from tests.conftest import DATA

    ctx = prepare(_one_source(tmp_path / "cs", DATA / "fio-truth" / "cs" / "cs.json"))
    # one point: its percentile chart would be a column of dots, left out and named; the
    # method speaks of the percentiles only where their chart is drawn
    assert "percentiles" in {r.kind for r in ctx.left_out()} and ctx.charts == []
    said = " ".join(method_sentences(ctx, ctx.formatter("en")))
    assert "upper bound" not in said
    rates = _one_source(tmp_path / "vdb", DATA / "vdbench" / "vdbconvert_flatfile.html")
    ctx = prepare(rates)  # 75 % read only
    said = " ".join(method_sentences(ctx, ctx.formatter("en")))
    assert "Colours: the mixes as in the legend." in said and "upper bound" not in said


def test_a_table_in_the_narrative_builds(tmp_path: Path) -> None:
    report = tmp_path / "report"
    shutil.copytree(MIXED, report)
    for lang in ("de", "en"):
        summary = report / "text" / lang / "summary.md"
        table = "\n| Host | Role |\n|---|---|\n| A | load |\n"
        summary.write_text(summary.read_text(encoding="utf-8") + table, encoding="utf-8")
    out = build(report, tmp_path / "out").out
    assert "load" in pdf_text(out / "mixed.en.pdf")
    assert "<td>load</td>" in (out / "site" / "mixed.html").read_text(encoding="utf-8")


def test_the_method_names_the_range_of_interval_lengths(fs840_context: object) -> None:
    """Points measured for different times (DiskSpd runs of 10 s and 900 s) were said to be
    measured in intervals of the median length; the method names the range, and says
    nothing of fio's remainder snapshot where no fio data is."""
    import polars as pl

    from pipeline.render.whitepaper import _intervals_sentence
    from pipeline.report.context import ReportContext

    ctx: ReportContext = fs840_context  # type: ignore[assignment]
    fmt = ctx.formatter("en")
    intervals = ctx.dataset.intervals
    assert _intervals_sentence(intervals, fmt).startswith(
        "Each point was measured in 3 intervals of 20 s"
    )
    longer = pl.when(pl.col("block_size") == 4096).then(900.0).otherwise(pl.col("interval_s"))
    said = _intervals_sentence(intervals.with_columns(longer.alias("interval_s")), fmt)
    assert "3 intervals of 20–900 s" in said and "fio" not in said


def test_the_method_names_the_target_rates_of_a_rate_limited_run(fs840_context: object) -> None:
    """A rate-limited campaign (rate_iops) reached its cap and the report said nothing of
    it: 'reached at most 1,999 IOPS' read as what the system can do."""
    import polars as pl

    from pipeline.render.whitepaper import rate_sentences
    from pipeline.report.context import ReportContext

    ctx: ReportContext = fs840_context  # type: ignore[assignment]
    points = ctx.dataset.points
    assert rate_sentences(points, ctx.formatter("en")) == []
    capped = points.with_columns(pl.lit(2000.0).alias("target_iops"))
    (said,) = rate_sentences(capped, ctx.formatter("de"))
    assert "2’000 IOPS begrenzt" in said


def test_a_table_without_rows_compiles(tmp_path: Path) -> None:
    """CrystalDiskMark 6 prints no latency: the performance and minimum-latency tables of
    its report have no row, and typst refused the table's stray comma ('unexpected
    comma ... this is a bug'). A table without rows is its header alone."""
    folder = tmp_path / "cdm6"
    (folder / "raw").mkdir(parents=True)
    shutil.copy(DATA / "crystaldiskmark" / "cdm6.txt", folder / "raw" / "cdm6.txt")
    (folder / "report.toml").write_text(
        'id = "cdm6"\ntitle = { de = "CDM", en = "CDM" }\nauthor = "A"\nversion = "1"\n'
        'organisation = "B"\ndate = 2026-01-01\n'
        'classification = { de = "intern", en = "internal" }\n'
        '[system]\nname = "Drive"\nvendor = "V"\n[[sources]]\npath = "raw/cdm6.txt"\n',
        encoding="utf-8",
    )
    for lang in ("de", "en"):
        (folder / "text" / lang).mkdir(parents=True)
        for name in ("summary", "setup", "method", "results", "conclusion"):
            (folder / "text" / lang / f"{name}.md").write_text("Text.\n", encoding="utf-8")
    result = build(folder, tmp_path / "out")
    assert (result.out / "cdm6.en.pdf").is_file()


def test_a_worker_process_does_not_import_the_main_module(tmp_path: Path) -> None:
    """Vega's process and the ingest pool's workers are spawned: without care each one
    imports the parent's main module first (for a build the ``iopress`` command line,
    typer and the commands), ≈ 0.15 CPU-s it never uses."""
    script = tmp_path / "main.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "from pipeline import procs\n"
        "MARK = 1\n"
        "if __name__ == '__main__':\n"
        "    with procs.pool(1) as pool:\n"
        "        seen = \"hasattr(__import__('sys').modules.get('__mp_main__'), 'MARK')\"\n"
        "        print(pool.submit(eval, seen).result(), pool.submit(sum, [1, 2]).result())\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "3"]


def test_the_page_header_names_the_version(fs840_build: BuildResult) -> None:
    """The header printed "1.03" alone at the top right of every page, where it read as a
    page number; it says "Version 1.03" (the title page's word)."""
    for lang in ("en", "de"):
        page = PdfReader(fs840_build.out / f"fs840.{lang}.pdf").pages[3].extract_text()
        assert "Version 1.03" in page.splitlines()[0]


def test_a_host_of_the_data_report_toml_does_not_describe_is_listed(tmp_path: Path) -> None:
    """pbench's client/server run described perf36 only: the method said "on 2 servers"
    and the list of test servers named one. A host of the data that no [[hosts]] entry
    names (nor lists among its raw names, nor among "vm1, vm2, vm3") is listed too."""
    from pipeline.render.whitepaper import _setup
    from pipeline.report.chapters import declared

    folder = tmp_path / "fs840"
    shutil.copytree(FS840, folder)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    start = text.index('[[hosts]]\nname = "S824"')
    end = text.index("\n\n", start)
    toml.write_text(text[:start] + text[end + 2 :], encoding="utf-8")
    ctx = prepare(folder)
    chapter = next(c for c in declared(ctx.report) if c.key == "setup")
    said = "\n".join(_setup(ctx, ctx.formatter("en"), chapter))
    assert "S824 (not described in report.toml)" in said
    assert "p760 (not described" not in said


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "block sizes stay binary: 4K = 4096 bytes"), ("de", "Blockgrössen bleiben binär")],
)
def test_decimal_units_say_the_block_sizes_stay_binary(
    tmp_path: Path, lang: str, said: str
) -> None:
    """units = "decimal" said "KB = 1000 bytes" beside block sizes "4K" of 4096 bytes."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences

    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8").replace("\n[system]", 'units = "decimal"\n\n[system]')
    toml.write_text(text, encoding="utf-8")
    ctx = prepare(report)
    assert said in " ".join(method_sentences(ctx, ctx.formatter(lang)))
