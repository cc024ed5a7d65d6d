"""`make bench`: the performance figures of iopress on this machine, as a table.

Workloads (benchmarks/workloads.py, synthetic): S = the seed 000 matrix (3 mixes × 6 block
sizes × 18 parallelism levels × 3 intervals × 3 hosts) as IOgen CSV and as fio json+;
L = 100 × S as fio json+; LOG = a per-I/O fio latency log of 50 million lines. Figures:
ingest MB/s and peak RSS per workload, the full bilingual build of S cold and warm, the
time per build stage, and fio-plot beside iopress on the same fio JSON. Each timing is the
median of several runs (fewer for the large workloads); every measurement runs in its own
process so that peak RSS belongs to it alone.

    .venv/bin/python benchmarks/run.py [--quick]   (--quick: L = 10 × S, LOG = 5 M lines)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads as W

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
IOPRESS = str(Path(PYTHON).with_name("iopress"))

INGEST = """
import json, resource, sys, time
from pathlib import Path
from pipeline import ingest
from pipeline.build import combine, split_outcomes
from pipeline.ingest.base import ReadOptions
paths = [Path(p) for p in json.loads(Path(sys.argv[1]).read_text())]
options = ReadOptions(params=json.loads(sys.argv[3]) or None)
start = time.perf_counter()
jobs = [(p, options, sys.argv[2] or None) for p in paths]
results, errors, _ = split_outcomes(jobs, ingest.read_many(jobs), False)
assert not errors, errors[:3]
data = combine(results)
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
rows = data.intervals.height
print(json.dumps({"seconds": seconds, "rss_mb": rss, "worker_mb": worker, "rows": rows}))
"""


def _python(code: str, *args: str) -> dict[str, float]:
    run = subprocess.run(
        [PYTHON, "-c", code, *args], capture_output=True, text=True, check=False, cwd=ROOT
    )
    if run.returncode != 0:  # the measurement's own error, not only its exit status
        raise SystemExit(f"benchmark step failed:\n{run.stderr}")
    result: dict[str, float] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def _rss(r: dict[str, float]) -> str:
    """Peak RSS of the reading process, and of the largest worker when files were read in
    a process pool (the pool holds at most as many workers as there are cores)."""
    if r["worker_mb"] < 1:
        return f"peak RSS {r['rss_mb']:.0f} MB"
    return f"peak RSS {r['rss_mb']:.0f} MB + workers ≤ {r['worker_mb']:.0f} MB each"


def ingest(
    paths: list[Path], fmt: str = "", params: dict[str, str] | None = None, runs: int = 3
) -> dict[str, float]:
    """Median seconds, MB/s of raw input and the largest peak RSS over ``runs`` runs."""
    size = sum(p.stat().st_size for p in paths) / 1e6
    listing = _listing(paths)
    measured = [_python(INGEST, str(listing), fmt, json.dumps(params or {})) for _ in range(runs)]
    seconds = statistics.median(m["seconds"] for m in measured)
    return {
        "seconds": seconds,
        "mb": size,
        "mb_s": size / seconds,
        "rss_mb": max(m["rss_mb"] for m in measured),
        "worker_mb": max(m["worker_mb"] for m in measured),
    }


def _listing(paths: Sequence[Path | str]) -> Path:
    """A file listing the paths (too many for a command line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump([str(p) for p in paths], handle)
    return Path(handle.name)


def timed(command: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, cwd=ROOT)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def build_times(report: Path, out: Path, runs: int) -> tuple[float, float, float]:
    """Seconds of `iopress build`: cold (no output, empty cache), cached (no output, but the
    content-hashed cache of charts, documents and bundle filled), warm (nothing changed)."""
    cold: list[float] = []
    cached: list[float] = []
    made: list[str] = []  # made: our own throw-away cache folders
    for _ in range(runs):
        shutil.rmtree(out.parent, ignore_errors=True)
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)
        made.append(tempfile.mkdtemp(prefix="iopress-cache-"))
        os.environ["IOPRESS_CACHE"] = made[-1]
        cold.append(timed([IOPRESS, "build", str(report), "-o", str(out)], 1))
        shutil.rmtree(out.parent, ignore_errors=True)
        cached.append(timed([IOPRESS, "build", str(report), "-o", str(out)], 1))
    warm = timed([IOPRESS, "build", str(report), "-o", str(out)], runs)
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)
    return statistics.median(cold), statistics.median(cached), warm


STAGES = """
import json, sys, tempfile, time
from pathlib import Path
start = time.perf_counter()
from pipeline import build as B
marks = [("import", time.perf_counter() - start)]
out = Path(tempfile.mkdtemp()) / "out"
B.build(Path(sys.argv[1]), out, lambda name: marks.append((name, time.perf_counter() - start)))
marks.append(("done", time.perf_counter() - start))
print(json.dumps(dict(marks)))
"""


def fio_plot_side_by_side(folder: Path) -> dict[str, float]:
    """fio-plot (its own venv) and iopress drawing IOPS and latency against parallelism for
    every profile of S, from the same fio JSON files."""
    venv = folder / "fioplot-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "fio-plot==1.1.21"],
        check=True,
        capture_output=True,
    )
    dirs = W.fio_plot_layout(folder / "fioplot-data")
    start = time.perf_counter()
    for profile, (rw, levels) in dirs.items():
        mixed = ["-f", "read"] if rw in ("randrw", "rw") else []  # fio-plot draws one side
        subprocess.run(
            [
                str(venv / "bin" / "fio-plot"),
                "-i",
                str(profile),
                "-T",
                profile.name,
                "-N",
                "-r",
                rw,
                *mixed,
                "-d",
                "1",
                "-n",
                *map(str, levels),
                "-o",
                str(folder / f"{profile.name}.png"),
            ],
            check=True,
            capture_output=True,
            cwd=folder,
        )
    theirs = time.perf_counter() - start
    files = [str(p) for d in dirs for p in sorted(d.glob("*.json"))]
    ours = _python(CHARTS, str(_listing(list(files))), str(folder / "ours"))["seconds"]
    return {"fio-plot": theirs, "iopress": ours, "charts_fioplot": len(dirs)}


CHARTS = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
import polars as pl
from pipeline import ingest
from pipeline.build import combine
from pipeline.charts import CHARTS
from pipeline.charts.export import save
from pipeline.ingest.base import ReadOptions
from pipeline.language.fmt import Formatter
from pipeline.language.strings import Strings
out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
listing = json.loads(Path(sys.argv[1]).read_text())
points = combine([ingest.read(Path(p), ReadOptions(), "fio") for p in listing]).points
fmt = Formatter(Strings("en"))
for (access, block), group in points.group_by("access", "block_size"):
    save(CHARTS["standard"](group, fmt), out / f"{access}_{block}", fmt, kinds=("svg",))
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def _say(what: str) -> None:
    print(f"… {what}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller L and LOG")
    args = parser.parse_args()
    copies, log_lines = (10, 5_000_000) if args.quick else (100, 50_000_000)
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="iopress-bench-") as tmp:
        folder = Path(tmp)
        csv = W.iogen_csv(folder / "s.iogen.csv")
        r = ingest([csv], "iogen")
        _say("S")
        rows.append(("ingest S (IOgen CSV)", f"{r['mb_s']:.1f} MB/s", _rss(r)))
        s_fio = W.fio_files(folder / "s-fio")
        r = ingest(s_fio, "fio")
        rows.append(("ingest S (fio json+)", f"{r['mb_s']:.1f} MB/s", _rss(r)))
        _say("L")
        l_fio = W.fio_files(folder / "l-fio", copies=copies)
        r = ingest(l_fio, "fio", runs=1)
        rows.append(
            (
                f"ingest L ({copies} × S, fio json+)",
                f"{r['mb_s']:.1f} MB/s",
                f"{_rss(r)}; {r['mb']:.0f} MB in {r['seconds']:.1f} s",
            )
        )
        shutil.rmtree(folder / "l-fio")
        _say("LOG")
        log = W.fio_log(folder / "log", log_lines)
        r = ingest([log], "fio-log", runs=1)
        rows.append(
            (
                f"ingest LOG ({log_lines / 1e6:.0f} M lines)",
                f"{r['mb_s']:.1f} MB/s",
                f"{_rss(r)}; {r['mb']:.0f} MB in {r['seconds']:.1f} s",
            )
        )
        log.unlink()
        _say("builds")
        report = W.report_folder(folder / "report-s", csv, "iogen")
        cold, cached, warm = build_times(report, folder / "build" / "s", runs=3)
        rows.append(("build S cold", f"{cold:.2f} s", "DE+EN PDFs, datasheets, site; no cache"))
        rows.append(("build S, output removed, cache kept", f"{cached:.2f} s", ""))
        rows.append(("build S warm (nothing changed)", f"{warm:.2f} s", ""))
        os.environ["IOPRESS_CACHE"] = str(folder / "cache")  # stage times: cold cache
        stages = json.loads(
            subprocess.run(
                [PYTHON, "-c", STAGES, str(report)],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            ).stdout
        )
        # the stages overlap (charts are drawn on threads): when each one began
        rows += [(f"  {k} at", f"{v:.2f} s", "one cold build") for k, v in stages.items()]
        _say("fio-plot")
        side = fio_plot_side_by_side(folder)
        ratio = side["fio-plot"] / side["iopress"]
        rows.append(
            (
                f"fio-plot, {side['charts_fioplot']:.0f} charts (IOPS+latency per mix)",
                f"{side['fio-plot']:.2f} s",
                "",
            )
        )
        rows.append(
            (
                "iopress, same JSON: ingest + 6 standard charts",
                f"{side['iopress']:.2f} s",
                f"fio-plot / iopress = {ratio:.1f}",
            )
        )
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'value':>14}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>14}  {note}")
    print()
    for label, (name, goal, unit, higher) in {
        "S cold build ≤ 3 s": ("build S cold", 3.0, "s", False),
        "S warm build ≤ 0.5 s": ("build S warm", 0.5, "s", False),
        "L ingest ≥ 300 MB/s": ("ingest L", 300.0, "MB/s", True),
        "LOG peak RSS ≤ 2 GB": ("ingest LOG", 2048.0, "MB", False),
    }.items():
        figure = _figure(rows, name, unit)
        ok = figure >= goal if higher else figure <= goal
        print(f"target {label:<24} {'holds' if ok else 'MISSED'} ({figure:g} {unit})")


def _figure(rows: list[tuple[str, str, str]], name: str, unit: str) -> float:
    """The number of a row's value (or, for RSS, of its note) in the given unit."""
    row = next(r for r in rows if r[0].startswith(name))
    if unit == "MB":
        found = re.search(r"peak RSS (\d+) MB", row[2])
        assert found, row
        return float(found.group(1))
    return float(row[1].split()[0])


if __name__ == "__main__":
    main()
