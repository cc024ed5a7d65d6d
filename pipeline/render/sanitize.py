"""One rule for untrusted narrative Markdown, for the PDF (typst) and the site (HTML).

The Markdown is parsed by pandoc with raw HTML, raw attributes and raw TeX switched off;
the document tree is then cleaned: citations are refused, attributes other than a plain id are
dropped, links keep only http(s), mailto and anchors of headings that exist, heading levels
close up (``##`` after nothing is the text's first level, a skipped level is not skipped),
and an image standing alone in its paragraph becomes ``image_marker(k)`` (its file is checked,
numbered and placed by the caller: ``image_refs``); an image inside a line of text is
refused. The cleaned tree is written as typst or as HTML; the HTML passes an allow-list
sanitiser (nh3) once more before it reaches a page.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nh3
import pypandoc

from pipeline import cache
from pipeline.config import MAX_WORD
from pipeline.errors import InputError, ToolFailure
from pipeline.report.narrative import MARKER, token

# no YAML metadata either: it is thrown away (meta = {}), and a malformed block made
# pandoc fail on the whole text; no TeX math: '$a+b$' (a price, a shell variable) is text,
# where typst's PDF/UA check refused the formula it became ("missing alt text")
MARKDOWN = (
    "markdown-smart-auto_identifiers-raw_html-raw_attribute-raw_tex"
    "-native_divs-native_spans-link_attributes-inline_code_attributes-yaml_metadata_block"
    "-tex_math_dollars"
)
SCHEMES = ("http://", "https://", "mailto:")
# a link to a heading of another chapter's text: method.md#warm-up
CHAPTER_LINK = re.compile(r"^([a-z0-9][a-z0-9_-]*)\.md#([A-Za-z][A-Za-z0-9_-]*)$")  # as _ID
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
TAGS = {
    "p", "br", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a", "h1",
    "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "hr", "sub",
    "sup", "del", "span", "div", "dl", "dt", "dd", "caption", "colgroup", "col",
}  # fmt: skip
ATTRIBUTES = {"a": {"href"}, "*": {"id"}, "td": {"align"}, "th": {"align"}}

Node = dict[str, Any]


def _headings(tree: Any) -> list[Node]:
    """Every heading of the document, in its order."""
    if isinstance(tree, dict):
        found = [tree] if tree.get("t") == "Header" else []
        return found + [h for value in tree.values() for h in _headings(value)]
    if isinstance(tree, list):
        return [h for value in tree for h in _headings(value)]
    return []


def _ids(tree: Any, path: Path | str) -> set[str]:
    """Every heading id of the text that is kept (a plain one, ``_ID``); one given to two
    headings is an error (two labels of one name stop typst; a link could not say which)."""
    seen: dict[str, str] = {}
    for heading in _headings(tree):
        ident, words = heading["c"][1][0], " ".join(_text(heading["c"][2]).split())
        if not ident:
            continue  # no id given (pandoc makes none: auto_identifiers is off)
        if not _ID.match(ident):
            raise InputError(
                path,
                f"heading {words[:40]!r}",
                f"id #{ident} is no id the outputs can carry",
                "begin it with a letter a-z or A-Z, then letters, digits, - and _ "
                "({#warm-up}, not {#aufwärm} or {#2-warm})",
            )
        if ident in seen:
            raise InputError(
                path,
                f"heading {words[:40]!r}",
                f"id #{ident} is the id of heading {seen[ident][:40]!r} too",
                "give each heading its own id ({#id} after the heading)",
            )
        seen[ident] = words
    return set(seen)


def id_space(path: Path | str) -> str:
    """The text's own part of its headings' ids in the outputs: ``{#details}`` in
    results.md is ``results:details`` in the PDF's labels and the site's ids, so it
    never meets another text's, iopress's own (``tab-…``, ``fig-…``) or the site's and
    its theme's (``downloads``, ``__drawer``; none has a colon)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", Path(path).stem) or "text"


def _raw(node: Any) -> bool:
    return isinstance(node, dict) and node.get("t") in ("RawBlock", "RawInline")


@dataclass(frozen=True)
class ImageRef:
    """An image of the narrative: its path as written, caption and description (alt
    text), or what is wrong with it (``problem`` and ``hint``)."""

    url: str
    caption: str
    alt: str
    problem: str = ""
    hint: str = ""


IMAGE_HINT = (
    'write ![Caption](images/photo.jpg "what the image shows") in a paragraph of its own, '
    "the path relative to the report folder"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def image_marker(index: int, token: str) -> str:
    """Where the ``index``-th image of a text stands, ``token`` the text's own
    (``narrative.token`` of the Markdown): plain letters and digits, which survive pandoc
    into typst and HTML untouched, and which no text can write (see ``narrative.marker``)."""
    return f"IOPRESSIMAGE{token}N{index}X"


IMAGE_MARKER = re.compile(r"IOPRESSIMAGE[0-9a-f]{32}N\d+X")  # any text's ``image_marker``


def _text(inlines: Any) -> str:
    """The plain text of inlines (a caption's emphasis, code and links as their words)."""
    if isinstance(inlines, list):
        return "".join(_text(i) for i in inlines)
    if not isinstance(inlines, dict):
        return ""
    kind = inlines.get("t")
    if kind == "Str":
        return str(inlines["c"])
    if kind in ("Space", "SoftBreak", "LineBreak"):
        return " "
    if kind in ("Code", "Math"):
        return str(inlines["c"][1])
    content: Any = inlines.get("c")
    if kind in ("Link", "Image", "Span", "Quoted", "Cite"):  # [attributes or kind, inlines …]
        content = content[1]
    return _text(content)


def _problem(url: str, caption: str, alt: str) -> tuple[str, str]:
    """What is wrong with an image reference (before its file is read), and the fix."""
    if _SCHEME.match(url) or url.startswith("//"):
        return f"remote image {url!r} refused", "copy the image into the report folder"
    if url.startswith("/"):
        return f"absolute image path {url!r} refused", "name it relative to the report folder"
    if not caption.strip():
        return f"image {url!r} has no caption", IMAGE_HINT
    if not alt.strip():
        return f"image {url!r} has no description (alt text, needed by PDF/UA)", IMAGE_HINT
    if max(len(caption), len(alt)) > MAX_CAPTION:  # the alt text is one PDF string
        why = f"image {url!r} has a caption or description over {MAX_CAPTION:,} characters"
        return why, "say it shorter; the text around the image can say more"
    return "", ""


def _figure_image(node: Node) -> Node | None:
    """The one image of a figure that holds nothing else, or None."""
    blocks = node["c"][2]
    if len(blocks) == 1 and blocks[0].get("t") in ("Plain", "Para"):
        inlines = blocks[0]["c"]
        if len(inlines) == 1 and inlines[0].get("t") == "Image":
            image: Node = inlines[0]
            return image
    return None


MAX_HEADING = 300  # characters of a heading's text
MAX_CAPTION = 2000  # characters of an image's caption or description


_NO_ATTR: list[Any] = ["", [], []]  # pandoc's attributes: no id, classes or key-values


class _Cleaner:
    def __init__(self, path: Path | str, ids: set[str], token: str, text: str = "") -> None:
        self.path, self.ids, self.token, self.text = path, ids, token, text
        self.space = id_space(path)
        self.images: list[ImageRef] = []
        self.levels: list[int] = []  # the heading levels used, sorted
        self.last = 0  # the level of the heading before

    def __call__(self, node: Any) -> Any:
        if isinstance(node, list):  # raw HTML, TeX …: left out; a null (a table's short
            return [self(n) for n in node if not _raw(n)]  # caption) is no node: kept
        if not isinstance(node, dict) or "t" not in node:
            return node
        kind = node["t"]
        handler: Callable[[Node], Any] | None = getattr(self, f"_{kind.lower()}", None)
        if handler:
            return handler(node)
        return {"t": kind, "c": self(node["c"])} if "c" in node else node

    def _header(self, node: Node) -> Node:
        """Levels close up: the text's highest level is 1 and no level is skipped; a
        heading longer than ``MAX_HEADING`` is refused (it is the PDF's bookmark, and a
        PDF/A string holds at most 32,767 characters)."""
        level, attr, inlines = node["c"]
        words = _text(inlines)
        if len(words) > MAX_HEADING:
            raise InputError(
                self.path,
                f"heading {words[:40]!r}…",
                f"a heading of {len(words):,} characters",
                f"keep a heading to {MAX_HEADING} characters; write the rest as a paragraph",
            )
        level = min(self.levels.index(level) + 1, self.last + 1) if self.levels else 1
        self.last = level
        ident = f"{self.space}:{attr[0]}" if attr[0] in self.ids else ""
        return {"t": "Header", "c": [level, [ident, [], []], self(inlines)]}

    def _attributed(self, node: Node) -> Node:
        """Div, Span, Code, CodeBlock: [attr, content]; the attributes dropped (an id
        only a heading's: a span's would be a label no link may name)."""
        _, inner = node["c"]
        if isinstance(inner, str):  # Code, CodeBlock
            self._words(inner)
        return {"t": node["t"], "c": [["", [], []], self(inner)]}

    _div = _span = _code = _codeblock = _attributed

    def _table(self, node: Node) -> Node:
        """A table, its head, bodies, rows and cells without their attributes (a caption's
        ``{#downloads}`` gave the site a second id="downloads" and typst a duplicate
        label): [attr, caption, colspecs, head, bodies, foot]."""
        _, caption, specs, head, bodies, foot = node["c"]

        def rows(found: list[Any]) -> list[Any]:
            return [[_NO_ATTR, [[_NO_ATTR, *c[1:4], self(c[4])] for c in r[1]]] for r in found]

        bodies = [[_NO_ATTR, b[1], rows(b[2]), rows(b[3])] for b in bodies]
        parts = [self(caption), specs, [_NO_ATTR, rows(head[1])], bodies, [_NO_ATTR, rows(foot[1])]]
        return {"t": "Table", "c": [_NO_ATTR, *parts]}

    def _str(self, node: Node) -> Node:
        self._words(node["c"])
        return node

    def _words(self, text: str) -> None:
        """A word longer than ``MAX_WORD`` is refused: no line holds it, and from 32,768
        characters the PDF cannot (a PDF/A string's limit)."""
        longest = max(text.split(), key=len, default="")
        if len(longest) > MAX_WORD:
            raise InputError(
                self.path,
                f"word {longest[:40]!r}…",
                f"a word of {len(longest):,} characters",
                f"break it with spaces (at most {MAX_WORD} characters without one); "
                "a long link: [its text](its address)",
            )

    def _cite(self, node: Node) -> Node:
        """A citation (``@label``) refers to nothing iopress knows: refused, not printed
        as a reference that typst would fail on."""
        ids = ", ".join(f"@{c['citationId']}" for c in node["c"][0])
        raise InputError(
            self.path,
            f"citation {ids}",
            "citations are not supported",
            "write \\@ for a literal @; place tables and charts with table() and chart()",
        )

    def _figure(self, node: Node) -> Node:
        """A paragraph of one image: recorded, and a marker in its place."""
        image = _figure_image(node)
        if image is None:
            return {"t": "Figure", "c": self(node["c"])}
        return self._alone(image)

    def _para(self, node: Node) -> Node:
        """A paragraph of one image without a caption (pandoc makes no figure of it)."""
        inlines = node["c"]
        if len(inlines) == 1 and isinstance(inlines[0], dict) and inlines[0].get("t") == "Image":
            return self._alone(inlines[0])
        return {"t": "Para", "c": self(inlines)}

    def _alone(self, image: Node) -> Node:
        _, inlines, (url, alt) = image["c"]
        caption = " ".join(_text(inlines).split())
        self.images.append(
            ImageRef(url, caption, " ".join(alt.split()), *_problem(url, caption, alt))
        )
        marker = {"t": "Str", "c": image_marker(len(self.images) - 1, self.token)}
        return {"t": "Para", "c": [marker]}

    def _image(self, node: Node) -> Node:
        """An image inside a line of text: refused (``image_refs`` names it)."""
        _, inlines, (url, _alt) = node["c"]
        self.images.append(
            ImageRef(url, _text(inlines), "", f"image {url!r} inside a line of text", IMAGE_HINT)
        )
        return {"t": "Span", "c": [["", [], []], []]}

    def _link(self, node: Node) -> Node:
        _, inlines, (url, _title) = node["c"]
        text = self(inlines)
        if url.startswith("#"):
            if url[1:] not in self.ids:
                line = _source_line(self.text, f"]({url}")
                raise BrokenLink(
                    self.path,
                    f"{line}link {url!r}",
                    "links to no heading of this text (#id reaches the headings of its own "
                    "text; another chapter's are reached as file.md#id)",
                    "give the heading an id ({#id} after it) and link to #id, or to "
                    "file.md#id where it is in another chapter's text",
                )
            return {"t": "Link", "c": [["", [], []], text, [f"#{self.space}:{url[1:]}", ""]]}
        if chapter := CHAPTER_LINK.match(url):  # checked before (``chapter_link_problems``)
            target = f"#{id_space(chapter[1])}:{chapter[2]}"
            return {"t": "Link", "c": [["", [], []], text, [target, ""]]}
        if url.lower().startswith(SCHEMES):
            return {"t": "Link", "c": [["", [], []], text, [url, ""]]}
        return {"t": "Span", "c": [["", [], []], text]}  # other targets: the text alone


class BrokenLink(InputError):
    """A link to no heading of its text."""


def link_problem(markdown: str, path: Path | str) -> BrokenLink | None:
    """A link of the text as its author wrote it (before its placeholders are filled, so
    its line is theirs) to no heading of it; None where there is none. Other problems of
    the text are said where the filled text is converted."""
    if "](#" not in markdown:
        return None
    try:
        _cleaned(markdown, path)
    except BrokenLink as broken:
        return broken
    except InputError:
        return None
    return None


def chapter_link_problems(
    markdown: str, path: Path | str, texts: Mapping[str, tuple[str, Path | str]]
) -> list[BrokenLink]:
    """The links of a text as its author wrote it to a heading of a chapter's text
    (``method.md#warm-up``) that ``texts`` (the same language's, by file stem: markdown
    and path) does not hold, or whose heading has no such id."""
    if ".md" not in markdown.lower():
        return []
    found = []
    for url in dict.fromkeys(_link_urls(json.loads(_tree(markdown, path)))):
        if _MD.search(url.split("#")[0]) and not CHAPTER_LINK.match(url):
            found.append(_unread_chapter_link(markdown, path, url))
            continue
        if not (chapter := CHAPTER_LINK.match(url)):
            continue
        target = texts.get(chapter[1])
        ids = frozenset() if target is None else heading_ids(*target)
        if chapter[2] not in ids:
            found.append(_broken_chapter_link(markdown, path, url, target is not None))
    return found


@functools.lru_cache(maxsize=256)  # texts: a report has a few dozen
def heading_ids(markdown: str, path: Path | str) -> frozenset[str]:
    """The heading ids of a text, parsed once however many links of other texts name it
    (each parse is a pandoc process)."""
    return frozenset(_ids(json.loads(_tree(markdown, path))["blocks"], path))


_MD = re.compile(r"\.md$", re.IGNORECASE)  # a link to a text file: meant as a chapter's


def _unread_chapter_link(markdown: str, path: Path | str, url: str) -> BrokenLink:
    """A link to a Markdown file that is not ``file.md#id``: removed, it would print as
    text alone, where its author meant a link."""
    return BrokenLink(
        path,
        f"{_source_line(markdown, f']({url}')}link {url!r}",
        "names a text but not as a link to a chapter's heading reads: file.md#id, the "
        "file's name in text/<lang>/ as it is (lower case), no folder",
        "link to a heading of it: give the heading an id ({#id} after it) and write "
        "[…](method.md#id)",
    )


def _broken_chapter_link(markdown: str, path: Path | str, url: str, text: bool) -> BrokenLink:
    name = url.split("#")[0]
    said = "names no heading id of that text" if text else f"{name} is no chapter's text"
    return BrokenLink(
        path,
        f"{_source_line(markdown, f']({url}')}link {url!r}",
        f"{said} (a link reaches a heading of a chapter by its id: {{#id}} after it)",
        "give the heading an id ({#id} after it) and link to file.md#id, the file a "
        "chapter's text in text/<lang>/",
    )


def _link_urls(tree: Any) -> Iterator[str]:
    """The target of every link of a pandoc document, in its order."""
    if isinstance(tree, dict):
        if tree.get("t") == "Link":
            yield tree["c"][2][0]
        for value in tree.values():
            yield from _link_urls(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _link_urls(value)


def _source_line(filled: str, found: str) -> str:
    """ "line N: " of ``found`` in the text as its author wrote it: a directive placed
    before it stands in the filled text as its marker between blank lines (four lines
    more each); "" where it is not found."""
    at = filled.find(found)
    if at < 0:
        return ""
    before = filled[:at]
    return f"line {before.count(chr(10)) + 1 - 4 * len(MARKER.findall(before))}: "


@functools.cache
def _pandoc_binary() -> str:
    return str(pypandoc.get_pandoc_path())


@functools.cache
def _pandoc_version() -> str:
    return str(pypandoc.get_pandoc_version())


def _run_pandoc(text: str, to: str, source: str, args: tuple[str, ...]) -> bytes:
    """pandoc itself, once per conversion (pypandoc starts it three times: twice to list
    the formats it knows). --sandbox: no file and no network access, whatever the text."""
    try:
        done = subprocess.run(
            [_pandoc_binary(), "--sandbox", f"--from={source}", f"--to={to}", *args],
            input=text.encode("utf-8"),
            capture_output=True,
            check=False,
            timeout=PANDOC_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise PandocRefused(
            "pandoc", f"converting {source} to {to} took more than {PANDOC_SECONDS} s"
        ) from None
    if done.returncode < 0:
        raise ToolFailure(
            "pandoc",
            f"died (signal {-done.returncode}) converting {source} to {to}",
            "free memory or stop what else runs, then build again",
        )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip()
        raise PandocRefused("pandoc", f"converting {source} to {to} failed: {message}")
    return done.stdout


PANDOC_SECONDS = 300  # a text of the 4 MiB allowed converts in seconds


class PandocRefused(ToolFailure):
    """pandoc ran and said no: where it reads the narrative's Markdown, the text's fault."""


def _pandoc(text: str, to: str, source: str, *args: str) -> str:
    """pandoc's conversion of ``text``, kept in the cache under everything it depends on
    (pandoc's version, the formats, the options, the text): a warm build runs no pandoc."""
    name = cache.key("pandoc", _pandoc_version(), to, source, "--sandbox", *args, text)
    return cache.cached(name, lambda: _run_pandoc(text, to, source, args)).decode("utf-8")


def _levels(tree: Any) -> set[int]:
    """Every heading level in the document."""
    if isinstance(tree, dict):
        found = {int(tree["c"][0])} if tree.get("t") == "Header" else set()
        return found.union(*(_levels(v) for v in tree.values()))
    if isinstance(tree, list):
        return set().union(*(_levels(v) for v in tree))
    return set()


# what a marker stands for, and how to place it so that it stands alone at the top level
_PLACED = (
    (
        MARKER,
        "a table or chart placed inside code, a quote, a list, a link or a sentence",
        "put {{ table(...) }} or {{ chart(...) }} on a line of its own, "
        "with an empty line before and after",
    ),
    (
        IMAGE_MARKER,
        "an image placed inside a quote, a list or a table",
        "put the image in a paragraph of its own at the text's top level",
    ),
)


def _placed_alone(blocks: list[Node], path: Path | str) -> None:
    """A table, chart or image stands alone in a paragraph of the text's top level:
    inside code it would print as typst source, inside a quote, list, link or sentence
    it would split the site's HTML (a figure is a block of its own)."""
    alone = {
        id(b["c"][0])
        for b in blocks
        if b.get("t") in ("Para", "Plain") and len(b["c"]) == 1 and b["c"][0].get("t") == "Str"
    }

    def check(node: Any) -> None:
        if isinstance(node, dict) and id(node) in alone:
            return
        if isinstance(node, dict | list):
            for value in node.values() if isinstance(node, dict) else node:
                check(value)
        elif isinstance(node, str):
            for pattern, why, fix in _PLACED:
                if pattern.search(node):
                    raise InputError(path, "", why, fix)

    check(blocks)


def _cleaned(markdown: str, path: Path | str) -> tuple[dict[str, Any], list[ImageRef]]:
    """The cleaned pandoc document of untrusted Markdown and its images; Markdown pandoc
    refuses, or nested deeper than Python's JSON reader follows, is an input error of
    ``path``."""
    try:
        doc = json.loads(_tree(markdown, path))
        cleaner = _Cleaner(path, _ids(doc["blocks"], path), token(markdown), markdown)
        cleaner.levels = sorted(_levels(doc["blocks"]))
        doc["blocks"] = cleaner(doc["blocks"])
        _placed_alone(doc["blocks"], path)
    except PandocRefused as refused:
        raise InputError(path, "", refused.message, "write plain Markdown there") from None
    except RecursionError:
        raise InputError(
            path, "", "nested too deeply (quotes or lists inside each other)", "nest less"
        ) from None
    doc["meta"] = {}
    return doc, cleaner.images


# quote and list markers a line opens: "> > > x", "- - - x", "1. > x" (pandoc's time grows
# with the square of their number: a line of 12,000 took 97 s, before it was refused)
_OPENERS = re.compile(r"[ \t]*(?:>|[*+-](?=[ \t])|\d{1,9}[.)](?=[ \t]))")
MAX_NESTING = 100  # containers a line may open; pandoc's document of more is refused anyway


def _not_too_deep(markdown: str, path: Path | str) -> None:
    """Refused before pandoc reads it: a line that opens more than ``MAX_NESTING``
    quotes or lists inside each other."""
    for number, line in enumerate(markdown.splitlines(), 1):
        depth, at = 0, 0
        while (found := _OPENERS.match(line, at)) and depth <= MAX_NESTING:
            depth, at = depth + 1, found.end()
        if depth > MAX_NESTING:
            why = f"nested too deeply: more than {MAX_NESTING} quotes or lists inside each other"
            raise InputError(path, f"line {number}", why, "nest less")


def image_refs(markdown: str, path: Path | str) -> list[ImageRef]:
    """The images of a text in order: the k-th stands where ``image_marker(k,
    token(markdown))`` is."""
    return _cleaned(markdown, path)[1]


def markers(markdown: str, path: Path | str, placed: str) -> list[str]:
    """The markers of the cleaned text in order: directives' (``narrative.marker`` with
    the token ``placed``) and images' (``image_marker``)."""
    own = (f"PLACE{re.escape(placed)}", f"IMAGE{token(markdown)}")
    found = re.findall(rf"IOPRESS(?:{'|'.join(own)})N\d+X", clean_tree(markdown, path))
    return list(dict.fromkeys(found))


def clean_tree(markdown: str, path: Path | str) -> str:
    """The cleaned pandoc document (JSON) of untrusted Markdown. An image with a problem
    is an error here (``image_refs`` lets the caller name its line first)."""
    doc, images = _cleaned(markdown, path)
    for image in images:
        if image.problem:
            raise InputError(path, "", image.problem, image.hint)
    return json.dumps(doc)


def _typst(markdown: str, path: Path | str) -> str:
    tree = json.dumps(_thousands(json.loads(clean_tree(markdown, path))))
    return _pandoc(tree, "typst", "json", "--shift-heading-level-by=1", "--wrap=preserve")


_MARK = re.compile(r"(?<=\d)['\u2019](?=\d)")
TYPST_MARK = {"t": "RawInline", "c": ["typst", "\\u{2019}"]}


def _thousands(tree: Any) -> Any:
    """A thousands mark between digits (1’008’045, or 1'008 typed) as typst's escape of
    U+2019: pandoc writes ’ as ' for typst, and typst prints ' after a digit as a prime
    (1′008′045), where the tables print ’ (U+2019)."""
    if isinstance(tree, list):
        out: list[Any] = []
        for item in tree:
            if isinstance(item, dict) and item.get("t") == "Str" and _MARK.search(item["c"]):
                parts = _MARK.split(item["c"])
                for i, part in enumerate(parts):
                    out += ([TYPST_MARK] if i else []) + ([{"t": "Str", "c": part}] if part else [])
            else:
                out.append(_thousands(item))
        return out
    if isinstance(tree, dict):
        return {k: _thousands(v) for k, v in tree.items()}
    return tree


def _html(markdown: str, path: Path | str) -> str:
    fragment = _pandoc(
        clean_tree(markdown, path), "html", "json", "--shift-heading-level-by=2", "--wrap=none"
    )
    return str(
        nh3.clean(
            fragment,
            tags=TAGS,
            attributes=ATTRIBUTES,
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer",
        )
    )


def _parse(markdown: str, path: Path | str) -> str:
    """pandoc's document (JSON) of the Markdown, before it is cleaned (a text nested too
    deeply refused before pandoc reads it)."""
    _not_too_deep(markdown, path)
    return _pandoc(markdown, "json", MARKDOWN)


def _tree(markdown: str, path: Path | str) -> str:
    """``_parse``'s document: the one prefetched (``prefetch(texts, ("json",))``), else made
    now on this thread. Never started on the pool from here: a conversion on the pool that
    waited for a tree queued behind it could wait for ever."""
    with _KEEPING:
        made = _MADE.get(("json", markdown, str(path)))
    return made.result() if made is not None else _parse(markdown, path)


CONVERTERS: dict[str, Callable[[str, Path | str], str]] = {
    "json": _parse,
    "typst": _typst,
    "html": _html,
}
MAX_KEPT = 512  # conversions kept in memory (a long test session builds many reports)


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(4, thread_name_prefix="iopress-pandoc")


_MADE: OrderedDict[tuple[str, str, str], Future[str]] = OrderedDict()
_KEEPING = threading.Lock()


def _convert(kind: str, markdown: str, path: Path | str) -> Future[str]:
    """The conversion of ``markdown`` to ``kind``, started once per process (pandoc runs
    as a process of its own, so several conversions run at the same time); the
    ``MAX_KEPT`` used last are kept, so a report's own prefetched texts stay."""
    key = (kind, markdown, str(path))
    with _KEEPING:
        if key in _MADE:
            _MADE.move_to_end(key)
            return _MADE[key]
        while len(_MADE) >= MAX_KEPT:
            _MADE.popitem(last=False)
        _MADE[key] = made = _pool().submit(CONVERTERS[kind], markdown, path)
    made.add_done_callback(lambda done: _forget_failed(key, done))
    return made


def _forget_failed(key: tuple[str, str, str], done: Future[str]) -> None:
    """A conversion that failed (pandoc killed, say) is tried again when next asked for
    (on pandoc's thread, or this one if it is done already)."""
    with _KEEPING:
        if done.exception() is not None and _MADE.get(key) is done:
            del _MADE[key]


def prefetch(texts: Iterable[tuple[str, Path | str]], kinds: Iterable[str]) -> None:
    """Start converting every text to every kind now; ``to_typst``/``to_html`` then wait
    for their conversion instead of starting it."""
    for kind in kinds:
        for markdown, path in texts:
            _convert(kind, markdown, path)


def to_typst(markdown: str, path: Path | str) -> str:
    """Untrusted Markdown -> typst markup (headings one level down, text literal)."""
    return _convert("typst", markdown, path).result()


def to_html(markdown: str, path: Path | str) -> str:
    """Untrusted Markdown -> an HTML fragment with only allow-listed tags and attributes."""
    return _convert("html", markdown, path).result()
