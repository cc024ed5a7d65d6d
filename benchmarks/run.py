"""`make bench`: the performance figures of iopress on this machine, as a table.

Workloads (benchmarks/workloads.py): S = the seed 000 matrix (3 mixes × 6 block sizes ×
18 parallelism levels × 3 intervals × 3 hosts) as IOgen CSV and as fio json+; L = 100 × S
as fio json+; LOG = a per-I/O fio latency log of 50 million lines (all three synthetic);
SWEEP = a real fio sweep made by Debian's fio (tests/data/fio-sweep, `make fio-fixtures`:
5 block sizes × 3 mixes × 5 levels). Figures: ingest MB/s and peak RSS per workload, the
full bilingual build of S cold, cached and warm with its peak RSS, the stage marks of a
cold build, and the full build of SWEEP beside fio-plot drawing the sweep's 15 charts.
Timings give the median and the spread (min–max) of several runs (fewer for the large
workloads), as pyperf does; the machine heads the table. Every measurement runs in its
own process so that peak RSS belongs to it alone.

    .venv/bin/python benchmarks/run.py [--quick]   (--quick: L = 10 × S, LOG = 5 M lines,
                                                    fewer runs)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads as W

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
IOPRESS = str(Path(PYTHON).with_name("iopress"))
FIO_PLOT = "fio-plot==1.1.21"

INGEST = """
import json, resource, sys, time
from pathlib import Path
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import read_jobs, reader_options
from pipeline.ingest.base import ReadOptions
paths = [Path(p) for p in json.loads(Path(sys.argv[1]).read_text())]
params = json.loads(sys.argv[3])
options = ReadOptions(options=reader_options({"params": params} if params else {}))
start = time.perf_counter()
jobs = [(p, options, sys.argv[2] or None) for p in paths]
results, errors, _ = read_jobs(jobs, False)
assert not errors, errors[:3]
data = combine(results)
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
dataset = (data.points.estimated_size() + data.intervals.estimated_size()) / 2**20
rows = data.intervals.height
print(json.dumps({"seconds": seconds, "rss_mb": rss, "worker_mb": worker, "rows": rows,
                  "dataset_mb": dataset}))
"""


@dataclass(frozen=True)
class Runs:
    """Samples of one timing (seconds) and the largest peak RSS among them (MB)."""

    seconds: list[float]
    rss_mb: float = 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    def spread(self) -> str:
        """ "median s (min–max)", as pyperf reports a benchmark."""
        low, high = min(self.seconds), max(self.seconds)
        return f"{self.median:.2f} s ({low:.2f}–{high:.2f}, {len(self.seconds)} runs)"


def machine() -> list[str]:
    """What the figures were measured on (pyperf's metadata, in short)."""
    cpu = next(
        (ln.split(":", 1)[1].strip() for ln in _lines("/proc/cpuinfo") if "model name" in ln),
        platform.processor() or "unknown CPU",
    )
    memory = next((ln.split()[1] for ln in _lines("/proc/meminfo") if "MemTotal" in ln), "0")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    return [
        f"machine: {cpu}, {os.cpu_count()} cores, {int(memory) / 2**20:.0f} GiB; "
        f"speed reference {_loop():.2f} s (a Python loop of 10 M additions; the figures "
        "below scale with it on a shared machine)",
        f"system: {platform.system()} {platform.release()}, Python {platform.python_version()}",
        f"iopress: {commit or 'unknown commit'}, load average {os.getloadavg()[0]:.2f}",
    ]


def _loop() -> float:
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - start


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


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
    """Median seconds, MB/s of raw input, the largest peak RSS over ``runs`` runs and the
    size of the dataset in memory."""
    size = sum(p.stat().st_size for p in paths) / 1e6
    listing = _listing(paths)
    measured = [_python(INGEST, str(listing), fmt, json.dumps(params or {})) for _ in range(runs)]
    seconds = [m["seconds"] for m in measured]
    return {
        "seconds": statistics.median(seconds),
        "min_mb_s": size / max(seconds),
        "max_mb_s": size / min(seconds),
        "mb": size,
        "mb_s": size / statistics.median(seconds),
        "rss_mb": max(m["rss_mb"] for m in measured),
        "worker_mb": max(m["worker_mb"] for m in measured),
        "dataset_mb": measured[0]["dataset_mb"],
        "files": len(paths),
    }


def _mb_s(r: dict[str, float]) -> str:
    return f"{r['mb_s']:.1f} MB/s ({r['min_mb_s']:.1f}–{r['max_mb_s']:.1f})"


def _listing(paths: Sequence[Path | str]) -> Path:
    """A file listing the paths (too many for a command line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump([str(p) for p in paths], handle)
    return Path(handle.name)


# Runs a command and prints its seconds and peak RSS. A process started by this (large)
# benchmark would count the benchmark's own RSS as its peak: Linux keeps the high-water
# mark of the memory a child had before exec. This small process starts the command.
MEASURE = """
import json, os, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
if done.returncode:
    sys.exit(done.stderr.decode(errors="replace")[-3000:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "rss_mb": peak}))
"""


def run_once(command: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one run of ``command`` (its own process)."""
    measured = _python(MEASURE, *command)
    return measured["seconds"], measured["rss_mb"]


def timed(command: list[str], runs: int) -> Runs:
    samples = [run_once(command) for _ in range(runs)]
    return Runs([s for s, _ in samples], max(m for _, m in samples))


def _fresh_cache() -> str:
    """An empty cache folder for the next build (the caller removes it)."""
    folder = tempfile.mkdtemp(prefix="iopress-cache-")
    os.environ["IOPRESS_CACHE"] = folder
    return folder


def build_times(report: Path, out: Path, runs: int) -> tuple[Runs, Runs, Runs]:
    """`iopress build`: cold (no output, empty cache), cached (no output, but the
    content-hashed cache of charts, documents and bundle filled), warm (nothing changed)."""
    command = [IOPRESS, "build", str(report), "-o", str(out)]
    cold, cached, caches = [], [], []
    for _ in range(runs):
        shutil.rmtree(out.parent, ignore_errors=True)
        caches.append(_fresh_cache())
        cold.append(run_once(command))
        shutil.rmtree(out.parent, ignore_errors=True)
        cached.append(run_once(command))
    warm = timed(command, runs)  # into the last cache
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)
    return (
        Runs([s for s, _ in cold], max(m for _, m in cold)),
        Runs([s for s, _ in cached], max(m for _, m in cached)),
        warm,
    )


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


def fio_plot(folder: Path, runs: int) -> tuple[Runs, int]:
    """fio-plot (its own venv) drawing IOPS and latency against numjobs for every profile
    of the sweep, one chart each, as its users run it on bench-fio's folders."""
    venv = folder / "fioplot-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", FIO_PLOT], check=True, capture_output=True
    )
    charts = folder / "fio-plot"
    charts.mkdir()
    profiles = W.sweep_profiles()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for profile, (rw, levels) in profiles.items():
            _fio_plot_chart(venv, profile, rw, levels, charts)
        samples.append(time.perf_counter() - start)
    return Runs(samples), len(profiles)


def _fio_plot_chart(venv: Path, profile: Path, rw: str, levels: list[int], out: Path) -> None:
    mixed = ["-f", "read"] if rw in ("randrw", "rw") else []  # fio-plot draws one side
    subprocess.run(
        [
            str(venv / "bin" / "fio-plot"),
            *("-i", str(profile), "-T", profile.name, "-N", "-r", rw, *mixed),
            *("-d", "1", "-n", *map(str, levels), "-o", str(out / f"{profile.name}.png")),
        ],
        check=True,
        capture_output=True,
        cwd=out,
    )


def sweep_rows(folder: Path, runs: int) -> list[tuple[str, str, str]]:
    """The real sweep: iopress's full cold build beside fio-plot's 15 charts."""
    if not W.SWEEP.is_dir():
        return [("fio sweep", "missing", "run make fio-fixtures (Debian's fio makes it)")]
    report = W.sweep_report(folder / "report-sweep")
    ours = []
    for _ in range(runs):
        shutil.rmtree(folder / "build-sweep", ignore_errors=True)
        cache = _fresh_cache()
        ours.append(run_once([IOPRESS, "build", str(report), "-o", str(folder / "build-sweep")]))
        shutil.rmtree(cache, ignore_errors=True)
    built = Runs([s for s, _ in ours], max(m for _, m in ours))
    charts = len(list((folder / "build-sweep" / "charts").glob("*.en.svg")))
    theirs, drawn = fio_plot(folder, runs)
    return [
        (
            "build SWEEP cold (75 fio JSON)",
            built.spread(),
            f"peak RSS {built.rss_mb:.0f} MB; {charts} charts per language, PDFs, site",
        ),
        (f"fio-plot, the sweep's {drawn} charts", theirs.spread(), "IOPS+latency per profile"),
        ("  fio-plot / iopress", f"{theirs.median / built.median:.1f}", "medians"),
    ]


def _say(what: str) -> None:
    print(f"… {what}", file=sys.stderr, flush=True)


def ingest_rows(folder: Path, copies: int, log_lines: int) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    csv = W.iogen_csv(folder / "s.iogen.csv")
    r = ingest([csv], "iogen")
    _say("S")
    rows.append(("ingest S (IOgen CSV)", _mb_s(r), _rss(r)))
    s_fio = W.fio_files(folder / "s-fio")
    s = ingest(s_fio, "fio")
    rows.append(("ingest S (fio json+)", _mb_s(s), _rss(s)))
    _say("L")
    l_fio = W.fio_files(folder / "l-fio", copies=copies)
    r = ingest(l_fio, "fio", runs=1)
    note = f"{_rss(r)}; {r['mb']:.0f} MB in {r['seconds']:.1f} s"
    rows.append((f"ingest L ({copies} × S, fio json+)", f"{r['mb_s']:.1f} MB/s", note))
    rows.append(_growth(s, r))
    shutil.rmtree(folder / "l-fio")
    _say("LOG")
    log = W.fio_log(folder / "log", log_lines)
    r = ingest([log], "fio-log", runs=1)
    note = f"{_rss(r)}; {r['mb']:.0f} MB in {r['seconds']:.1f} s"
    rows.append((f"ingest LOG ({log_lines / 1e6:.0f} M lines)", f"{r['mb_s']:.1f} MB/s", note))
    log.unlink()
    return rows


def _growth(small: dict[str, float], large: dict[str, float]) -> tuple[str, str, str]:
    """Peak RSS beyond the dataset held in memory, for S and for L: equal when memory
    grows with the data only, not with the number of files."""
    beyond = [r["rss_mb"] - r["dataset_mb"] for r in (small, large)]
    return (
        "  RSS beyond the dataset, S → L",
        f"{beyond[0]:.0f} → {beyond[1]:.0f} MB",
        f"{small['files']:.0f} → {large['files']:.0f} files; dataset "
        f"{small['dataset_mb']:.0f} → {large['dataset_mb']:.0f} MB",
    )


def build_rows(folder: Path, runs: int) -> list[tuple[str, str, str]]:
    _say("builds")
    report = W.report_folder(folder / "report-s", folder / "s.iogen.csv", "iogen")
    cold, cached, warm = build_times(report, folder / "build" / "s", runs=runs)
    rows = [
        ("build S cold", cold.spread(), f"peak RSS {cold.rss_mb:.0f} MB; DE+EN PDFs, site"),
        ("build S, output removed, cache kept", cached.spread(), ""),
        ("build S warm (nothing changed)", warm.spread(), f"peak RSS {warm.rss_mb:.0f} MB"),
    ]
    os.environ["IOPRESS_CACHE"] = str(folder / "cache")  # stage times: cold cache
    stages = json.loads(
        subprocess.run(
            [PYTHON, "-c", STAGES, str(report)], capture_output=True, text=True, check=True
        ).stdout
    )
    # the stages overlap (charts are drawn on threads): when each one began
    rows += [(f"  {k} at", f"{v:.2f} s", "one cold build") for k, v in stages.items()]
    return rows


TARGETS = {
    "S cold build ≤ 3 s": ("build S cold", 3.0, "s", False),
    "S warm build ≤ 0.5 s": ("build S warm", 0.5, "s", False),
    "L ingest ≥ 300 MB/s": ("ingest L", 300.0, "MB/s", True),
    "LOG peak RSS ≤ 2 GB": ("ingest LOG", 2048.0, "MB", False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller L and LOG, fewer runs")
    args = parser.parse_args()
    copies, log_lines, runs = (10, 5_000_000, 3) if args.quick else (100, 50_000_000, 5)
    head = machine()
    with tempfile.TemporaryDirectory(prefix="iopress-bench-") as tmp:
        folder = Path(tmp)
        rows = ingest_rows(folder, copies, log_lines) + build_rows(folder, runs)
        _say("fio sweep and fio-plot")
        rows += sweep_rows(folder, 1 if args.quick else 3)
    print("\n".join(head), end="\n\n")
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'value':>34}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>34}  {note}")
    print()
    for label, (name, goal, unit, higher) in TARGETS.items():
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
