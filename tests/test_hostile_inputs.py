"""Small hostile files that cost time out of all proportion: a JSON document of fio's
that never ends with a "{" at the start of each of its lines (each one decoded again to
the end of the file: minutes for 6 MB), an elbencho line of spaces (a regular
expression tried in every split of them: minutes per line), a totals.html line of two
million digits beside a vdbench flatfile (hours). Each input here would hang the test
if the old cost came back; none is timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.ingest import elbencho_text, fio, vdbench


@pytest.fixture
def tries(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Where each JSON decode of the test starts."""
    started: list[int] = []
    original = json.JSONDecoder.raw_decode

    def counted(self: json.JSONDecoder, s: str, idx: int = 0) -> tuple[object, int]:
        started.append(idx)
        return original(self, s, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counted)
    return started


def test_a_broken_document_is_decoded_a_bounded_number_of_times(tries: list[int]) -> None:
    line = '{"p":[' + ",".join(["1"] * 400) + '],"c":'
    text = '{"fio version":"fio-3.33","x":\n' + "\n".join([line] * 800) + "\n"
    found, error, _ = fio._documents(text)
    assert found == [] and "cut short" in error
    assert len(tries) == fio.MAX_BROKEN


def test_a_lines_nested_objects_are_not_tried_as_documents(tries: list[int]) -> None:
    """A document whose lines begin with "{" (nested objects at the margin) is decoded
    once, not once more from each of them."""
    inner = "\n".join('{"a": 1},' for _ in range(500))
    text = '{"jobs": [\n' + inner + '\n{"a": 2}]}\n'
    found, error, _ = fio._documents(text)
    assert len(found) == 1 and not error and tries == [0]


@pytest.mark.parametrize(
    "line", [" " * 9_999, "A" + " x" * 4_999, "WRITE " + " " * 9_000 + "x", "X" + "\t " * 4_000]
)
def test_an_elbencho_line_without_a_row_is_none_at_once(line: str) -> None:
    assert elbencho_text.ROW.match(line) is None


def test_elbencho_rows_still_read() -> None:
    row = elbencho_text.ROW.match("WRITE  Elapsed time      :     1.208s      1.216s")
    assert row is not None and (row["op"], row["name"]) == ("WRITE", "Elapsed time")
    assert row["values"] == "1.208s      1.216s"


def test_a_totals_line_of_digits_is_no_average_at_once() -> None:
    assert vdbench._TOTALS_AVG.search("1" * 2_000_000) is None
    line = "13:50:00.270  avg_2-60      50.02     0.20    4096  75.91    5.395"
    found = vdbench._TOTALS_AVG.search(line)
    assert found is not None and found[1].split()[0] == "50.02"


@pytest.mark.parametrize("opener", ["> ", "- ", "1. ", "> - "])
def test_markdown_nested_thousands_deep_is_refused_before_pandoc(
    opener: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 24 KB line of "> > > …" took pandoc 97 s before its document was refused as
    nested too deeply (64 KB: 459 s); it is refused, with its line, before pandoc runs."""
    from pipeline.errors import InputError
    from pipeline.render import sanitize

    def no_pandoc(*args: object) -> bytes:
        raise AssertionError("pandoc ran")

    monkeypatch.setattr(sanitize, "_run_pandoc", no_pandoc)
    text = "Intro.\n\n" + opener * 12_000 + "x\n"
    with pytest.raises(InputError, match=r"line 3: nested too deeply"):
        sanitize.image_refs(text, "text/en/conclusion.md")


@pytest.mark.parametrize("char", ["中", "\uffff"])
def test_a_character_the_fonts_cannot_show_is_named(char: str, tmp_path: Path) -> None:
    """One Chinese character in a text failed the build as "this is a bug" (PDF/A embeds
    every glyph it shows); the character is named, with where to look."""
    from pipeline.errors import InputError
    from pipeline.render.typst_doc import _compile

    source = tmp_path / "x.typ"
    source.write_text(f"Hallo {char} Welt\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        _compile(source, tmp_path, 0)
    said = str(err.value)
    assert f"U+{ord(char):04X}" in said and "bug" not in said, said


@pytest.mark.parametrize("name", ["Vendor @home", "Array $x$ 2", "H~2~O^3^", "a\\@b"])
def test_a_name_placed_in_a_text_stays_literal_in_pandoc_and_on_the_site(name: str) -> None:
    """ "@home" in a vendor's name reached the texts through {{ system }} and failed the
    build as a citation; "$x$" would be math, "~2~" subscript."""
    import html

    import markdown

    from pipeline.render import sanitize
    from pipeline.report.narrative import md_text

    text = md_text(name)
    tree = json.loads(sanitize.clean_tree(text, "x.md"))
    words = json.dumps(tree["blocks"])
    assert '"Cite"' not in words and '"Math"' not in words and '"Subscript"' not in words
    site = markdown.markdown(text)
    assert html.unescape(site) == f"<p>{name}</p>", site


def test_the_images_of_one_language_are_bounded_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each image may hold 40 megapixels and 500 may be placed: 100 flat PNGs (13 MB of
    files) took 12 GB, as typst keeps a PDF's images decoded. One language's distinct
    images together are bounded; the same image placed twice counts once."""
    import shutil

    from pipeline import images
    from pipeline.errors import InputErrors
    from pipeline.prepare import prepare
    from tests.conftest import FS840
    from tests.images import png

    folder = tmp_path / "fs840"
    shutil.copytree(FS840, folder)
    (folder / "images").mkdir()
    for n in (1, 2):
        (folder / "images" / f"p{n}.png").write_bytes(png(100, 100, (n, 2, 3)))
    summary = folder / "text" / "en" / "conclusion.md"
    twice = '\n\n![A](images/p1.png "one")\n\n![A again](images/p1.png "one again")\n'
    summary.write_text(summary.read_text(encoding="utf-8") + twice, encoding="utf-8")
    monkeypatch.setattr(images, "MAX_DOCUMENT_PIXELS", 15_000)
    prepare(folder)  # 10,000 pixels: the one image placed twice
    summary.write_text(
        summary.read_text(encoding="utf-8") + '\n![B](images/p2.png "two")\n', encoding="utf-8"
    )
    with pytest.raises(InputErrors, match="the images of the en texts hold 0 megapixels"):
        prepare(folder)
