"""The report folder's first draft: report.toml with the campaign's source, host and setup,
and text stubs in both languages that already use the placeholders."""

from __future__ import annotations

import datetime as dt
import json

from pipeline.campaign.model import Campaign, Profile
from pipeline.config import LANGS


def _s(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _both(de: str, en: str) -> str:
    return f"{{ de = {_s(de)}, en = {_s(en)} }}"


def report_toml(campaign: Campaign, engine: str, today: dt.date) -> str:
    title = campaign.titles()
    targets = ", ".join(t.path for t in campaign.targets)
    setup_de = f"fio, {engine}, Queue Depth {campaign.queue_depth}, Ziel {targets}"
    setup_en = f"fio, {engine}, queue depth {campaign.queue_depth}, target {targets}"
    lines = [
        "# Written by iopress plan from campaign.toml: edit freely (plan never overwrites it).",
        f"id = {_s(campaign.id)}",
        f"author = {_s(campaign.author or 'iopress')}",
        *([f"organisation = {_s(campaign.organisation)}"] if campaign.organisation else []),
        'version = "0.1"',
        f"date = {today.isoformat()}",
        f"title = {_both(title['de'], title['en'])}",
        f"classification = {_both('intern', 'internal')}",
        f"sponsor = {_both('Eigene Messung.', 'Own measurement.')}",
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
        f"description = {_both(setup_de, setup_en)}",
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
        lines.append(f"description = {_both('fio-Lastgenerator', 'fio load generator')}")
        if host.address != "local":
            lines.append(f"raw = [{_s(host.address)}]")
        lines.append("")
    return lines


def _headline(campaign: Campaign) -> tuple[str, str, float]:
    """The profile the stubs quote: the first random read one, else the first measured."""

    def first(p: Profile) -> tuple[str, str, float]:
        return p.block_sizes[0], p.access, p.read_pct[0]

    reads = [p for p in campaign.profiles if p.access == "random" and 100.0 in p.read_pct]
    if reads:
        return reads[0].block_sizes[0], "random", 100.0
    return first(campaign.profiles[0])


def sections(campaign: Campaign) -> dict[str, dict[str, str]]:
    block, access, read = _headline(campaign)
    args = f'"{block}", "{access}", {read:g}'
    rate = "iops" if access == "random" else "bytes_per_s"
    de = {
        "summary": (
            f"Das System {{{{ system }}}} erreichte bei {block} {access} "
            f"maximal {{{{ maximum({args}).{rate} }}}} "
            f"mit einer minimalen Latenz von {{{{ min_latency({args}).lat_mean_us }}}}.\n"
        ),
        "setup": "Die Messung lief mit fio auf den unten genannten Hosts.\n",
        "method": (
            "Jeder Messpunkt wurde mit fio gemessen; die Jobdateien liegen im Ordner jobs/, "
            "die Ergebnisse im Ordner raw/.\n"
        ),
        "results": '{{ table("min_latency") }}\n',
        "conclusion": (
            f"Der Optimalwert liegt bei {{{{ optimum({args}).{rate} }}}} "
            f"mit einer Latenz von {{{{ optimum({args}).lat_mean_ms }}}}.\n"
        ),
    }
    en = {
        "summary": (
            f"The {{{{ system }}}} reached at most {{{{ maximum({args}).{rate} }}}} "
            f"at {block} {access}, with a minimum latency of "
            f"{{{{ min_latency({args}).lat_mean_us }}}}.\n"
        ),
        "setup": "The load was generated with fio on the hosts listed below.\n",
        "method": (
            "Every point was measured with fio; the job files are in the folder jobs/, "
            "the results in the folder raw/.\n"
        ),
        "results": '{{ table("min_latency") }}\n',
        "conclusion": (
            f"The optimum is {{{{ optimum({args}).{rate} }}}} "
            f"at a latency of {{{{ optimum({args}).lat_mean_ms }}}}.\n"
        ),
    }
    return dict(zip(LANGS, (de, en) if LANGS[0] == "de" else (en, de), strict=True))
