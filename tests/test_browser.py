"""The site in a real browser: Debian's chromium loads each page headless from a server on
localhost; the charts render, the language switch works, no request leaves localhost.

`make test` installs chromium (Debian package) when it is missing. Outside CI the test is
skipped where chromium is absent; in CI (CI=true) a missing chromium fails it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from pipeline.build import BuildResult, write_combined_site
from tests.chromium import CHROMIUM, browser
from tests.conftest import once_per_run
from tests.serve import served

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None and os.environ.get("CI") != "true",
        reason="chromium is not installed (make test installs it)",
    ),
    # all on one worker: the pages are loaded once per run, and a second worker would
    # only wait for the first (tests.conftest.once_per_run)
    pytest.mark.xdist_group("browser"),
]


def _page_requests(netlog: Path) -> set[str]:
    """URLs pages asked for: each document itself and everything it initiated (Chromium's
    own service calls carry the initiator "not an origin")."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = set()
    for event in log["events"]:
        params = event.get("params", {})
        if names.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        if params.get("initiator") != "not an origin" or params.get("request_type") == "main frame":
            urls.add(params["url"])
    return urls


def _outside(urls: set[str], base: str) -> list[str]:
    local = (base, "data:", "blob:", "chrome:", "about:")
    return sorted(u for u in urls if not u.startswith(local))


# every kind of page, each report in both languages (the switch test needs them)
PAGES = ["/", "/fs840/", "/de/fs840/", "/a800/", "/de/a800/", "/de/compare/"]


Pages = dict[str, tuple[str, set[str]]]


@pytest.fixture(scope="session")
def loaded(
    tmp_path_factory: pytest.TempPathFactory, fs840_build: BuildResult, a800_shared: BuildResult
) -> tuple[str, Pages, set[str]]:
    """The site of both examples (as ``iopress site`` makes it, from the session's builds),
    every page loaded once per test run, one after the other in one Chromium: the
    server's address, per page its DOM and the URLs it asked for, and every URL the
    browser's net log shows a page asked for."""
    assert CHROMIUM, "chromium must be installed in CI (make test installs it)"

    def load_all(tmp: Path) -> tuple[str, Pages, set[str]]:
        tmp.mkdir()
        write_combined_site([fs840_build, a800_shared], tmp / "site")
        with served(tmp / "site") as base:
            with browser(tmp / "profile", tmp / "net.json") as chromium:
                pages = {page: chromium.load(base + page) for page in PAGES}
            shutil.rmtree(tmp / "profile", ignore_errors=True)
            return base, pages, _page_requests(tmp / "net.json")

    return once_per_run(tmp_path_factory, "browser", load_all)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_charts_and_stays_local(
    page: str, loaded: tuple[str, Pages, set[str]]
) -> None:
    base, pages, logged = loaded
    dom, urls = pages[page]
    assert any(u.endswith("/assets/vega-embed.js") for u in urls)
    assert _outside(urls, base) == [] and _outside(logged, base) == []
    lang = "de" if page.startswith("/de/") else "en"
    assert f'<html lang="{lang}"' in dom
    charts = dom.count('class="iop-chart"')
    if page.strip("/") not in ("", "de"):
        assert charts > 0
    assert dom.count('data-rendered="true"') == charts  # every chart drawn by Vega


@pytest.mark.parametrize(
    ("page", "other", "lang"), [("/de/fs840/", "/fs840/", "en"), ("/a800/", "/de/a800/", "de")]
)
def test_language_switch(
    page: str, other: str, lang: str, loaded: tuple[str, Pages, set[str]]
) -> None:
    _, pages, _ = loaded
    dom, _ = pages[page]
    links = re.findall(r'<a href="([^"]+)" hreflang="([a-z]+)" class="md-select__link"', dom)
    target = dict((h, u) for u, h in links)[lang]
    resolved = json.dumps(target)
    assert target.rstrip("/").endswith(other.rstrip("/")) or other.strip("/") in resolved
    switched, _ = pages[other]
    assert f'<html lang="{lang}"' in switched
