"""Synthetic benchmark workloads (not measurements; sizes and shapes only).

S: the seed 000 matrix — 3 mixes × 6 block sizes × 18 parallelism levels × 3 intervals ×
   3 hosts — as one IOgen CSV and as fio json+ files (one per point, client/server output
   with the three hosts). L: 100 × S as fio json+ files. LOG: a per-I/O fio latency log.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LEVELS = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 180, 192, 224, 256, 320, 384, 448, 512]
BLOCKS = [
    (1, "random"),
    (4, "random"),
    (8, "random"),
    (64, "random"),
    (256, "sequential"),
    (1024, "sequential"),
]
MIXES = [100, 70, 0]
HOSTS = ["p760", "S824a", "S824b"]
HEADER = (
    "host;test;block_size;access;read_pct;processes;interval;interval_s;ios;mb_s;"
    "service_ms;read_service_ms;write_service_ms;cpu_pct"
)


def _point(kib: int, level: int) -> tuple[float, float]:
    """(IOPS per host, latency µs): a saturating curve that follows Little's law."""
    base = 180.0 + 8.0 * kib**0.8
    lat = base * (1 + (level / 96) ** 1.6)
    return level / (lat / 1e6), lat


def iogen_csv(path: Path) -> Path:
    lines = ["# IOgen export — SYNTHETIC benchmark workload S, not measured", HEADER]
    for kib, access in BLOCKS:
        for mix in MIXES:
            for level in LEVELS:
                iops, lat = _point(kib, level)
                for interval in (1, 2, 3):
                    for h, host in enumerate(HOSTS):
                        f = 1 + 0.01 * ((interval + h) % 3 - 1)
                        ios = round(iops * f * 20)
                        read = f"{lat / 1000:.6f}" if mix else ""
                        write = f"{lat / 1000:.6f}" if mix < 100 else ""
                        lines.append(
                            f"{host};t;{kib}K;{access};{mix};{level};{interval};20;{ios};"
                            f"{ios / 20 * kib / 1024:.6f};{lat * f / 1000:.6f};{read};"
                            f"{write};{min(95.0, level / 6):.1f}"
                        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _job_template() -> dict[str, Any]:
    doc = json.loads((ROOT / "tests" / "data" / "fio" / "jsonplus.json").read_text())
    job: dict[str, Any] = doc["jobs"][0]
    return job


def _direction(template: dict[str, Any], iops: float, lat_us: float, bs: int) -> dict[str, Any]:
    d = copy.deepcopy(template)
    d["iops"] = iops
    d["bw_bytes"] = int(iops * bs)
    d["bw"] = int(iops * bs / 1024)
    d["runtime"] = 60000
    d["total_ios"] = int(iops * 60)
    d["lat_ns"]["mean"] = lat_us * 1000
    d["clat_ns"]["mean"] = lat_us * 1000 * 0.95
    return d


def fio_files(folder: Path, copies: int = 1) -> list[Path]:
    """json+ files (client/server, three hosts) for every point of S, ``copies`` times."""
    folder.mkdir(parents=True, exist_ok=True)
    job = _job_template()
    written = []
    for copy_no in range(copies):
        for kib, access in BLOCKS:
            for mix in MIXES:
                rw = {100: "randread", 0: "randwrite"}.get(mix, "randrw")
                if access == "sequential":
                    rw = {100: "read", 0: "write"}.get(mix, "rw")
                for level in LEVELS:
                    written.append(_fio_file(folder, job, copy_no, kib, rw, mix, level))
    return written


def _fio_file(
    folder: Path, job: dict[str, Any], copy_no: int, kib: int, rw: str, mix: int, level: int
) -> Path:
    iops, lat = _point(kib, level)
    bs = kib * 1024
    records = []
    for host in HOSTS:
        rec = copy.deepcopy(job)
        rec["hostname"] = f"{host}-{copy_no}"  # each copy its own hosts: not a re-read
        rec["job options"] = {
            "rw": rw,
            "rwmixread": str(mix),
            "bs": f"{kib}k",
            "numjobs": str(level),
            "iodepth": "1",
        }
        rec["read"] = _direction(job["read"], iops * mix / 100, lat, bs)
        rec["write"] = _direction(job["read"], iops * (100 - mix) / 100, lat, bs)
        records.append(rec)
    doc = {"fio version": "fio-3.33", "client_stats": records}
    path = folder / f"c{copy_no}_{kib}k_{rw}_{mix}_{level}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def fio_log(folder: Path, lines: int, chunk: int = 5_000_000) -> Path:
    """A per-I/O latency log (``bench_lat.1.log``, fio's "time, value, ddir, bs, offset"
    lines) of ``lines`` I/Os at 100'000 IOPS, and the job file that describes it."""
    import polars as pl

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bench.fio").write_text(
        "[bench]\nrw=randread\nbs=4k\niodepth=8\nnumjobs=1\nwrite_lat_log=bench\n", encoding="utf-8"
    )
    path = folder / "bench_lat.1.log"
    with path.open("wb") as fh:
        for start in range(0, lines, chunk):
            n = pl.int_range(start, min(start + chunk, lines), eager=True).alias("i")
            frame = n.to_frame().select(
                pl.concat_str(
                    [
                        pl.col("i") // 100,
                        pl.lit(", "),
                        150_000 + (pl.col("i") * 7919) % 50_000,
                        pl.lit(", 0, 4096, 0"),
                    ]
                ).alias("line")
            )
            frame.write_csv(fh, include_header=False, quote_style="never")
    return path


def report_folder(target: Path, raw_file: Path, fmt: str) -> Path:
    """The fs840 example with its raw data replaced by a workload."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(
        ROOT / "data" / "examples" / "fs840",
        target,
        ignore=shutil.ignore_patterns("raw", "published", "generate.py"),
    )
    (target / "raw").mkdir()
    shutil.copy(raw_file, target / "raw" / raw_file.name)
    toml = target / "report.toml"
    text = toml.read_text(encoding="utf-8")
    text = text.replace(
        'path = "raw/fs840.iogen.csv"\nformat = "iogen"',
        f'path = "raw/{raw_file.name}"\nformat = "{fmt}"',
    )
    toml.write_text(text, encoding="utf-8")
    return target


SWEEP = ROOT / "tests" / "data" / "fio-sweep"  # made by `make fio-fixtures` (Debian's fio)
SWEEP_TOML = """id = "sweep"
title = { de = "fio-Sweep", en = "fio sweep" }
author = "iopress bench"
version = "1"
date = 2026-11-22
classification = { de = "intern", en = "internal" }
sponsor = { de = "Eigenmessung", en = "Own measurement" }

[system]
name = "Null engine"
vendor = "fio"

[[sources]]
path = "raw/**/*.json"
format = "fio"
"""
SWEEP_TEXT = '{{ maximum("4K", "random", 100).iops }} IOPS.\n'


def sweep_report(
    target: Path, copies: int = 0, files: int | None = None, text: str = SWEEP_TEXT
) -> Path:
    """A report folder holding the real fio sweep (tests/data/fio-sweep) as its raw data;
    with ``copies``, that many copies of it, each under host names of its own
    (``sweep_copies``); with ``files``, the first that many files of those copies (a few
    may lack the profile the default ``text`` quotes)."""
    if target.exists():
        shutil.rmtree(target)
    if files is not None:
        per = len(list(SWEEP.glob("*/*.json")))
        sweep_copies(target / "raw", -(-files // per), files=files)
    elif copies:
        sweep_copies(target / "raw", copies)
    else:
        ignore = shutil.ignore_patterns("*.sh", "*.md", "FIO*")
        shutil.copytree(SWEEP, target / "raw", ignore=ignore)
    (target / "report.toml").write_text(SWEEP_TOML, encoding="utf-8")
    for lang in ("de", "en"):
        for section in ("summary", "setup", "method", "conclusion"):
            made = target / "text" / lang / f"{section}.md"
            made.parent.mkdir(parents=True, exist_ok=True)
            made.write_text(text, encoding="utf-8")
    return target


def sweep_copies(
    folder: Path, copies: int, source: Path = SWEEP, files: int | None = None
) -> list[Path]:
    """``copies`` copies of the sweep's JSON files (75 each) in bench-fio's layout under
    ``folder/hNNNN/``, every job record of copy n naming host ``sweep-n``: a lab's archive of
    many runs of the same matrix (the same profiles on other hosts are other points, not
    repeats); only the first ``files`` of them where given."""
    docs = {p.relative_to(source): json.loads(p.read_bytes()) for p in source.glob("*/*.json")}
    written: list[Path] = []
    for n in range(copies):
        for relative, doc in sorted(docs.items()):
            if files is not None and len(written) == files:
                return written
            for job in doc["jobs"]:
                job["hostname"] = f"sweep-{n}"
            path = folder / f"h{n:04d}" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc), encoding="utf-8")
            written.append(path)
    return written


def sweep_profiles() -> dict[Path, tuple[str, list[int]]]:
    """The sweep's folders as fio-plot reads them: each with its rw and numjobs levels."""
    found: dict[Path, tuple[str, list[int]]] = {}
    for folder in sorted(p for p in SWEEP.iterdir() if p.is_dir()):
        names = [p.stem.split("-") for p in folder.glob("*.json")]
        found[folder] = (names[0][0], sorted(int(n[2]) for n in names))
    return found
