"""The site in a real browser, as people open it: Debian's chromium, headless, opens each
site from the file system (file://, what README says to do) and from a server on
localhost. From the home page it follows every navigation link, the language switch, the
logo and every link between pages, until it has seen every page: each must be a page of
the site (not a folder's listing), every chart on it an interactive Vega view whose
legend labels are whole and do not overlap, and no request may leave the site. A click on
the language switch and on the navigation lands where the link says. Both for the site
of one report (``iopress build``) and for the comparison site (``iopress site``).

`make test` installs chromium (Debian package) when it is missing. Outside CI the test is
skipped where chromium is absent; in CI (CI=true) a missing chromium fails it.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline.build import BuildResult
from pipeline.publish import write_combined_site
from tests.chromium import CHROMIUM, Browser, browser
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

# What a page shows a test, evaluated once it settled (ROOT: the site's address). Links
# are taken as the browser resolved them (where a click leads), without their fragment;
# those into the site that name a page or a folder are followed, downloads are not.
PROBE = """((root) => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const page = (href) => {
    const url = new URL(href); url.hash = "";
    const last = url.pathname.split("/").pop();
    const named = last.endsWith(".html") || !last.includes(".");
    return url.href.startsWith(root) && named ? url.href : null;
  };
  const links = [...document.querySelectorAll("a[href]")].map((a) => page(a.href)).filter(Boolean);
  return {
    url: location.href,
    lang: document.documentElement.lang,
    page: document.querySelector(".md-content") !== null,
    links: [...new Set(links)],
    switch: Object.fromEntries([...document.querySelectorAll("a.md-select__link")]
      .map((a) => [a.hreflang, page(a.href)])),
    charts: [...document.querySelectorAll(".iop-chart")].map((chart) => ({
      live: chart.querySelector(".iop-chart-live.vega-embed svg.marks") !== null
        && chart.querySelector(".iop-chart-live").dataset.rendered === "true",
      img: chart.querySelector("img") !== null,
      labels: [...chart.querySelectorAll(".role-legend-label text")]
        .map((t) => ({text: t.textContent, box: box(t)})),
    })),
    searchShown: [...document.querySelectorAll(".md-search")]
      .some((e) => getComputedStyle(e).display !== "none"),
    searchNote: [...document.querySelectorAll(".iop-search-note")]
      .some((e) => getComputedStyle(e).display !== "none"),
  };
})"""


def _page_requests(netlog: Path) -> set[str]:
    """URLs pages asked for, by the browser's net log: each document itself and everything
    it initiated, workers included (Chromium's own service calls carry the initiator "not
    an origin")."""
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


@dataclass
class Crawl:
    """One site seen in one way: its address, per page URL what PROBE found and the URLs the
    page asked for; the pages a click on the language switch and on the navigation led to."""

    root: str
    pages: dict[str, tuple[dict[str, Any], set[str]]]
    clicks: dict[str, dict[str, Any]]


def _crawl(chromium: Browser, root: str) -> Crawl:
    probe = f"{PROBE}({json.dumps(root)})"
    pages: dict[str, tuple[dict[str, Any], set[str]]] = {}
    todo = [root + "index.html"]
    while todo:
        url = todo.pop()
        if url not in pages:
            pages[url] = chromium.probe(url, probe)
            todo += pages[url][0]["links"] if pages[url][0]["page"] else []
    clicks = {
        selector: chromium.probe(root + "de/index.html", probe, click=selector)[0]
        for selector in (SWITCH, NAV)
    }
    return Crawl(root, pages, clicks)


SWITCH = 'a.md-select__link[hreflang="en"]'
NAV = ".md-nav--primary a.md-nav__link[href$='.html']:not([href='index.html'])"
SITES = ("report", "comparison")
WAYS = ("file", "http")


@pytest.fixture(scope="session")
def crawled(
    tmp_path_factory: pytest.TempPathFactory, fs840_build: BuildResult, a800_shared: BuildResult
) -> dict[tuple[str, str], Crawl]:
    """The site of one report (fs840's build) and the comparison site of both examples (as
    ``iopress site`` makes it), each crawled from file:// and over HTTP in one chromium,
    once per test run."""
    assert CHROMIUM, "chromium must be installed in CI (make test installs it)"

    def crawl_all(tmp: Path) -> dict[tuple[str, str], Crawl]:
        tmp.mkdir()
        shutil.copytree(fs840_build.out / "site", tmp / "report")
        write_combined_site([fs840_build, a800_shared], tmp / "comparison")
        found = {}
        with browser(tmp / "profile", tmp / "net.json") as chromium:
            for site in SITES:
                found[(site, "file")] = _crawl(chromium, (tmp / site).as_uri() + "/")
                with served(tmp / site) as base:
                    found[(site, "http")] = _crawl(chromium, base + "/")
        shutil.rmtree(tmp / "profile", ignore_errors=True)
        roots = tuple(c.root for c in found.values())
        logged = _page_requests(tmp / "net.json")
        found[("any", "log")] = Crawl(
            "",
            {},
            {
                "outside": {
                    "urls": sorted(
                        u
                        for u in logged
                        if not u.startswith((*roots, "data:", "blob:", "chrome:", "about:"))
                    )
                }
            },
        )
        return found

    return once_per_run(tmp_path_factory, "browser", crawl_all)


WAYS_OF_SITES = [(site, way) for site in SITES for way in WAYS]


@pytest.mark.parametrize(("site", "way"), WAYS_OF_SITES)
def test_every_link_lands_on_a_page(
    site: str, way: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    crawl = crawled[(site, way)]
    listings = sorted(url for url, (info, _) in crawl.pages.items() if not info["page"])
    assert listings == [], "links leading to no page (a folder's listing?)"
    names = {url.removeprefix(crawl.root) for url in crawl.pages}
    expected = {"index.html", "de/index.html", "fs840.html", "de/fs840_steady.html"}
    if site == "comparison":
        expected |= {"a800.html", "de/a800_environment.html", "compare.html", "de/compare.html"}
    assert expected <= names
    assert len(names) == (16 if site == "comparison" else 8)  # every page, both languages


@pytest.mark.parametrize(("site", "way"), WAYS_OF_SITES)
def test_every_chart_is_a_vega_view(
    site: str, way: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    crawl = crawled[(site, way)]
    charts = {url: info["charts"] for url, (info, _) in crawl.pages.items()}
    # per language: fs840's 7 charts (its summary places one, which the Charts section
    # then leaves out, as the PDF does); a800's 8 and the comparison's 2 besides
    assert sum(len(c) for c in charts.values()) == (2 * 7 if site == "report" else 2 * 17)
    dead = {
        url: [i for i, c in enumerate(found) if not c["live"] or c["img"]]
        for url, found in charts.items()
    }
    assert {url: d for url, d in dead.items() if d} == {}


def _overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@pytest.mark.parametrize("site", SITES)
def test_legend_labels_are_whole_and_apart(
    site: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    crawl = crawled[(site, "file")]
    bad = []
    for url, (info, _) in crawl.pages.items():
        for n, chart in enumerate(info["charts"]):
            labels = chart["labels"]
            bad += [(url, n, a["text"]) for a in labels if a["text"].endswith("…")]
            bad += [
                (url, n, f"{a['text']} / {b['text']}")
                for i, a in enumerate(labels)
                for b in labels[i + 1 :]
                if _overlap(a["box"], b["box"])
            ]
    assert bad == []
    if site == "comparison":
        labels = {
            label["text"]
            for info, _ in crawl.pages.values()
            for chart in info["charts"]
            for label in chart["labels"]
        }
        assert "NetApp AFF A800 – 48 vCPUs per VM" in labels


@pytest.mark.parametrize(("site", "way"), WAYS_OF_SITES)
def test_language_switch_leads_to_the_same_page(
    site: str, way: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    crawl = crawled[(site, way)]
    for url, (info, _) in crawl.pages.items():
        name = url.removeprefix(crawl.root)
        english = name.removeprefix("de/")
        assert info["lang"] == ("de" if name.startswith("de/") else "en"), url
        assert info["switch"] == {"en": crawl.root + english, "de": crawl.root + "de/" + english}


@pytest.mark.parametrize(("site", "way"), WAYS_OF_SITES)
def test_clicks_land_on_pages(site: str, way: str, crawled: dict[tuple[str, str], Crawl]) -> None:
    crawl = crawled[(site, way)]
    switched = crawl.clicks[SWITCH]
    assert switched["page"] and switched["url"] == crawl.root + "index.html"
    assert switched["lang"] == "en"
    navigated = crawl.clicks[NAV]
    assert navigated["page"] and navigated["lang"] == "de"
    assert navigated["url"].startswith(crawl.root + "de/") and navigated["url"].endswith(".html")


@pytest.mark.parametrize(("site", "way"), WAYS_OF_SITES)
def test_nothing_leaves_the_site(
    site: str, way: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    crawl = crawled[(site, way)]
    local = (crawl.root, "data:", "blob:", "chrome:", "about:")
    outside = {
        url: sorted(u for u in urls if not u.startswith(local))
        for url, (_, urls) in crawl.pages.items()
    }
    assert {url: o for url, o in outside.items() if o} == {}
    assert all(
        any(u == crawl.root + "assets/vega-embed.js" for u in urls)
        for _, urls in crawl.pages.values()
    )
    assert crawled[("any", "log")].clicks["outside"]["urls"] == []  # workers and all


@pytest.mark.parametrize("way", WAYS)
def test_search_is_hidden_with_a_note_from_files(
    way: str, crawled: dict[tuple[str, str], Crawl]
) -> None:
    for info, _ in crawled[("comparison", way)].pages.values():
        assert info["searchShown"] == (way == "http")
        assert info["searchNote"] == (way == "file")
