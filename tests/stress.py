"""A stress report for the layout check: five setups with 40-character names, a profile
measured at 30 parallelism levels, one measured at a single level, and 300 raw files
(one row ``raw/`` of the provenance table; manifest.json and inputs.csv list each). The
figures are made up by a formula, not measured."""

from __future__ import annotations

import math
from pathlib import Path

from pipeline.config import LANGS

SETUPS = 5
LEVELS = [1 + i + round(i * i / 2) for i in range(30)]  # 1 … 450, uneven steps
LONG = "Speicherbereitstellungsinfrastrukturdienst"  # 42 characters, no hyphen
HEADER = (
    "host;test;block_size;access;read_pct;processes;interval;interval_s;ios;mb_s;"
    "service_ms;read_service_ms;write_service_ms;cpu_pct\n"
)


def _row(setup: int, read: int, level: int, interval: int, block: int, access: str) -> str:
    iops = 90_000 * (setup + 1) * (1 - math.exp(-level / 40)) * (1 + 0.01 * interval)
    ms = level / iops * 1000 * 20  # Little's law over 20 s
    lat = f"{ms:.6f}"
    read_ms, write_ms = (lat, "") if read == 100 else ("", lat)
    ios = round(iops * 20)
    mb = ios * block / 2**20 / 20
    test = f"{block // 1024}K_{access[:3]}_{read}R"
    return (
        f"h{setup}-{LONG};{test};{block // 1024}K;{access};{read};{level};{interval};20;{ios};"
        f"{mb:.6f};{lat};{read_ms};{write_ms};5.0\n"
    )


def _file(setup: int, read: int, level: int) -> str:
    rows = [_row(setup, read, level, i, 4096, "random") for i in (1, 2, 3)]
    if read == 100 and level == 1:  # the one-level profile
        rows += [_row(setup, 100, 8, i, 65536, "sequential") for i in (1, 2, 3)]
    return HEADER + "".join(rows)


def _toml(setups: list[str]) -> str:
    parts = [
        'id = "stress"\nauthor = "iopress tests"\norganisation = "iopress"\nversion = "1"\n'
        'date = 2026-01-01\n[title]\nde = "Belastungsbericht"\nen = "Stress report"\n'
        '[classification]\nde = "intern"\nen = "internal"\n[sponsor]\nde = "Niemand."\n'
        'en = "Nobody."\n[system]\nname = "Teststorage"\nvendor = "Test"\n'
        f'description = [{{ de = "{LONG}", en = "{LONG}" }}]\n'
    ]
    for i, name in enumerate(setups):
        parts.append(
            f'[[hosts]]\nname = "h{i}-{LONG}"\ndescription = "{LONG} {i}"\n'
            f'[[setups]]\nname = "{name}"\ndescription = "{LONG} Nummer {i}"\n'
            f'[[sources]]\npath = "raw/{name}/"\nformat = "iogen"\nsetup = "{name}"\n'
        )
    return "".join(parts)


def make(folder: Path) -> Path:
    """The stress report in ``folder`` (made if missing)."""
    setups = [f"s{i}-{LONG[: 40 - 3]}" for i in range(SETUPS)]
    for i, name in enumerate(setups):
        raw = folder / "raw" / name
        raw.mkdir(parents=True)
        for read in (100, 0):
            for level in LEVELS:
                text = _file(i, read, level)
                (raw / f"r{read:03d}-p{level:03d}.iogen.csv").write_text(text, encoding="utf-8")
    (folder / "report.toml").write_text(_toml(setups), encoding="utf-8")
    for lang in LANGS:
        texts = folder / "text" / lang
        texts.mkdir(parents=True)
        for section in ("summary", "setup", "method", "conclusion"):
            (texts / f"{section}.md").write_text(f"{LONG} {LONG}{LONG}\n", encoding="utf-8")
    return folder
