"""The site beside the PDF: the same table and figure numbers, language links that work
from any folder and from file://, the German name on German pages, the vendor blue, and
a comparison page that shows every setup of every system, with a table."""

from __future__ import annotations

import gzip
import html
import json
import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.build import BuildResult
from pipeline.render import site
from pipeline.report.context import ReportContext
from tests.conftest import DATA, FS840, pdf_text

MIXED = DATA / "reports" / "mixed"

CAPTION = {"de": r"(?:Tabelle|Abbildung) \d+ – [^<*]+", "en": r"(?:Table|Figure) \d+ – [^<*]+"}


def _page(out: Path, lang: str) -> str:
    return (out / "site" / ("de/fs840.html" if lang == "de" else "fs840.html")).read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("lang", ["de", "en"])
def test_numbers_equal_the_pdf(fs840_build: BuildResult, lang: str) -> None:
    pdf = " ".join(pdf_text(fs840_build.out / f"fs840.{lang}.pdf").split())
    captions = [
        " ".join(c.split()) for c in re.findall(CAPTION[lang], _page(fs840_build.out, lang))
    ]
    assert len(captions) >= 8 + 6
    assert [c for c in captions if c not in pdf] == []


def test_language_links_are_relative(fs840_build: BuildResult) -> None:
    for page in (fs840_build.out / "site").rglob("*.html"):
        if page.name == "404.html":  # served at any address: only absolute links hold
            continue
        switch = re.findall(r'<a href="([^"]*)" hreflang=', page.read_text(encoding="utf-8"))
        assert switch and [h for h in switch if h.startswith("/")] == [], page


def test_german_pages_carry_the_german_title(fs840_build: BuildResult) -> None:
    title = re.search(r"<title>([^<]*)</title>", _page(fs840_build.out, "de"))
    assert title and title[1].endswith(
        "IBM Full Flash Storage für Kern-Applikationen auf Power Systemen"
    )
    assert "all-flash" not in title[1]


def test_vendor_figures_are_blue(fs840_build: BuildResult) -> None:
    assert '<strong class="iop-vendor">1’100’000 (IBM)</strong>' in _page(fs840_build.out, "de")
    css = (fs840_build.out / "site" / site.STYLESHEET).read_text(encoding="utf-8")
    assert ".iop-vendor { color: #1f5aa6; }" in css


def test_comparison_shows_every_setup_with_a_table(
    fs840_context: ReportContext, a800_shared: BuildResult, tmp_path: Path
) -> None:
    built = [site.Built(fs840_context, tmp_path), site.Built(a800_shared.ctx, tmp_path)]
    page = site.pages(built)["compare.md"]
    for label in ("IBM FlashSystem 840 |", "NetApp AFF A800 – 48 vCPUs per VM", "A800 – 4 vCPUs"):
        assert page.count(label) == 2, label  # 8K random read and write
    assert page.count("| System | Max\\. IOPS | at parallelism | Min\\. service time |") == 2
    assert "| NetApp AFF A800 – 48 vCPUs per VM | 732,767 | 384 |" in page.replace("\\", "")
    # the minimum latency as the min_latency table prints it (seed 004: 261 µs, not 0.26 ms)
    assert "| NetApp AFF A800 – 48 vCPUs per VM | 732,767 | 384 | 261\u00a0µs |" in page.replace(
        "\\", ""
    )


def test_every_link_names_a_file(fs840_build: BuildResult) -> None:
    """From file:// a link to a folder shows its listing: every link between the site's
    pages names a file that exists (the browser test follows them in Chromium)."""
    site = fs840_build.out / "site"
    for page in site.rglob("*.html"):
        if page.name == "404.html":  # served at any address: only absolute links hold
            continue
        for href in re.findall(r'<a href="([^"#]+)', page.read_text(encoding="utf-8")):
            if not href.startswith(("http://", "https://")):
                assert (page.parent / href).is_file(), f"{page.relative_to(site)}: {href}"


def test_a_chart_spec_cannot_end_its_script_element() -> None:
    hostile = {"title": "</script><script>alert(1)</script><!-- & \u2028", "n": [1, 2.5]}
    text = site.script_json(json.dumps(hostile))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == hostile


def test_specs_are_inlined_only_in_their_stand_ins(tmp_path: Path) -> None:
    spec = tmp_path / "x.vl.json"
    spec.write_text('{"mark": "line"}', encoding="utf-8")
    chart = site.chart_md("charts/r/x-en.svg", "alt", "caption")
    quoted = 'data-chart="charts/r/x-en.svg"&gt;&lt;/script&gt;'  # what a report text can give
    page = site.inline_specs(chart + quoted, {"charts/r/x-en.svg": spec})
    assert '<script type="application/json" class="iop-spec">{"mark":"line"}</script>' in page
    assert page.endswith(quoted)


def test_a_table_cell_stays_text(tmp_path: Path) -> None:
    """A table is raw HTML, set aside whole (``mkdocs_tables``): no cell's text becomes
    markup, ends the table or brings back another set-aside block."""
    import markdown

    from pipeline.report.views import Span, TableView

    hostile = "</td></table>\n\n<script>alert(1)</script>\n\n<table>\n<thead>\x02wzxhzdk:0\x03 *x*"
    view = TableView(
        "t",
        "caption",
        [hostile, "b"],
        [[[Span(hostile)], [Span(hostile, "mono"), Span("v", "vendor")]]],
        words=(1,),
    )
    text = f"before\n\n{site.html_table(view)}\nafter\n"
    extensions = ["tables", "attr_list", "md_in_html", "pipeline.render.mkdocs_tables"]
    out = markdown.markdown(text, extensions=extensions)
    assert "<script" not in out and out.count("<table>") == 1 and out.count("</table>") == 1
    assert out.count("&lt;/td&gt;&lt;/table&gt;") == 3 and "*x*" in out and "<em>" not in out
    assert "<code>&lt;/td&gt;" in out and '<strong class="iop-vendor">v</strong>' in out
    assert out.startswith("<p>before</p>") and out.endswith("<p>after</p>")


def test_details_pages_show_environment_and_verdicts(
    fs840_context: ReportContext, a800_shared: BuildResult, tmp_path: Path
) -> None:
    built = [site.Built(fs840_context, tmp_path), site.Built(a800_shared.ctx, tmp_path)]
    found = site.pages(built)
    assert "[Steady state](a800_steady.md)" in found["a800.md"]
    environment = found["a800_environment.de.md"]
    assert "## Getestetes System" in environment and "vm1, vm2, vm3" in environment
    assert "keine Maschinenbeschreibung" in environment
    steady = found["fs840_steady.md"]
    assert "Every point's verdict" in steady
    assert steady.count("<td>not measurable</td>") == fs840_context.steady.height


def test_comparison_notes_parallelism_counted_per_different_units(
    fs840_context: ReportContext, a800_shared: BuildResult, tmp_path: Path
) -> None:
    built = [site.Built(fs840_context, tmp_path), site.Built(a800_shared.ctx, tmp_path)]
    page = html.unescape(site.pages(built)["compare.md"].replace("\\", ""))
    assert "per server for IBM FlashSystem 840; per VM for NetApp AFF A800" in page
    # and what each report's PDF says of its data: reconstructed, paid for, measured where
    where = "on the server for IBM FlashSystem 840; in the VM for NetApp AFF A800"
    assert f"Service time is not measured at the same place everywhere ({where})" in page
    for b in built:
        r = b.ctx.report
        assert r.sponsor and f"{r.system.name}: {r.sponsor['en']}" in page
        assert f"{r.system.name}: the data is reconstructed from published figures" in page
    assert "Units: KB = 1024 bytes, MB = 1024² bytes." in page
    same = site.compare_notes([built[0], built[0]], site.site_formatter(built, "en"))
    assert not any("counted" in n or "the same place" in n for n in same)


def test_two_reports_of_one_system_stay_two_series(
    fs840_context: ReportContext, tmp_path: Path
) -> None:
    """The same drive measured in two machines: two reports with one system name. Their
    points were one series (a curve through both reports' levels) and the comparison
    table took one's rate beside the other's latency; each now names its report."""
    from dataclasses import replace

    other = replace(fs840_context, report=fs840_context.report.model_copy(update={"id": "b"}))
    built = [site.Built(fs840_context, tmp_path), site.Built(other, tmp_path)]
    profiles = site.comparison_profiles(built, "en")
    assert profiles
    for points in profiles.values():
        by_label = points.group_by("label").agg(pl.col("report").unique())
        assert all(len(reports) == 1 for reports in by_label["report"].to_list())
        assert by_label.height == 2


@pytest.mark.parametrize("other", ["fs840_steady", "index", "compare"])
def test_a_report_id_cannot_replace_another_page(
    fs840_context: ReportContext, tmp_path: Path, other: str
) -> None:
    """A report with id 'x_steady' replaced report x's steady-state page (x's link then led
    to another vendor's report), 'index' the landing page: refused, naming the id."""
    from dataclasses import replace

    from pipeline.errors import InputError

    renamed = replace(fs840_context, report=fs840_context.report.model_copy(update={"id": other}))
    built = [site.Built(fs840_context, tmp_path), site.Built(renamed, tmp_path)]
    with pytest.raises(InputError, match="a page the site has already"):
        site.pages(built)


def test_no_404_page_or_sitemap_without_the_sites_address(fs840_build: BuildResult) -> None:
    """Without the address the site is published at, mkdocs wrote a 404 page whose links
    start at the server's root (broken under any sub-path) and a sitemap of "None…"
    addresses. Neither is written now."""
    found = [name for name in site.UNPUBLISHED if (fs840_build.out / "site" / name).exists()]
    assert found == []


def test_the_sites_address_makes_its_404_page_and_sitemap(
    fs840_build: BuildResult, tmp_path: Path
) -> None:
    """Published at https://example.org/reports/ (``--site-url``): the 404 page, served at
    any depth, links from /reports/ to files that exist; the sitemap lists every page by
    its address, the German ones included."""
    from pipeline.publish import write_combined_site

    url = "https://example.org/reports/"
    write_combined_site([fs840_build], tmp_path / "site", url)
    built = tmp_path / "site"
    missing = built / "404.html"
    links = re.findall(r'(?:href|src)="(/[^"#?]*)', missing.read_text(encoding="utf-8"))
    assert links and [u for u in links if not u.startswith("/reports/")] == []
    assert [u for u in links if not (built / u.removeprefix("/reports/")).is_file()] == []
    assert '<html lang="en"' in missing.read_text(encoding="utf-8")  # not the last built
    sitemap = (built / "sitemap.xml").read_text("utf-8")
    listed = re.findall(r"<loc>([^<]*)</loc>", sitemap)
    assert f"{url}fs840.html" in listed and f"{url}de/fs840.html" in listed
    assert [u for u in listed if not (built / u.removeprefix(url)).is_file()] == []
    date = fs840_build.ctx.report.date.isoformat()  # not the day of the build
    assert set(re.findall(r"<lastmod>([^<]*)</lastmod>", sitemap)) == {date}
    assert "changefreq" not in sitemap
    packed = (built / "sitemap.xml.gz").read_bytes()
    assert packed[4:8] == b"\0\0\0\0" and gzip.decompress(packed).decode() == sitemap


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("example.org/reports", "no http"),
        ("ftp://example.org/", "no http"),
        ("https:///reports/", "no http"),
        ("https://example.org/?page=1", "without ?query"),
        ('https://example.org/"><script>', "%-encoded"),
        ("https://example.org/my reports/", "%-encoded"),
        ("https://example.org/a&b/", "%-encoded"),
        ("https://example.org/%2/", "%-encoded"),
        ("https://user:secret@example.org/", "user or password"),
        ("https://@/", "user or password"),
        ("https://:80/", "give the host"),
        ("https://bücher.de/", "xn-- form"),
        ("https://example.org:notaport/", "the port"),
        ("https://example.org:99999/", "the port"),
        ("https://example.org/../r/", "'..' parts"),
        ("https://example.org/r/index.html", "names a page"),
    ],
)
def test_a_site_address_that_is_none_is_refused(given: str, why: str, tmp_path: Path) -> None:
    from tests.cli import iopress

    ran = iopress("site", "--site-url", given, "-o", tmp_path / "out", tmp_path)
    assert ran.returncode == 2 and why in ran.stderr, ran
    assert not (tmp_path / "out").exists()


def test_a_downloaded_pdf_keeps_its_build_name(fs840_build: BuildResult) -> None:
    """The site stores fs840.de.pdf as fs840-de.pdf (the i18n plugin takes a ".de." name
    for a German page's file); a browser saves it as the build named it."""
    page = _page(fs840_build.out, "en")
    for name in ("fs840.de.pdf", "fs840.en.pdf", "fs840-datasheet.de.pdf"):
        stored = name.replace(".de.", "-de.").replace(".en.", "-en.")
        assert f'<a download="{name}" href="downloads/fs840/{stored}">' in page
        assert (fs840_build.out / name).is_file()
        assert (fs840_build.out / "site" / "downloads" / "fs840" / stored).is_file()


def test_a_report_called_site_is_refused_by_the_site_command(tmp_path: Path) -> None:
    """out/<id> is a report's build and out/site the combined site: a report with id
    "site" was built there, then replaced by the site (its manifest and tables gone)."""
    import shutil

    from tests.cli import iopress

    folder = tmp_path / "vendor"
    shutil.copytree(FS840, folder)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('id = "fs840"', 'id = "site"', 1), encoding="utf-8")
    ran = iopress("site", folder, "-o", tmp_path / "out")
    assert ran.returncode == 1 and "may not be called 'site'" in ran.stderr, ran
    assert not (tmp_path / "out" / "site").exists()


@pytest.mark.slow
def test_a_site_that_fails_half_way_leaves_the_earlier_one_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """iopress site A B: B refused after A was built replaced out/A with the new build
    beside the old site (exit 1). The whole output is made aside and swapped in only when
    every report and the site are done."""
    import shutil

    from pipeline import build as building
    from pipeline import publish
    from pipeline.errors import InputError

    first, other, out = tmp_path / "first", tmp_path / "other", tmp_path / "out"
    shutil.copytree(FS840, first)
    publish.build_many([first], out)
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    summary = first / "text" / "en" / "summary.md"  # A changed: its new build differs
    summary.write_text(summary.read_text(encoding="utf-8") + "\nOne more sentence.\n")
    shutil.copytree(FS840, other)
    toml = other / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "fs840"', 'id = "b"'))

    def second_fails(folder: Path, *args: object, **kwargs: object) -> object:
        if folder == other:
            raise InputError(folder, "", "refused", "fix it")
        return building.build(folder, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(publish, "build", second_fails)
    with pytest.raises(InputError):
        publish.build_many([first, other], out)
    after = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before


@pytest.mark.parametrize("method_text", [True, False])
def test_the_site_says_how_it_was_measured_as_the_pdf(tmp_path: Path, method_text: bool) -> None:
    """The method's generated sentences (levels, servers, units, rate targets) stood in
    the PDF only: the site showed MB/s without saying MB = 1024² bytes. They follow the
    author's method text, under their own heading, also where there is none."""
    import shutil

    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import method_sentences

    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    for lang in ("de", "en"):
        path = report / "text" / lang / "method.md"
        if method_text:  # the author's last sub-heading does not take the sentences in
            path.write_text("Text.\n\n## Tuning of the hosts\n\nHBA queues.\n", "utf-8")
        else:
            path.unlink()
    ctx = prepare(report)
    page = site.pages([site.Built(ctx, tmp_path)])["mixed.md"]
    method = page.split("## Benchmark method\n", 1)[1].split("\n## ", 1)[0]
    said = method.split("### Benchmark profiles\n", 1)[1]
    for sentence in method_sentences(ctx, ctx.formatter("en")):
        assert " ".join(sentence.split())[:40] in said.replace("\\", ""), sentence
    assert "Units: KB = 1024 bytes" in said.replace("\\", "")
    if method_text:
        assert method.index("Tuning of the hosts") < method.index("### Benchmark profiles")
    # and what its words mean, what they rest on and what was found, as the PDF's appendix
    data = page.split("\n## Data and method\n", 1)[1].replace("\\", "")
    assert "- Optimum: the highest parallelism" in data and "- Units: KB = 1024" in data
    counts = ctx.dataset.accounting()
    assert f"({counts['records_read']:,} records read)" in data
    assert "### Validation\n" in data and "Validation findings by rule" in data
    assert "The material for an audit is among the downloads above" in data
    assert data.rstrip().endswith("the versions of the tools.")


@pytest.mark.parametrize("edition", ["audit", "customer"])
def test_the_audit_material_is_offered_for_download(
    tmp_path: Path, edition: str, fs840_context: ReportContext
) -> None:
    """The page's last paragraph names validation.csv, rejects.csv and manifest.json; the
    site offered none of them (a customer edition that withheld them named them all the
    same)."""
    import copy

    ctx = copy.copy(fs840_context)
    ctx.report = fs840_context.report.model_copy(update={"edition": edition})
    page = site.pages([site.Built(ctx, tmp_path)])["fs840.md"]
    offered = re.findall(r"\(downloads/fs840/([\w.]+)\)", page)
    # in every edition: the page's last paragraph names them all
    assert {"validation.csv", "rejects.csv", "manifest.json", "inputs.csv"} <= set(offered)


def test_the_built_site_holds_the_audit_files(fs840_build: BuildResult) -> None:
    downloads = fs840_build.out / "site" / "downloads" / "fs840"
    for name in ("validation.csv", "rejects.csv", "inputs.csv", "manifest.json"):
        assert (downloads / name).read_bytes() == (fs840_build.out / name).read_bytes(), name


def test_the_environment_page_names_the_hosts_as_the_pdf(tmp_path: Path) -> None:
    """The site dropped the names the tools gave a described host and the hosts of the
    data that report.toml does not describe (the PDF lists both)."""
    import shutil

    from pipeline.prepare import prepare

    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    toml = report / "report.toml"
    hosts = '[[hosts]]\nname = "A"\nraw = ["hostA"]\ndescription = { de = "a", en = "first" }\n'
    toml.write_text(toml.read_text(encoding="utf-8") + "\n" + hosts, encoding="utf-8")
    ctx = prepare(report)
    page = site.pages([site.Built(ctx, tmp_path)])["mixed_environment.md"].replace("\\", "")
    assert "- A: first (in the raw data: hostA)" in page
    assert "- hostB (not described in report.toml)" in page
    assert "- local (not described in report.toml)" in page


@pytest.mark.parametrize(("lang", "said"), [("en", "Classification: "), ("de", "Klassifikation: ")])
def test_the_report_page_gives_the_title_pages_particulars(
    tmp_path: Path, fs840_context: ReportContext, lang: str, said: str
) -> None:
    """An internal report said "intern" on the PDF's title page and every page, and
    nowhere on the site; nor its author, version and date."""
    name = "fs840.md" if lang == "en" else "fs840.de.md"
    page = site.pages([site.Built(fs840_context, tmp_path)])[name].replace("\\", "")
    head = page.split("\n## ", 1)[0]
    r = fs840_context.report
    assert f"{said}{r.classification[lang]}" in head and f": {r.version}  \n" in head
    assert f": {r.author}  \n" in head


def test_a_table_and_chart_placed_in_a_text_carry_the_pdfs_numbers(
    tmp_path: Path, fs840_context: ReportContext
) -> None:
    """fs840's summary places Table 1 and Figure 1: the site showed the table without a
    caption and the chart as "Results 4K random", unnumbered."""
    page = site.pages([site.Built(fs840_context, tmp_path)])["fs840.md"].replace("\\", "")
    chapters = page.split("\n## Downloads\n", 1)[0]
    assert "*Table 1 – Minimum latency by block size*" in chapters
    assert "*Figure 1 – Results 4K random*" in chapters
    # once, as in the PDF: the Charts and Tables sections leave out what a text places
    assert page.count("Table 1 – ") == page.count("Figure 1 – ") == 1


def test_the_cost_footnote_stands_under_the_cost_table(
    tmp_path: Path, fs840_context: ReportContext
) -> None:
    """ "* = price with upstream compression" came after the last table (Amdahl), cut off
    from the table whose starred prices it explains."""
    page = site.pages([site.Built(fs840_context, tmp_path)])["fs840.md"].replace("\\", "")
    cost = page.index("*Table 4 – Cost development of storage systems*")
    note = page.index("* = price with upstream compression")
    assert cost < note < page.index("*Table 5 – ")


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "en",
            "rest on 1 measured point from 1 measurement interval in one raw file (1 record read)",
        ),
        (
            "de",
            "beruhen auf 1 Messpunkt aus 1 Messintervall in einer Rohdatei (1 Datensatz gelesen)",
        ),
    ],
)
def test_one_point_of_one_record_is_said_in_the_singular(
    tmp_path: Path, lang: str, said: str
) -> None:
    """One fio JSON of one job: "1 measured points from 1 measurement intervals"."""
    import shutil

    from pipeline.prepare import prepare
    from pipeline.render.appendix import data_basis

    report = Path(shutil.copytree(MIXED, tmp_path / "report"))
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace('[[sources]]\npath = "raw/iogen.csv"\n\n', "")
    text = text.replace('[[sources]]\npath = "raw/vdbench.html"\n', "")
    toml.write_text(text, encoding="utf-8")
    shutil.copy(DATA / "fio" / "jsonplus.json", report / "raw" / "fio.json")
    ctx = prepare(report)
    assert said in data_basis(ctx, ctx.formatter(lang))


@pytest.mark.parametrize(
    ("text", "made"),
    [
        ("S\n\nDownloads\n=========\n\n    verified: SHA-256 OK", "S Downloads ========= verified"),
        ("=====", "&#61;===="),
        ("  indented\r\nnext  ", "indented next"),
        ("P\u00a0128 at 0.5\u00a0ms", "P\u00a0128 at 0\\.5\u00a0ms"),  # no-break spaces stay
    ],
)
def test_a_text_of_several_lines_is_one_line_of_markdown(text: str, made: str) -> None:
    """A sponsor text with a blank line, an underline and an indented line left the
    comparison page's note box and made a heading "Downloads" and a code block of its own
    (the page's own Downloads heading then lost its anchor)."""
    import markdown

    from pipeline.report.narrative import md_text

    said = md_text(text)
    assert said.startswith(made) and "\n" not in said
    html_out = markdown.markdown(f"Intro line\n{said}\n")
    assert "<h1" not in html_out and "<pre" not in html_out and "<h2" not in html_out


def test_no_service_time_note_names_a_report_without_latency(
    tmp_path: Path, a800_shared: BuildResult
) -> None:
    """CrystalDiskMark prints no latency: the note on where service time is measured named
    it beside the VMs' report."""
    from pipeline.prepare import prepare
    from tests.test_chart_dots import CDM, _report

    cdm6 = prepare(_report(tmp_path / "cdm6", {"ssd": CDM / "cdm6.txt"}))
    built = [site.Built(cdm6, tmp_path), site.Built(a800_shared.ctx, tmp_path)]
    notes = site.compare_notes(built, site.site_formatter(built, "en"))
    assert not any("the same place" in n for n in notes), notes
    assert any("per VM for NetApp AFF A800" in n for n in notes), notes  # its parallelism
