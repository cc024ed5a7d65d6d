"""A whitepaper written as a consultant writes one, from docs/report.md alone (issue 33):
photos, headings at any depth, no sponsor, chapters of the author's own, the author block;
and the images a report folder may not use, each refused naming the text file and line."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, cast

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from pipeline.build import BuildResult, build
from pipeline.errors import InputErrors
from tests import images, layout
from tests.cli import iopress
from tests.conftest import DATA, pdf_text
from tests.test_pdf_quality import _alts

REPORT = """
id = "authored"
author = "Erika Muster"
organisation = "Beispiel AG"
version = "1.0"
date = 2026-11-01
title = { de = "Ein eigener Bericht", en = "A report of one's own" }
classification = { de = "öffentlich", en = "public" }
contact = ["erika.muster@example.ch", "Beispiel AG, Seestrasse 1, 8000 Zürich", "www.example.ch"]
chapters = [
  "introduction", "summary", "setup", "method", "results", "performance", "latency",
  "conclusion",
  { file = "danksagung.md", title = { de = "Danksagung", en = "Acknowledgements" } },
  "author",
]

[system]
name = "Test System"
vendor = "ACME"

[[sources]]
path = "raw/iogen.csv"

[[sources]]
path = "raw/fio.json"
"""

TEXTS = {
    "introduction": (
        "Einleitung mit dem System.\n\n"
        '![Das System im Rack](images/rack.jpg "Foto: das Testsystem im Rack, von vorn")\n',
        "An introduction to the system.\n\n"
        '![The system in its rack](images/rack.jpg "Photo: the test system in its rack, '
        'from the front")\n',
    ),
    "summary": (
        "Kurz gesagt.\n\n## Kundenbeispiel I\n\nEin Kunde.\n\n### Ausgangslage\n\nVorher.\n\n"
        '![Servicezeiten vorher](images/slide.png "Folie: Servicezeiten vor der Migration")\n',
        "In short.\n\n## Customer case I\n\nA customer.\n\n### Starting point\n\nBefore.\n\n"
        '![Service times before](images/slide.png "Slide: service times before the '
        'migration")\n',
    ),
    # a Markdown table without a caption: no number (it took "Tabelle 1", unseen)
    "setup": (
        "Aufbau.\n\n| Teil | Anzahl |\n|---|---|\n| SSD | 24 |\n",
        "The setup.\n\n| Part | Count |\n|---|---|\n| SSD | 24 |\n",
    ),
    "method": ("Methode.\n", "The method.\n"),
    "conclusion": ("Fazit.\n", "Conclusion.\n"),
    "danksagung": ("Wir danken allen.\n", "We thank everyone.\n"),
    "author": (
        '![Erika Muster](images/portrait.jpg "Porträt von Erika Muster")\n\n'
        "Erika Muster misst seit Jahren Speichersysteme.\n",
        '![Erika Muster](images/portrait.jpg "Portrait of Erika Muster")\n\n'
        "Erika Muster has measured storage systems for years.\n",
    ),
}


def authored(folder: Path) -> Path:
    """The report folder: the mixed test report's IOgen and fio data, three images."""
    (folder / "raw").mkdir(parents=True)
    for name in ("iogen.csv", "fio.json"):
        shutil.copy(DATA / "reports" / "mixed" / "raw" / name, folder / "raw" / name)
    (folder / "report.toml").write_text(REPORT, encoding="utf-8")
    (folder / "images").mkdir(exist_ok=True)
    (folder / "images" / "rack.jpg").write_bytes(images.jpeg(320, 240))
    (folder / "images" / "slide.png").write_bytes(images.png(400, 225))
    (folder / "images" / "portrait.jpg").write_bytes(images.jpeg(120, 160, (120, 110, 150)))
    for lang, index in (("de", 0), ("en", 1)):
        (folder / "text" / lang).mkdir(parents=True)
        for name, texts in TEXTS.items():
            (folder / "text" / lang / f"{name}.md").write_text(texts[index], encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    root = tmp_path_factory.mktemp("authored")
    return build(authored(root / "report"), root / "out")


def _outline(pdf: Path) -> list[str]:
    reader = PdfReader(pdf)

    def walk(items: list[object]) -> list[str]:
        return [t for i in items for t in (walk(i) if isinstance(i, list) else [i.title])]  # type: ignore[attr-defined]

    return walk(list(reader.outline))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "de",
            ["1 Einleitung", "2 Management Summary", "2.1 Kundenbeispiel I", "8 Fazit",
             "9 Danksagung", "Über den Autor"],
        ),
        (
            "en",
            ["1 Introduction", "2 Management summary", "2.1 Customer case I", "8 Conclusion",
             "9 Acknowledgements", "About the author"],
        ),
    ],
)  # fmt: skip
def test_the_chapters_are_declared_and_headings_numbered(
    built: BuildResult, lang: str, expected: list[str]
) -> None:
    outline = _outline(built.out / f"authored.{lang}.pdf")
    assert [t for t in outline if t in expected] == expected, outline
    assert not any("Vorbemerkung" in t or "Preliminary" in t for t in outline)
    text = pdf_text(built.out / f"authored.{lang}.pdf")
    assert re.search(r"2\.1\.1 (Ausgangslage|Starting point)", text)
    assert "Erika Muster\nBeispiel AG\nerika.muster@example.ch" in text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "captions"),
    [
        ("de", ["Abbildung 1 – Das System im Rack", "Abbildung 2 – Servicezeiten vorher"]),
        ("en", ["Figure 1 – The system in its rack", "Figure 2 – Service times before"]),
    ],
)
def test_images_are_numbered_figures_with_alt_text(
    built: BuildResult, lang: str, captions: list[str]
) -> None:
    pdf = built.out / f"authored.{lang}.pdf"
    text = pdf_text(pdf).replace("\n", " ")
    assert all(c in text for c in captions), text[:3000]
    figures = re.findall(r"(?:Abbildung|Figure) (\d+) –", text)
    assert figures == [str(n) for n in range(1, len(figures) + 1)]  # with the charts
    tables = re.findall(r"(?:Tabelle|Table) (\d+) –", text)
    assert tables[0] == "1" and ("SSD 24" in text or "SSD\n24" in pdf_text(pdf)), tables
    alts = list(_alts(cast(DictionaryObject, PdfReader(pdf).trailer["/Root"])["/StructTreeRoot"]))
    assert any(a.startswith(("Foto:", "Photo:")) for a in alts)
    assert any(a.startswith(("Porträt", "Portrait")) for a in alts)
    assert layout.check_output(built.out) == []


@pytest.mark.slow
def test_images_on_the_site_and_in_the_provenance(built: BuildResult) -> None:
    page = (built.out / "site" / "de" / "authored.html").read_text(encoding="utf-8")
    found = r'<img alt="([^"]*)" src="((?:\.\./)+images/authored/[0-9a-f]+\.(?:jpg|png))"'
    shown = re.findall(found, page)
    assert [alt for alt, _ in shown] == [
        "Foto: das Testsystem im Rack, von vorn",
        "Folie: Servicezeiten vor der Migration",
        "Porträt von Erika Muster",
    ], shown
    assert "Abbildung 2 – Servicezeiten vorher" in page
    heads = re.findall(r"<h([234])[^>]*>([^<]*)", page)
    assert heads[:5] == [
        ("2", "Einleitung"),
        ("2", "Management Summary"),
        ("3", "Kundenbeispiel I"),
        ("4", "Ausgangslage"),
        ("2", "Benchmark Setup"),
    ], heads
    assert ("2", "Danksagung") in heads and "Vorbemerkung" not in page
    for _, src in shown:
        data = (built.out / "site" / "de" / src).resolve().read_bytes()
        assert data.startswith((b"\x89PNG", b"\xff\xd8"))
        assert b"made by the tests" not in data and b"Exif" not in data  # metadata left out
    manifest = json.loads((built.out / "manifest.json").read_text(encoding="utf-8"))
    files = {e["path"]: e for e in manifest["inputs"]}
    rack = built.ctx.folder / "images" / "rack.jpg"
    assert files["images/rack.jpg"]["sha256"] == hashlib.sha256(rack.read_bytes()).hexdigest()
    assert files["images/rack.jpg"]["format"] == "image"


def _refused(tmp_path: Path, line: str, where: str = "text/de/summary.md: line 3") -> str:
    """Build the report with ``line`` as the summary's third line: refused, nothing written."""
    report = authored(tmp_path / "report")
    summary = report / "text" / "de" / "summary.md"
    summary.write_text(f"Kurz.\n\n{line}\n\nMehr.\n", encoding="utf-8")
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert ran.returncode == 1, ran
    assert f"{report / where}" in ran.stdout + ran.stderr, ran
    assert not (tmp_path / "out").exists()
    return ran.stdout + ran.stderr


def test_an_image_that_is_a_renamed_text_file(tmp_path: Path) -> None:
    (tmp_path / "report" / "images").mkdir(parents=True)
    (tmp_path / "report" / "images" / "fake.png").write_text("not an image\n")
    found = _refused(tmp_path, '![Fake](images/fake.png "a text file")')
    assert "not a PNG or JPEG image (its content is text)" in found


def test_a_decompression_bomb_is_refused_before_decoding(tmp_path: Path) -> None:
    (tmp_path / "report" / "images").mkdir(parents=True)
    (tmp_path / "report" / "images" / "bomb.png").write_bytes(images.png_header_only(30000, 30000))
    found = _refused(tmp_path, '![Bomb](images/bomb.png "huge")')
    assert "30,000 × 30,000 pixels is larger than iopress decodes" in found


def test_an_image_linked_out_of_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    outside.write_bytes(images.png(8, 8))
    (tmp_path / "report" / "images").mkdir(parents=True)
    os.symlink(outside, tmp_path / "report" / "images" / "out.png")
    found = _refused(tmp_path, '![Out](images/out.png "linked out")')
    assert "points outside the report folder" in found


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a.png",
        "http://x/a.png",
        "data:image/png;base64,AAAA",
        "file:///etc/hosts",
    ],
)
def test_a_remote_image_is_refused(tmp_path: Path, url: str) -> None:
    found = _refused(tmp_path, f'![Remote]({url} "remote")')
    assert f"remote image {url!r} refused" in found


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('![](images/slide.png "alt")', "has no caption"),
        ("![Caption](images/slide.png)", "has no description (alt text"),
        ('Text with ![inline](images/slide.png "x") inside.', "inside a line of text"),
        ('![Missing](images/nope.png "x")', "image 'images/nope.png' not found"),
        ('![Abs](/etc/a.png "x")', "absolute image path"),
        ('![Up](../a.png "x")', "points outside the report folder"),
    ],
)
def test_other_image_mistakes_name_the_line(tmp_path: Path, line: str, said: str) -> None:
    assert said in _refused(tmp_path, line)


def test_a_damaged_image_is_refused(tmp_path: Path) -> None:
    """Sound segments whose scan names a component the frame does not have: decoding
    it fails (typst's decoder, run while the report is read), naming the file and line."""
    scan = b"\x01\x00\x02\x00\x03\x00\x00\x3f\x00"
    damaged = images.jpeg(64, 64).replace(scan, scan.replace(b"\x03", b"\x09", 1))
    (tmp_path / "report" / "images").mkdir(parents=True)
    (tmp_path / "report" / "images" / "damaged.jpg").write_bytes(damaged)
    found = _refused(tmp_path, '![Damaged](images/damaged.jpg "damaged")')
    assert "image 'images/damaged.jpg': image cannot be decoded" in found


def test_a_chapter_left_out_that_holds_tables(tmp_path: Path) -> None:
    report = authored(tmp_path / "report")
    toml = report / "report.toml"
    toml.write_text(toml.read_text().replace('"performance", ', ""), encoding="utf-8")
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert ran.returncode == 1, ran
    assert (
        "chapter 'performance' is not listed, but holds the tables performance"
        in ran.stdout + ran.stderr
    )


def test_an_own_chapter_without_its_text(tmp_path: Path) -> None:
    report = authored(tmp_path / "report")
    (report / "text" / "en" / "danksagung.md").unlink()
    (report / "text" / "de" / "danksagung.md").unlink()
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert ran.returncode == 1, ran
    said = ran.stdout + ran.stderr
    assert (
        f"{report / 'text' / 'en' / 'danksagung.md'}: chapter 'Acknowledgements' has no text"
        in said
    )
    assert not (tmp_path / "out").exists()


def test_an_own_chapter_may_not_take_a_standard_text(tmp_path: Path) -> None:
    report = authored(tmp_path / "report")
    toml = report / "report.toml"
    toml.write_text(toml.read_text().replace('file = "danksagung.md"', 'file = "summary.md"'))
    for lang in ("de", "en"):
        (report / "text" / lang / "danksagung.md").unlink()
    ran = iopress("build", report, "-o", tmp_path / "out")
    assert ran.returncode == 1, ran
    assert "summary.md is the text of the chapter 'summary'" in ran.stdout + ran.stderr


def test_an_image_placed_many_times_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each reference was read, checked and decoded again: one 19.5 MB PNG placed 100
    times took 4.4 GB. A build reads each image once; more than 500 placed images are
    refused, naming the text file and line."""
    from pipeline import images as checked
    from pipeline.prepare import prepare

    report = authored(tmp_path / "report")
    summary = report / "text" / "en" / "summary.md"
    many = "".join(f'\n![Rack {i}](images/rack.jpg "Rack {i}")\n' for i in range(40))
    summary.write_text(summary.read_text(encoding="utf-8") + many, encoding="utf-8")
    calls: list[str] = []
    real = checked.read

    def counted(root: Path, name: str, *rest: Any) -> Any:
        calls.append(name)
        return real(root, name, *rest)

    monkeypatch.setattr(checked, "read", counted)
    prepare(report)
    assert sorted(set(calls)) == sorted(calls)  # each file once
    monkeypatch.setattr(checked, "MAX_PLACED", 20)
    with pytest.raises(InputErrors, match="more than 20 images placed in the texts"):
        prepare(report)


def test_no_input_is_opened_once_compute_begins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The texts' images were read after the placeholders were filled, after compute;
    they are read with every other input now (``prepare.read_inputs``): from compute on,
    through the PDF's source and the site's pages, no input file is opened."""
    from pipeline import inputs
    from pipeline import prepare as P
    from pipeline.config import LANGS
    from pipeline.render import site, whitepaper

    report = authored(tmp_path / "report")
    computing = False
    original_context, original_opened = P.context, inputs._opened

    def context(*args: Any) -> Any:
        nonlocal computing
        computing = True
        return original_context(*args)

    def opened(path: Path) -> Any:
        assert not computing, f"{path} opened after the read"
        return original_opened(path)

    monkeypatch.setattr(P, "context", context)
    monkeypatch.setattr(inputs, "_opened", opened)
    ctx = P.prepare(report)
    assert computing
    placed = {p.file for found in ctx.pictures.values() for p in found}
    assert len(placed) == 3  # rack, slide and portrait, each once in both languages
    for lang in LANGS:
        assert "images/" in whitepaper.body(ctx, lang)
    assert any("images/" in page for page in site.pages([site.Built(ctx, tmp_path)]).values())


def test_an_image_path_made_by_a_placeholder_is_refused(tmp_path: Path) -> None:
    found = _refused(tmp_path, '![Rack]({{ "images/rack.jpg" }} "made")')
    assert "image 'images/rack.jpg' is not in the text as written" in found


def test_a_chart_placed_before_the_results_charts_stays_in_order(tmp_path: Path) -> None:
    """A chart placed in the results' text floated to a page's foot; not fitting, it was
    carried past the results' first chart: "Abbildung 3" stood above "Abbildung 2". Figures
    placed before the results' charts stand in the flow; after them they still float."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import body
    from tests.conftest import FS840

    folder = Path(shutil.copytree(FS840, tmp_path / "fs840"))
    for lang in ("de", "en"):
        text = folder / "text" / lang
        (text / "results.md").write_text('{{ chart("standard_random_4k") }}\n', encoding="utf-8")
        with (text / "conclusion.md").open("a", encoding="utf-8") as fh:
            fh.write('\n{{ chart("standard_random_8k") }}\n')
    source = body(prepare(folder), "en")

    def block(stem: str) -> str:
        start = source.index(f'image("charts/{stem}.en.svg"')
        return source[start : source.index(")\n", source.index("caption:", start))]

    assert "placement" not in block("standard_random_4k")
    assert "placement: bottom" in block("standard_random_8k")


def test_the_cost_chart_before_the_results_stays_in_the_flow(tmp_path: Path) -> None:
    """With the cost chapter before the results, the cost chart floated past the results'
    first chart ("Figure 3" above "Figure 2"), as placed charts did (a review's find)."""
    from pipeline.prepare import prepare
    from pipeline.render.whitepaper import body
    from pipeline.report.chapters import STANDARD
    from tests.conftest import FS840

    folder = Path(shutil.copytree(FS840, tmp_path / "fs840"))
    order: list[str] = [c for c in STANDARD if c != "cost"]
    order.insert(order.index("results"), "cost")
    toml = folder / "report.toml"
    listed = ", ".join(f'"{c}"' for c in order)
    toml.write_text(f"chapters = [{listed}]\n" + toml.read_text(encoding="utf-8"), "utf-8")
    source = body(prepare(folder), "en")
    start = source.index('image("charts/cost.en.svg"')
    assert "placement" not in source[start : source.index("caption:", start)]
