"""The memo of pandoc conversions (pipeline.render.sanitize): one conversion per text and
process, the ones used last kept."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult, build
from pipeline.errors import InputError, InputErrors
from pipeline.render import sanitize
from tests.conftest import FS840, pdf_text


def test_the_conversions_used_last_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def convert(markdown: str, path: Path | str) -> str:
        made.append(markdown)
        return markdown.upper()

    monkeypatch.setattr(sanitize, "CONVERTERS", {"typst": convert})
    monkeypatch.setattr(sanitize, "_MADE", type(sanitize._MADE)())
    monkeypatch.setattr(sanitize, "MAX_KEPT", 3)
    for text in ("a", "b", "c"):
        assert sanitize.to_typst(text, "x.md") == text.upper()
    sanitize.to_typst("a", "x.md")  # used again: now the last one used
    sanitize.to_typst("d", "x.md")  # one too many: "b", the least recently used, goes
    sanitize.to_typst("a", "x.md")
    sanitize.to_typst("c", "x.md")
    assert made == ["a", "b", "c", "d"]
    sanitize.to_typst("b", "x.md")
    assert made == ["a", "b", "c", "d", "b"]


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("kill -9 $$", "pandoc: died (signal 9) converting markdown to typst"),
        ("echo 'no room' >&2; exit 3", "pandoc: converting markdown to typst failed: no room"),
    ],
)
def test_a_pandoc_that_fails_or_dies_is_a_tool_failure(
    script: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.errors import ToolFailure

    fake = tmp_path / "pandoc"
    fake.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setattr(sanitize, "_pandoc_binary", lambda: str(fake))
    with pytest.raises(ToolFailure) as failed:
        sanitize._run_pandoc("text", "typst", "markdown", ())
    assert str(failed.value).startswith(said)


def test_a_failed_conversion_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.errors import ToolFailure

    tries: list[str] = []

    def convert(markdown: str, path: Path | str) -> str:
        tries.append(markdown)
        if len(tries) == 1:
            raise ToolFailure("pandoc", "died (signal 9)")
        return markdown.upper()

    monkeypatch.setattr(sanitize, "CONVERTERS", {"typst": convert})
    monkeypatch.setattr(sanitize, "_MADE", type(sanitize._MADE)())
    with pytest.raises(ToolFailure):
        sanitize.to_typst("a", "x.md")
    assert sanitize.to_typst("a", "x.md") == "A" and tries == ["a", "a"]


def test_a_markdown_table_in_the_narrative_is_converted() -> None:
    """The cleaner dropped every null of pandoc's tree with the raw HTML it leaves out, and
    a table's caption ([null, blocks]) lost its short caption: pandoc refused the tree."""
    table = "| a | b |\n|---|---|\n| 1 | <b>2</b> |\n"
    assert "table.header([a], [b],)" in sanitize.to_typst(table, "x.md")
    html = sanitize.to_html(table, "x.md")
    assert "<th>a</th>" in html and "&lt;b&gt;2&lt;/b&gt;" in html


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("---\ntitle: [unclosed\n---\n", "title: \\[unclosed"),  # no YAML metadata block
        ("x <script>alert(1)</script>\n", "\\<script\\>"),  # raw HTML as text
    ],
)
def test_text_pandoc_could_take_for_something_else_stays_text(text: str, kept: str) -> None:
    assert kept in sanitize.to_typst(text, "x.md")


@pytest.mark.parametrize("text", [">" * 3000 + " deep", "- " * 3000 + "x"])
def test_nesting_too_deep_names_the_file(text: str) -> None:

    with pytest.raises(InputError, match=r"^x\.md: line 1: nested too deeply"):
        sanitize.to_typst(text, "x.md")


def test_a_thousands_mark_in_the_text_stays_the_tables_mark() -> None:
    """pandoc writes ’ as ' for typst, and typst prints ' after a digit as a prime: the
    text said 1′008′045 (U+2032) where the tables say 1’008’045 (U+2019). A mark typed as
    ' between digits is the same mark; code and apostrophes in words stay as they are."""
    typst = sanitize.to_typst("1’008’045 IOPS, 1'000 and it’s `1'0`", "t.md")
    assert typst.strip() == "1\\u{2019}008\\u{2019}045 IOPS, 1\\u{2019}000 and it's `1'0`"


def test_german_text_prints_the_tables_thousands_mark(fs840_build: BuildResult) -> None:
    text = pdf_text(fs840_build.out / "fs840.de.pdf")
    assert "\u2032" not in text
    assert "Mit 1’008’045 IOPS bei 0.50 ms" in " ".join(text.split())


@pytest.mark.parametrize(
    ("text", "levels"),
    [
        ("## A\n\n### B\n\n## C\n", [2, 3, 2]),  # ## is the text's first level
        ("# A\n\n### B\n", [2, 3]),  # a skipped level is not skipped
        ("### A\n\n# B\n\n## C\n", [2, 2, 3]),  # a first heading below the text's top
        ("# A\n\n## B\n\n### C\n\n#### D\n", [2, 3, 4, 5]),
    ],
)
def test_heading_levels_close_up_under_the_chapter(text: str, levels: list[int]) -> None:
    """The chapter's heading is level 1: a text's headings begin at 2 and skip none (PDF/UA
    refuses a skipped level), in typst and one level further down in HTML."""
    typst = sanitize.to_typst(text, "x.md")
    assert [len(m) for m in re.findall(r"^(=+) ", typst, re.M)] == levels
    html = sanitize.to_html(text, "x.md")
    assert [int(n) for n in re.findall(r"<h(\d)", html)] == [n + 1 for n in levels]


def test_dollars_are_text_not_formulas(tmp_path: Path) -> None:
    """'$a+b$' became a typst formula, which the PDF/UA check refused for its missing alt
    text ('typst: ... this is a bug'); dollars are text, in the PDF and on the site."""
    typst = sanitize.to_typst("Text $a+b$ here and $$x^2$$.", "t.md")
    assert "\\$a+b\\$" in typst and "$x" not in typst.replace("\\$", "")
    assert "$a+b$" in sanitize.to_html("Text $a+b$ here.", "t.md")
    folder = tmp_path / "r"
    shutil.copytree(FS840, folder)
    summary = folder / "text" / "en" / "summary.md"
    summary.write_text(summary.read_text(encoding="utf-8") + "\nCosts $a+b$.\n", "utf-8")
    assert (build(folder, tmp_path / "out").out / "fs840.en.pdf").is_file()


LONG = "A" * 32_000  # beyond a PDF/A string (32,767 with the markup around it)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (f"## {'word ' * 61}\n", "a heading of 304 characters"),
        (f"Some {'B' * 1001} text\n", "a word of 1,001 characters"),
        (f"`{'C' * 1001}`\n", "a word of 1,001 characters"),
        (f"```\n{'D' * 1001}\n```\n", "a word of 1,001 characters"),
        (f"## {LONG}\n", "a heading of 32,000 characters"),
    ],
)
def test_text_the_pdf_cannot_hold_is_refused_naming_the_file(text: str, said: str) -> None:
    """A heading (the PDF's bookmark) or a word (no line holds it) that typst would turn
    into a string beyond PDF/A's limit: refused with the file, not 'this is a bug'."""
    with pytest.raises(InputError, match=re.escape(said)) as refused:
        sanitize.to_typst(f"Intro.\n\n{text}", "text/en/method.md")
    assert "text/en/method.md" in str(refused.value)


def test_words_and_headings_up_to_the_limits_are_kept() -> None:
    kept = sanitize.to_typst(f"## {'w' * 300}\n\n{'x' * 1000} and `{'y' * 1000}`\n", "t.md")
    assert "w" * 300 in kept and "x" * 1000 in kept


def test_a_long_image_caption_is_a_problem_of_the_image() -> None:
    refs = sanitize.image_refs(f'![{"c " * 1001}](a.png "alt")\n', "t.md")
    assert "over 2,000 characters" in refs[0].problem


def test_a_report_toml_text_beyond_the_limit_is_refused(tmp_path: Path) -> None:
    """The title is the PDF's metadata title, one string: 33,000 characters broke typst."""
    from pipeline.dataset.sources import load_report
    from pipeline.errors import InputErrors

    shutil.copytree(FS840, tmp_path / "r")
    toml = tmp_path / "r" / "report.toml"
    toml.write_text(toml.read_text().replace('en = "IBM all-flash', f'en = "{LONG} IBM', 1))
    with pytest.raises(InputErrors, match=re.escape("title.en: a text of 32,")):
        load_report(tmp_path / "r")


def test_the_texts_are_parsed_at_once_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """prepare parsed the report's twelve texts one after another on the main thread (a
    pandoc process each, ≈ 0.2 s of a cold build's critical path, more under load): they
    are parsed on the pool together, and the build's later conversions reuse them."""
    import threading
    from collections import Counter

    from pipeline.prepare import prepare

    parsed: Counter[tuple[str, str]] = Counter()
    pandoc = sanitize._pandoc

    def spy(text: str, to: str, source: str, *args: str) -> str:
        if to == "json" and source != "json":
            parsed[(threading.current_thread().name.split("_")[0], text)] += 1
        return pandoc(text, to, source, *args)

    monkeypatch.setattr(sanitize, "_pandoc", spy)
    monkeypatch.setattr(sanitize, "_MADE", type(sanitize._MADE)())
    ctx = prepare(FS840, False, None)
    texts = [t.text for filled in ctx.filled.values() for t in filled.values()]
    assert len(texts) == 12
    assert {thread for thread, _ in parsed} == {"iopress-pandoc"}
    assert sorted(text for _, text in parsed) == sorted(texts)  # parsed once each
    sanitize.prefetch(
        [(t.text, t.path) for f in ctx.filled.values() for t in f.values()], ("typst", "html")
    )
    for f in ctx.filled.values():
        for t in f.values():
            sanitize.to_html(t.text, t.path)
    assert sum(parsed.values()) == 12


OLD_MARKERS = (
    "IOPRESSPLACE0X\n\n" * 30  # n5: one table, 30 more copies of it
    + "> IOPRESSPLACE0X\n\n- item\n\n- IOPRESSPLACE0X\n\n"  # n3: a quote, a list item
    + "See [this](https://example.com/IOPRESSPLACE0X) link.\n\n"  # n4: typst failed
    + "IOPRESSIMAGE0X\n\n{{ system }}\n\n"  # a report.toml name that looks like one
)


def _with_text(folder: Path, text: str) -> None:
    from tests.images import png

    (folder / "images").mkdir()
    (folder / "images" / "a.png").write_bytes(png(40, 30))
    image = '![A photo](images/a.png "a blue square")\n\n'
    for lang in ("de", "en"):
        summary = folder / "text" / lang / "summary.md"
        summary.write_text(summary.read_text("utf-8") + "\n" + image + text, "utf-8")
    toml = folder / "report.toml"
    toml.write_text(toml.read_text("utf-8").replace('"IBM FlashSystem 840"', '"IOPRESSPLACE0X"'))


def test_markers_typed_or_printed_are_text(tmp_path: Path, fs840_build: BuildResult) -> None:
    """The markers where a directive's table or chart, or an image, goes were plain
    IOPRESSPLACE0X: typed 300 times, the table came 300 times (PDF 350 KB -> 3.5 MB, past
    'each table placed once'); in a quote or list item it split the site's raw HTML; in a
    link's address typst failed ('this is a bug'); a system name could print one. Each
    marker holds the filled text's own hash now: what a text or its data writes is text."""
    folder = tmp_path / "r"
    shutil.copytree(FS840, folder)
    _with_text(folder, OLD_MARKERS)
    out = build(folder, tmp_path / "out").out
    typst = (out / "fs840.en.typ").read_text("utf-8")
    assert typst.count("<tab-min_latency>") == 1 and typst.count('image("images/') == 1
    assert typst.count("IOPRESSPLACE0X") > 30 + 3 + 1 + 1  # as text, and the name
    page = (out / "site" / "fs840.html").read_text("utf-8")
    plain = (fs840_build.out / "site" / "fs840.html").read_text("utf-8")
    assert page.count("<table") == plain.count("<table") and page.count('src="images/') == 1
    assert page.count('<div class="iop-text">') == plain.count('<div class="iop-text">') + 1
    assert "IOPRESSIMAGE0X" in pdf_text(out / "fs840.en.pdf")


def test_an_id_given_to_two_headings_names_the_file_and_heading() -> None:
    """n6: two headings {#dup} and a link to it stopped typst ('label <dup> occurs
    multiple times', 'this is a bug'): an input error naming the file and the heading."""
    text = "## One {#dup}\n\nText.\n\n## Two {#dup}\n\nSee [one](#dup).\n"
    with pytest.raises(InputError, match="heading 'Two': id #dup is the id of heading 'One'"):
        sanitize.to_typst(text, "text/en/results.md")


IDS = {  # ids iopress's own outputs use too: a table's label, the site's sections
    "results": "## Costs {#tab-cost}\n\nSee [costs](#tab-cost) and [d](#downloads).\n\n"
    "## Downloads {#downloads}\n\n## Details {#details}\n\nSee [details](#details).\n",
    "method": "## Details {#details}\n\nSee [details](#details).\n",  # in two texts
}


def test_heading_ids_never_meet_iopress_own_or_another_texts(
    tmp_path: Path, fs840_build: BuildResult
) -> None:
    """n2: {#tab-cost} and a link to it met the cost table's label <tab-cost> (typst:
    'this is a bug'); n1: {#downloads} on the site took the page's own Downloads
    section's id; {#details} in two texts was one id twice. A heading's id is its text's
    own in the outputs (``results:tab-cost``), and links follow it."""
    folder = tmp_path / "r"
    shutil.copytree(FS840, folder)
    for lang in ("de", "en"):
        for name, text in IDS.items():
            path = folder / "text" / lang / f"{name}.md"
            path.write_text(path.read_text("utf-8") + "\n\n" + text, "utf-8")
    out = build(folder, tmp_path / "out").out
    typst = (out / "fs840.en.typ").read_text("utf-8")
    assert typst.count("<tab-cost>") == 1 and "#link(<results:tab-cost>)" in typst
    assert "<method:details>" in typst and "<results:details>" in typst
    page = (out / "site" / "fs840.html").read_text("utf-8")
    ids = re.findall(r'\bid="([^"]+)"', page)
    plain = re.findall(r'\bid="([^"]+)"', (fs840_build.out / "site" / "fs840.html").read_text())
    assert len(ids) == len(set(ids)) and set(ids) - set(plain) == {
        "results:tab-cost",
        "results:downloads",
        "results:details",
        "method:details",
    }
    assert 'href="#results:downloads"' in page and 'href="#method:details"' in page


@pytest.mark.parametrize(
    "placed",
    [
        '```\n{{ table("min_latency") }}\n```',  # printed its typst source as code
        '~~~\n{{ table("min_latency") }}\n~~~',  # and its marker on the site
    ],
)
def test_a_table_placed_inside_code_is_refused(tmp_path: Path, placed: str) -> None:
    folder = Path(shutil.copytree(FS840, tmp_path / "r"))
    summary = folder / "text" / "en" / "summary.md"
    text = summary.read_text(encoding="utf-8")
    summary.write_text(text.replace('{{ table("min_latency") }}', placed), encoding="utf-8")
    # refused as the text is filled (its fence lines beside it), else by pandoc's tree
    with pytest.raises(
        (InputError, InputErrors), match=r"a table or chart placed inside .*code"
    ) as refused:
        build(folder, tmp_path / "out")
    assert "text/en/summary.md" in str(refused.value)


def test_a_report_toml_word_beyond_a_line_is_refused(tmp_path: Path) -> None:
    """A title of one 9,000-character word (under the text limit) took typst 80 s to lay
    out and was cut off; a word is at most 1,000 characters, as in the texts."""
    from pipeline.dataset.sources import load_report
    from pipeline.errors import InputErrors

    shutil.copytree(FS840, tmp_path / "r")
    toml = tmp_path / "r" / "report.toml"
    word = "W" * 9000
    toml.write_text(toml.read_text().replace('en = "IBM all-flash', f'en = "{word} IBM', 1))
    with pytest.raises(InputErrors, match=re.escape("title.en: a word of 9,000 characters")):
        load_report(tmp_path / "r")
    toml.write_text(toml.read_text().replace(word, "W" * 1000))
    assert load_report(tmp_path / "r").title["en"].startswith("W" * 1000)


@pytest.mark.parametrize(
    "placed", ['> ![A rack](images/rack.png "the rack")', '- ![A rack](images/rack.png "the rack")']
)
def test_an_image_inside_a_quote_or_list_is_refused(placed: str) -> None:
    """The site closed its text block inside the quote or list to put the figure there
    ('<blockquote></div>…'); a figure stands at the text's top level."""
    with pytest.raises(InputError, match="an image placed inside a quote, a list") as refused:
        sanitize.image_refs(f"Intro.\n\n{placed}\n", "text/en/setup.md")
    assert "text/en/setup.md" in str(refused.value)
    kept = sanitize.image_refs('Intro.\n\n![A rack](images/rack.png "the rack")\n', "t.md")
    assert [ref.url for ref in kept] == ["images/rack.png"]


def test_an_image_placed_twice_has_the_pdfs_numbers_on_the_site(tmp_path: Path) -> None:
    """typst numbers each placement (Figure 2, Figure 3); the site gave both the number
    of the first."""
    from tests.images import png

    folder = Path(shutil.copytree(FS840, tmp_path / "r"))
    (folder / "text" / "rack.png").write_bytes(png(40, 30))
    setup = folder / "text" / "en" / "setup.md"
    twice = '\n![A rack](text/rack.png "the rack")\n\nMore.\n\n![Again](text/rack.png "the rack")\n'
    setup.write_text(setup.read_text(encoding="utf-8") + twice, encoding="utf-8")
    out = build(folder, tmp_path / "out").out
    pdf = re.findall(r"Figure (\d+) – (A rack|Again)", pdf_text(out / "fs840.en.pdf"))
    site = (out / "site" / "fs840.html").read_text(encoding="utf-8")
    assert pdf == re.findall(r"Figure (\d+) – (A rack|Again)", site)
    assert [n for n, _ in pdf] == ["2", "3"]


def test_a_link_to_no_heading_of_its_text_names_its_line_and_why() -> None:
    """A consultant linked to another chapter's heading and got "links to a heading that
    does not exist" with no line: a link reaches only its own text's headings by id."""

    text = "Text.\n\n## Empfehlung\n\nSiehe [Empfehlung](#empfehlung).\n"
    with pytest.raises(InputError) as caught:
        sanitize.to_typst(text, "text/de/results.md")
    said = str(caught.value)
    assert "text/de/results.md: line 5: link '#empfehlung': links to no heading" in said
    assert "another chapter's are reached as file.md#id" in said and "{#id} after it" in said
    fixed = sanitize.to_typst(text.replace("## Empfehlung", "## Empfehlung {#empfehlung}"), "x.md")
    assert "#link(<x:empfehlung>)[Empfehlung]" in fixed


def test_a_link_s_line_is_the_author_s_past_a_placed_table() -> None:
    """fs840's summary places a table at line 5; a broken link at line 7 was reported at
    line 11, the filled text's (the table's marker stands between blank lines)."""
    from pipeline.report.narrative import marker

    placed = "\n\n" + marker(0, "0" * 32) + "\n\n"
    filled = f"One.\n\nTwo.\n\n{placed}\n\nSee [x](#nope).\n"
    assert sanitize._source_line(filled, "](#nope") == "line 7: "


def test_a_broken_link_is_found_in_the_text_as_written(tmp_path: Path) -> None:
    """With `{{- table() -}}` (whitespace control) above it, a broken link at line 7 was
    reported at line 3 of the filled text: links are checked before placeholders fill."""
    from pipeline.prepare import prepare

    folder = Path(shutil.copytree(FS840, tmp_path / "fs840"))
    summary = folder / "text" / "en" / "summary.md"
    lines = summary.read_text(encoding="utf-8").split("\n")
    lines[4] = '{{- table("min_latency") -}}'
    lines[6] += " See [details](#nope)."
    summary.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    (problem,) = caught.value.errors
    assert problem.where == "line 7: link '#nope'", problem


def _cross_linked(folder: Path, link: str, heading: str = "## Warm-up {#warm-up}") -> Path:
    """fs840 whose summary links ``link`` and whose method text ends with ``heading``."""
    shutil.copytree(FS840, folder)
    for lang in ("de", "en"):
        method, summary = (folder / "text" / lang / f"{n}.md" for n in ("method", "summary"))
        method.write_text(method.read_text("utf-8") + f"\n\n{heading}\n\nTen minutes.\n")
        summary.write_text(summary.read_text("utf-8") + f"\n\nSee [the warm-up]({link}).\n")
    return folder


def test_a_link_reaches_another_chapters_heading(tmp_path: Path) -> None:
    """A link reached only its own text: a consultant's "see the warm-up in the method"
    from the summary was refused. ``method.md#warm-up`` now reaches it, in the PDF (one
    document: a typst label) and on the site (one page per report: an anchor)."""
    out = build(_cross_linked(tmp_path / "r", "method.md#warm-up"), tmp_path / "out").out
    for lang in ("de", "en"):
        typst = (out / f"fs840.{lang}.typ").read_text("utf-8")
        assert "<method:warm-up>" in typst and "#link(<method:warm-up>)[the warm-up]" in typst
    page = (out / "site" / "fs840.html").read_text("utf-8")
    assert 'id="method:warm-up"' in page and '<a href="#method:warm-up" rel=' in page
    assert "the warm-up" in pdf_text(out / "fs840.en.pdf")


@pytest.mark.parametrize(
    ("link", "heading", "said"),
    [
        ("method.md#warmup", "## Warm-up {#warm-up}", "names no heading id of that text"),
        ("method.md#warm-up", "## Warm-up", "names no heading id of that text"),
        ("methods.md#warm-up", "## Warm-up {#warm-up}", "methods.md is no chapter's text"),
        # written otherwise than file.md#id: the link was dropped, its text printed alone
        ("./method.md#warm-up", "## Warm-up {#warm-up}", "names a text but not as a link"),
        ("Method.md#warm-up", "## Warm-up {#warm-up}", "names a text but not as a link"),
        ("method.md", "## Warm-up {#warm-up}", "names a text but not as a link"),
        ("../de/method.md#warm-up", "## Warm-up {#warm-up}", "names a text but not as a link"),
    ],
)
def test_a_link_to_no_heading_of_another_chapter_names_its_line(
    tmp_path: Path, link: str, heading: str, said: str
) -> None:
    from pipeline.errors import InputErrors

    folder = _cross_linked(tmp_path / "r", link, heading)
    lines = (folder / "text" / "en" / "summary.md").read_text("utf-8").count("\n")
    with pytest.raises(InputErrors) as caught:
        build(folder, tmp_path / "out")
    text = str(caught.value)
    assert f"text/en/summary.md: line {lines}: link '{link}': {said}" in text, text
    assert "text/de/summary.md" in text and not (tmp_path / "out").exists()


@pytest.mark.parametrize("ident", ["aufwärm", "2-warm", "warm.up"])
def test_a_heading_id_the_outputs_cannot_carry_is_refused(ident: str) -> None:
    """{#aufwärm} was dropped without a word, and a link to it said "give the heading an
    id" though it had one."""
    text = f"## Aufwärmen {{#{ident}}}\n\nText.\n"
    with pytest.raises(InputError, match=f"heading 'Aufwärmen': id #{re.escape(ident)} is no id"):
        sanitize.to_typst(text, "text/de/method.md")


def test_a_tables_attributes_are_dropped() -> None:
    """A table caption's ``{#downloads}`` gave the site a second id="downloads" before
    the real Downloads heading (the contents jumped to it) and typst a duplicate label:
    only headings keep an id."""
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n: other {#downloads .x key=v}\n"
    html = sanitize.to_html(text, "t.md")
    assert "<table>" in html and "id=" not in html and "downloads" not in html
    assert "downloads" not in sanitize.to_typst(text, "t.md")
