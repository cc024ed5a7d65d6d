"""The report folder's first draft: report.toml with the campaign's source, host and setup,
and text stubs in both languages that already use the placeholders."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from dataclasses import dataclass

from pipeline.campaign.model import Campaign
from pipeline.config import LANGS
from pipeline.language.strings import Strings


def _s(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _texts(text: dict[str, str]) -> str:
    """One text in every language, as a TOML inline table."""
    return "{ " + ", ".join(f"{lang} = {_s(text[lang])}" for lang in LANGS) + " }"


def _words(key: str) -> str:
    """A locale string in every language, as a TOML inline table."""
    return _texts({lang: Strings(lang)(key) for lang in LANGS})


def _list(values: list[int]) -> str:
    return ", ".join(f"{v:,}" for v in values)


def setup_text(campaign: Campaign, engine: str, t: Strings) -> str:
    """The setup in one line: fio's engine, direct or buffered, the queue depths ×
    parallelism levels, the intervals and warm-up, the targets."""
    iv = campaign.intervals
    grids = "; ".join(
        t("campaign.grid", depths=_list(g.queue_depth), levels=_list(g.levels))
        for g in campaign.grids
    )
    intervals = t.count("campaign.intervals", iv.count, n=iv.count, seconds=f"{iv.seconds:,}")
    if iv.warm_up:
        intervals = t("campaign.warm_up", intervals=intervals, seconds=f"{iv.warm_up:,}")
    paths = ", ".join(target.path for target in campaign.targets)
    return t(
        "campaign.setup",
        engine=engine,
        io=t("campaign.direct" if campaign.direct else "campaign.buffered"),
        grids=grids,
        intervals=intervals,
        targets=t.count("campaign.targets", len(campaign.targets), paths=paths),
    )


def report_toml(campaign: Campaign, engine: str, today: dt.date) -> str:
    title = campaign.titles()
    setup = {lang: setup_text(campaign, engine, Strings(lang)) for lang in LANGS}
    lines = [
        "# Written by iopress plan from campaign.toml: edit freely (plan never overwrites it).",
        f"id = {_s(campaign.id)}",
        f"author = {_s(campaign.author or 'iopress')}",
        *([f"organisation = {_s(campaign.organisation)}"] if campaign.organisation else []),
        'version = "0.1"',
        f"date = {today.isoformat()}",
        f"title = {_texts(title)}",
        f"classification = {_words('campaign.classification')}",
        f"sponsor = {_words('campaign.sponsor')}",
        "# what ran the load (iopress run; iopress machine on each fio server's host)",
        'machines = ["raw/env/machine*.json"]',
        f"method = {_method(campaign)}  # listed with their SHA-256 in the appendix",
        "",
        "[system]",
        f"name = {_s(campaign.system)}",
        f"vendor = {_s(campaign.vendor)}",
        "",
        *_hosts(campaign),
        "[[setups]]",
        'name = "default"',
        f"description = {_texts(setup)}",
        "",
        "[[sources]]",
        'path = "raw/*.json"  # one fio JSON per point, written by iopress run',
        "",
    ]
    return "\n".join(lines)


def _method(campaign: Campaign) -> str:
    files = ["campaign.toml", "jobs/"]
    files += ["raw/env/precondition.json"] if campaign.precondition else []
    return "[" + ", ".join(_s(f) for f in files) + "]"


def _hosts(campaign: Campaign) -> list[str]:
    """One [[hosts]] per host; a fio server's data names it by its address (``raw``)."""
    lines = []
    for host in campaign.hosts:
        lines += ["[[hosts]]", f"name = {_s(host.name)}"]
        lines.append(f"description = {_words('campaign.host')}")
        if host.address != "local":
            lines.append(f"raw = [{_s(host.address)}]")
        lines.append("")
    return lines


@dataclass(frozen=True)
class Headline:
    """The profile the stubs quote and the queue depths they name."""

    block: str
    access: str
    read_pct: float
    deepest: int | None  # of the maximum and the optimum; None: the campaign has one depth
    shallowest: int | None  # of the minimum latency

    @classmethod
    def of(cls, campaign: Campaign) -> Headline:
        """The first random read profile, else the first measured; the maximum at the
        depth measured at the most levels (the deepest of equals, seed 002: QD 4),
        the minimum latency at the shallowest."""
        reads = [p for p in campaign.profiles if p.access == "random" and 100.0 in p.read_pct]
        first = reads[0] if reads else campaign.profiles[0]
        read = 100.0 if reads else first.read_pct[0]
        if len(campaign.depths) == 1:
            return cls(first.block_sizes[0], first.access, read, None, None)
        levels = Counter(qd for qd, _ in campaign.pairs())
        deepest = max(campaign.depths, key=lambda qd: (levels[qd], qd))
        return cls(first.block_sizes[0], first.access, read, deepest, campaign.depths[0])

    def call(self, name: str, depth: int | None) -> str:
        args = f'"{self.block}", "{self.access}", {self.read_pct:g}'
        return f"{name}({args}{'' if depth is None else f', queue_depth={depth}'})"


def _value(text: str, depth: int | None, t: Strings) -> str:
    return text if depth is None else t("campaign.at_depth", value=text, qd=depth)


def _stubs(campaign: Campaign, t: Strings) -> dict[str, str]:
    """The text stubs of one language: their sentences name the profile and carry units."""
    h = Headline.of(campaign)
    rate, unit = ("iops", "unit.iops") if h.access == "random" else ("bytes_per_s", "unit.mb_s")
    best = h.call("maximum", h.deepest)
    maximum = _value(f"{{{{ {best}.{rate} }}}} {t(unit)}", h.deepest, t)
    fastest = f"{{{{ {h.call('min_latency', h.shallowest)}.lat_mean_us }}}}"
    optimum = h.call("optimum", h.deepest)
    access, mix = t.access(h.access, True), t.mix(h.read_pct, True)
    profile = t("campaign.profile", block=h.block, access=access, mix=mix)
    return {
        "summary": t(
            "campaign.summary",
            system="{{ system }}",
            maximum=maximum,
            profile=profile,
            latency=_value(fastest, h.shallowest, t),
        ),
        "setup": t("campaign.setup_text"),
        "method": t("campaign.method_text"),
        "results": '{{ table("min_latency") }}',
        "conclusion": t(
            "campaign.conclusion",
            optimum=_value(f"{{{{ {optimum}.{rate} }}}} {t(unit)}", h.deepest, t),
            latency=f"{{{{ {optimum}.lat_mean_ms }}}}",
            profile=profile,
        ),
    }


def sections(campaign: Campaign) -> dict[str, dict[str, str]]:
    """Every stub in both languages: language -> section -> Markdown."""
    return {
        lang: {name: text + "\n" for name, text in _stubs(campaign, Strings(lang)).items()}
        for lang in LANGS
    }
