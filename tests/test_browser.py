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
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pipeline.build import BuildResult, write_combined_site
from tests.conftest import once_per_run
from tests.serve import served

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and os.environ.get("CI") != "true",
    reason="chromium is not installed (make test installs it)",
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--virtual-time-budget=20000",
]


def _page_requests(netlog: Path) -> set[str]:
    """URLs the page asked for: the document itself and everything it initiated (Chromium's
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


def _load(url: str, tmp: Path) -> tuple[str, set[str]]:
    """The page's DOM after its scripts ran, and every URL the page asked for (a Chromium
    of its own: its own profile and net log in ``tmp``)."""
    tmp.mkdir()
    netlog = tmp / "net.json"
    profile = tmp / "profile"
    assert CHROMIUM
    run = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--log-net-log={netlog}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    urls = _page_requests(netlog)
    shutil.rmtree(profile, ignore_errors=True)
    return run.stdout, urls


def _outside(urls: set[str], base: str) -> list[str]:
    local = (base, "data:", "blob:", "chrome:", "about:")
    return sorted(u for u in urls if not u.startswith(local))


# every kind of page, each report in both languages (the switch test needs them)
PAGES = ["/", "/fs840/", "/de/fs840/", "/a800/", "/de/a800/", "/de/compare/"]


Pages = dict[str, tuple[str, set[str]]]


@pytest.fixture(scope="session")
def loaded(
    tmp_path_factory: pytest.TempPathFactory, fs840_build: BuildResult, a800_shared: BuildResult
) -> tuple[str, Pages]:
    """The site of both examples (as ``iopress site`` makes it, from the session's builds),
    every page loaded once per test run (a Chromium start each, two at a time): the
    server's address, and per page its DOM and the URLs it asked for."""
    assert CHROMIUM, "chromium must be installed in CI (make test installs it)"

    def load_all(tmp: Path) -> tuple[str, Pages]:
        tmp.mkdir()
        write_combined_site([fs840_build, a800_shared], tmp / "site")
        with served(tmp / "site") as base, ThreadPoolExecutor(2) as pool:
            loads = [
                pool.submit(_load, base + page, tmp / f"page{i}") for i, page in enumerate(PAGES)
            ]
            return base, {page: load.result() for page, load in zip(PAGES, loads, strict=True)}

    return once_per_run(tmp_path_factory, "browser", load_all)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_charts_and_stays_local(page: str, loaded: tuple[str, Pages]) -> None:
    base, pages = loaded
    dom, urls = pages[page]
    assert any(u.endswith("/assets/vega-embed.js") for u in urls)
    assert _outside(urls, base) == []
    lang = "de" if page.startswith("/de/") else "en"
    assert f'<html lang="{lang}"' in dom
    charts = dom.count('class="iop-chart"')
    if page.strip("/") not in ("", "de"):
        assert charts > 0
    assert dom.count('data-rendered="true"') == charts  # every chart drawn by Vega


@pytest.mark.parametrize(
    ("page", "other", "lang"), [("/de/fs840/", "/fs840/", "en"), ("/a800/", "/de/a800/", "de")]
)
def test_language_switch(page: str, other: str, lang: str, loaded: tuple[str, Pages]) -> None:
    _, pages = loaded
    dom, _ = pages[page]
    links = re.findall(r'<a href="([^"]+)" hreflang="([a-z]+)" class="md-select__link"', dom)
    target = dict((h, u) for u, h in links)[lang]
    resolved = json.dumps(target)
    assert target.rstrip("/").endswith(other.rstrip("/")) or other.strip("/") in resolved
    switched, _ = pages[other]
    assert f'<html lang="{lang}"' in switched
