"""Drawing one Vega-Lite spec. Vega runs once per chart, in vl-convert's embedded
JavaScript engine, in a process of its own: vl-convert holds the GIL while its engine
starts (≈ 0.5 s) and for about three quarters of each drawing, so on a thread it would
stall the build it is meant to run beside. The PDF is made from the SVG by typst
(≈ 25 ms, on a thread: typst releases the GIL), with the project's fonts, because
vl-convert's own SVG-to-PDF orders its font objects differently from run to run and typst
gives the same bytes every time."""

from __future__ import annotations

import functools
import json
import re
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import typst
import vl_convert as vlc

from pipeline import procs
from pipeline.paths import FONTS

# Labels Vega hides (labelOverlap) stay in the SVG with opacity 0: invisible, but still
# text a PDF reader finds, copies and prints over its neighbours. They are taken out.
_HIDDEN_TEXT = re.compile(
    r'<text\b[^>]*\sopacity="0"[^>]*>(?:[^<]|<tspan\b[^>]*>[^<]*</tspan>)*</text>'
)
# part of the cache key: change it with the cleaning or the PDF page
CLEANING = "hidden text removed (1), pdf from sys.inputs"

# the SVG comes in as a string input: no file is written (a killed build leaves none)
_PAGE = (
    "#set page(width: auto, height: auto, margin: 0pt)\n"
    '#image(bytes(sys.inputs.svg), format: "svg", alt: "chart")\n'
)


def svg_to_pdf(svg: str) -> bytes:
    """One SVG as a one-page PDF of its own size, reproducibly."""
    # root: a file an SVG links to is looked up in the fonts folder only, never in the
    # working directory (typst's default for a source given as bytes). The stub's one type
    # variable for the input and the paths admits no bytes input beside str paths; the
    # binding itself takes both.
    return bytes(
        typst.compile(  # type: ignore[misc]
            _PAGE.encode("utf-8"),
            root=str(FONTS),
            font_paths=[str(FONTS)],
            ignore_system_fonts=True,
            timestamp=0,
            sys_inputs={"svg": svg},
        )
    )


def visible(svg: str) -> str:
    """The SVG without the text Vega hid."""
    return _HIDDEN_TEXT.sub("", svg)


def svg(spec_text: str, locale_text: str) -> str:
    """(Vega-Lite JSON, d3 number locale JSON) -> the SVG, without the text Vega hid."""
    made = vlc.vegalite_to_svg(json.loads(spec_text), format_locale=json.loads(locale_text))
    return visible(str(made))


TRIVIAL = {"data": {"values": [{"x": 1}]}, "mark": "point", "encoding": {"x": {"field": "x"}}}


def _svg_bytes(spec_text: str, locale_text: str) -> bytes:
    """In the Vega process: the SVG, as bytes."""
    return svg(spec_text, locale_text).encode("utf-8")


def _warm_up() -> None:
    """In the Vega process: start the engine before the first chart comes."""
    vlc.vegalite_to_svg(TRIVIAL)


class Renderer:
    """One process for Vega, one thread for typst: charts are drawn in the order given,
    each chart's PDF made from its SVG while Vega draws the next. Vega's process and
    engine start as soon as the renderer is made, once per build process."""

    def __init__(self) -> None:
        self.vega = self._start()
        self.typst = ThreadPoolExecutor(1, thread_name_prefix="iopress-typst")

    @staticmethod
    def _start() -> ProcessPoolExecutor:
        vega = procs.pool(1)
        vega.submit(_warm_up)
        return vega

    def svg(self, spec: str, locale: str) -> Future[bytes]:
        try:
            drawn: Future[bytes] = self.vega.submit(_svg_bytes, spec, locale)
        except BrokenProcessPool:  # the Vega process died (killed): a new one
            self.vega = self._start()
            drawn = self.vega.submit(_svg_bytes, spec, locale)
        return drawn

    def pdf(self, drawn: Future[bytes]) -> Future[bytes]:
        return self.typst.submit(lambda: svg_to_pdf(drawn.result().decode("utf-8")))


@functools.cache
def renderer() -> Renderer:
    """This process's renderer: Vega's engine starts once per process."""
    return Renderer()


def stop() -> None:
    """This process's Vega process killed, if it was started: a build refused after
    starting it (``build.build`` starts it before reading the report) answers at once
    instead of waiting at exit for the engine's start (≈ 0.8 s)."""
    if not renderer.cache_info().currsize:
        return
    made = renderer()
    renderer.cache_clear()
    for process in list((made.vega._processes or {}).values()):
        process.kill()
    # waits for the pool's manager thread, which sees the killed process at once: left
    # running, it could close its wake-up pipe while the interpreter's exit writes to it
    # (Python 3.11: "Exception ignored … OSError: Bad file descriptor" after a refusal)
    made.vega.shutdown(wait=True, cancel_futures=True)
    made.typst.shutdown(wait=False)
