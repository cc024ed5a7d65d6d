"""`make bench`: the performance figures of iopress on this machine, as a table.

Workloads (benchmarks/workloads.py): S = the seed 000 matrix (3 mixes × 6 block sizes ×
18 parallelism levels × 3 intervals × 3 hosts) as IOgen CSV and as fio json+; L = 100 × S
as fio json+; LOG = a per-I/O fio latency log of 50 million lines (all three synthetic);
SWEEP = a real fio sweep made by Debian's fio (tests/data/fio-sweep, `make fio-fixtures`:
5 block sizes × 3 mixes × 5 levels); fs840 = the example report (data/examples/fs840).

Each figure that has a peer or a floor is measured in rounds alternating with it (A B, B A,
…: benchmarks/figures.py) and printed as a ratio of medians: ingest of S against reading
the same files, the cold build of fs840 against its floor (Vega drawing every chart and
typst making every PDF, nothing else), the cold build of SWEEP against fio-plot drawing
the sweep. Timings give median and range; CPU is user + system time of the whole process
tree. A speed reference (a Python loop and zlib, timed at the start and between rounds)
heads the table: on a shared machine every figure scales with it.

    .venv/bin/python benchmarks/run.py [--quick] [--rounds N]
    .venv/bin/python benchmarks/run.py --scale [--quick]

--quick: L = 10 × S, LOG = 5 M lines, fewer rounds. --scale: only the cold build of the
sweep copied under new host names to 75, 750 and 7,500 files (--quick: 75 and 750):
seconds, CPU-seconds and peak RSS per file count.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads as W

from figures import Runs, Sample, Spread, alternate, per_cpu, ratio, verdict

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
IOPRESS = str(Path(PYTHON).with_name("iopress"))
FIO_PLOT = "fio-plot==1.1.21"
EXAMPLE = ROOT / "data" / "examples" / "fs840"

Row = tuple[str, str, str]
REFERENCES: list[tuple[float, float]] = []  # (Python loop, zlib) seconds, each time taken


def reference() -> tuple[float, float]:
    """The CPU-speed reference: a fixed pure-Python workload (5 M additions in a loop) and a
    fixed compiled one (zlib level 6 over 8 MiB of fixed random bytes), seconds each."""
    data = random.Random(0).randbytes(8 << 20)
    start = time.perf_counter()
    total = 0
    for i in range(5_000_000):
        total += i
    loop = time.perf_counter() - start
    start = time.perf_counter()
    zlib.compress(data, 6)
    REFERENCES.append((loop, time.perf_counter() - start))
    return REFERENCES[-1]


def reference_line() -> str:
    loops, zips = ([r[i] for r in REFERENCES] for i in (0, 1))
    return (
        f"speed reference: Python loop {Spread.of(loops).text()}, zlib {Spread.of(zips).text()} "
        "(taken at the start and between rounds; figures scale with it)"
    )


def in_loops(seconds: float) -> str:
    """``seconds`` in units of the Python reference's median: a figure normalised for the
    machine's speed at the time."""
    return f"{seconds / Spread.of([r[0] for r in REFERENCES]).median:.1f} × the Python loop"


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
        f"machine: {cpu}, {os.cpu_count()} cores, {int(memory) / 2**20:.0f} GiB",
        f"system: {platform.system()} {platform.release()}, Python {platform.python_version()}",
        f"iopress: {commit or 'unknown commit'}, load average {_load()}",
    ]


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def _say(what: str) -> None:
    print(f"… {what} (load {_load()})", file=sys.stderr, flush=True)


def _python(code: str, *args: str) -> dict[str, float]:
    run = subprocess.run(
        [PYTHON, "-c", code, *args], capture_output=True, text=True, check=False, cwd=ROOT
    )
    if run.returncode != 0:  # the measurement's own error, not only its exit status
        raise SystemExit(f"benchmark step failed:\n{run.stderr}")
    result: dict[str, float] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


# Runs a command and prints its seconds, the CPU time of its whole process tree and the peak
# RSS of its largest process. It is a subreaper: a process the command leaves behind (a
# pool's worker) comes back to it and is waited for, so its CPU time counts too. It is a
# small process of its own: a process started by this (large) benchmark would count the
# benchmark's RSS as its peak (Linux keeps the high-water mark of a child through exec).
MEASURE = """
import ctypes, json, os, resource, subprocess, sys, tempfile, time
try:
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER (Linux)
except (AttributeError, OSError):
    pass
with tempfile.TemporaryFile() as err:
    start = time.perf_counter()
    code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=err).returncode
    seconds = time.perf_counter() - start
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    if code:
        err.seek(0)
        sys.exit(err.read().decode(errors="replace")[-3000:])
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "cpu": used.ru_utime + used.ru_stime,
                  "rss_mb": used.ru_maxrss / 1024}))
"""


def run_once(command: Sequence[str]) -> Sample:
    """One run of ``command`` (its own process tree)."""
    m = _python(MEASURE, *command)
    return Sample(m["seconds"], m["cpu"], m["rss_mb"])


def _fresh_cache() -> str:
    """An empty cache folder for the next build (the caller removes it)."""
    folder = tempfile.mkdtemp(prefix="iopress-cache-")
    os.environ["IOPRESS_CACHE"] = folder
    return folder


def cold_build(report: Path, out: Path) -> Sample:
    """`iopress build` with no output folder and an empty cache."""
    shutil.rmtree(out, ignore_errors=True)
    cache = _fresh_cache()
    try:
        return run_once([IOPRESS, "build", str(report), "-o", str(out)])
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def compare(steps: dict[str, Callable[[], Sample]], rounds: int, what: str) -> dict[str, Runs]:
    """Each of ``steps`` ``rounds`` times, alternating (figures.alternate); the speed
    reference is taken after each round."""
    samples: dict[str, list[Sample]] = {name: [] for name in steps}
    for i, name in enumerate(alternate(list(steps), rounds)):
        _say(f"{what}: {name}")
        samples[name].append(steps[name]())
        if (i + 1) % len(steps) == 0:
            reference()
    return {name: Runs(tuple(s)) for name, s in samples.items()}


def both(runs: Runs) -> str:
    return f"{runs.wall.text()}; CPU {runs.cpu.text('s')}"


def ratios(label: str, ours: Runs, theirs: Runs) -> Row:
    """``theirs / ours`` for wall and CPU time (above 1: ours is faster)."""
    wall, cpu = ratio(theirs.wall, ours.wall), ratio(theirs.cpu, ours.cpu)
    return (label, f"{wall:.2f} wall, {cpu:.2f} CPU", "ratio of the medians")


# --- ingest ------------------------------------------------------------------------------

INGEST = """
import json, resource, sys, time
from pathlib import Path
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import read_jobs, reader_options
from pipeline.ingest.base import ReadOptions
paths = [Path(p) for p in json.loads(Path(sys.argv[1]).read_text())]
params = json.loads(sys.argv[3])
options = ReadOptions(options=reader_options({"params": params} if params else {}))
def cpu():
    return sum(resource.getrusage(w).ru_utime + resource.getrusage(w).ru_stime
               for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
start, used = time.perf_counter(), cpu()
jobs = [(p, options, sys.argv[2] or None) for p in paths]
results, errors, _ = read_jobs(jobs, False)
assert not errors, errors[:3]
data = combine(results)
seconds, used = time.perf_counter() - start, cpu() - used
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
dataset = (data.points.estimated_size() + data.intervals.estimated_size()) / 2**20
print(json.dumps({"seconds": seconds, "cpu": used, "rss_mb": rss, "worker_mb": worker,
                  "dataset_mb": dataset}))
"""

# the peer of ingest: reading the same files' bytes, nothing else, in the same kind of process
READ = """
import json, resource, sys, time
from pathlib import Path
paths = [Path(p) for p in json.loads(Path(sys.argv[1]).read_text())]
start, used = time.perf_counter(), time.process_time()
size = sum(len(p.read_bytes()) for p in paths)
seconds, used = time.perf_counter() - start, time.process_time() - used
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": used, "rss_mb": rss, "worker_mb": 0}))
"""


def _listing(paths: Sequence[Path | str]) -> Path:
    """A file listing the paths (too many for a command line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump([str(p) for p in paths], handle)
    return Path(handle.name)


def ingest_once(paths: list[Path], fmt: str = "", params: dict[str, str] | None = None) -> Sample:
    m = _python(INGEST, str(_listing(paths)), fmt, json.dumps(params or {}))
    return Sample(m["seconds"], m["cpu"], m["rss_mb"])


def _read_once(paths: list[Path]) -> Sample:
    m = _python(READ, str(_listing(paths)))
    return Sample(m["seconds"], m["cpu"], m["rss_mb"])


def _mb(paths: Sequence[Path]) -> float:
    return sum(p.stat().st_size for p in paths) / 1e6


def _rate(mb: float, runs: Runs) -> str:
    """MB/s of wall time: median (range)."""
    w = runs.wall
    return f"{mb / w.median:.1f} MB/s ({mb / w.high:.1f}–{mb / w.low:.1f})"


def ingest_s(folder: Path, rounds: int) -> tuple[list[Row], dict[str, float]]:
    """S's fio files: ingest alternating with reading them."""
    paths = W.fio_files(folder / "s-fio")
    mb = _mb(paths)
    runs = compare(
        {"ingest": lambda: ingest_once(paths, "fio"), "read": lambda: _read_once(paths)},
        rounds,
        "ingest S",
    )
    ours, peer = per_cpu(mb, runs["ingest"].cpu), per_cpu(mb, runs["read"].cpu)
    rows = [
        ("ingest S (fio json+)", _rate(mb, runs["ingest"]), f"{len(paths)} files, {mb:.1f} MB"),
        ("  per CPU-second", ours.text("MB/s", 1), f"peak RSS {runs['ingest'].rss_mb:.0f} MB"),
        ("  reading the files alone", peer.text("MB/s", 1), "per CPU-second: the floor"),
        (
            "  ingest / reading, CPU",
            f"{ratio(runs['ingest'].cpu, runs['read'].cpu):.1f}",
            "ratio of the medians",
        ),
    ]
    return rows, {"ingest_s_mb_cpu": ours.median}


def ingest_rows(
    folder: Path, copies: int, log_lines: int, rounds: int
) -> tuple[list[Row], dict[str, float]]:
    rows, found = ingest_s(folder, rounds)
    csv = W.iogen_csv(folder / "s.iogen.csv")
    _say("S as IOgen CSV")
    csv_runs = Runs(tuple(ingest_once([csv], "iogen") for _ in range(3)))
    rows.append(("ingest S (IOgen CSV)", _rate(_mb([csv]), csv_runs), "0.2 MB: fixed costs"))
    return rows + _large_rows(folder, copies, log_lines, found), found


def _large_rows(folder: Path, copies: int, log_lines: int, found: dict[str, float]) -> list[Row]:
    """L and LOG, once each (they take long)."""
    _say("L")
    l_fio = W.fio_files(folder / "l-fio", copies=copies)
    m = _python(INGEST, str(_listing(l_fio)), "fio", "{}")
    mb = _mb(l_fio)
    found["l_mb_s"] = mb / m["seconds"]
    shutil.rmtree(folder / "l-fio")
    rows = [
        (
            f"ingest L ({copies} × S, fio json+)",
            f"{mb / m['seconds']:.1f} MB/s",
            f"{mb:.0f} MB in {m['seconds']:.1f} s, {m['cpu']:.1f} CPU-s; peak RSS "
            f"{m['rss_mb']:.0f} MB, workers ≤ {m['worker_mb']:.0f} MB; dataset "
            f"{m['dataset_mb']:.0f} MB",
        )
    ]
    _say("LOG")
    log = W.fio_log(folder / "log", log_lines)
    m = _python(INGEST, str(_listing([log])), "fio-log", "{}")
    mb = _mb([log])
    found["log_rss"] = m["rss_mb"]
    log.unlink()
    rows.append(
        (
            f"ingest LOG ({log_lines / 1e6:.0f} M lines)",
            f"{mb / m['seconds']:.1f} MB/s",
            f"{mb:.0f} MB in {m['seconds']:.1f} s; peak RSS {m['rss_mb']:.0f} MB",
        )
    )
    return rows


# --- the cold build and its floor --------------------------------------------------------

# The floor of a cold build: what Vega and typst must do for it and nothing else, in one
# process: every chart's SVG from its Vega-Lite spec, every chart's PDF from its SVG, every
# document (whitepapers, datasheets) compiled, from a finished build's folder.
FLOOR = """
import datetime as dt, json, sys, time
from pathlib import Path
import typst
import vl_convert as vlc
from pipeline.paths import FONTS
from pipeline.vlrender import svg_to_pdf
out = Path(sys.argv[1])
start = time.process_time()
for spec in sorted((out / "charts").glob("*.vl.json")):
    locale = "de-DE" if spec.name.endswith(".de.vl.json") else "en-US"
    svg = vlc.vegalite_to_svg(json.loads(spec.read_text()), format_locale=locale)
    if spec.with_name(spec.name.replace(".vl.json", ".pdf")).exists():
        svg_to_pdf(svg)
stamp = int(dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp())
for source in sorted(out.glob("*.??.typ")):
    typst.compile(str(source), root=str(out), timestamp=stamp, font_paths=[str(FONTS)],
                  pdf_standards=["a-2b", "ua-1"])
"""


def build_rows(folder: Path, rounds: int) -> tuple[list[Row], dict[str, float]]:
    """fs840: cold (alternating with its floor), cached and warm."""
    out, kept = folder / "build" / "fs840", folder / "floor-input"

    def cold() -> Sample:
        sample = cold_build(EXAMPLE, out)
        if not kept.exists():
            shutil.copytree(out, kept)
        return sample

    def floor() -> Sample:
        return run_once([PYTHON, "-c", FLOOR, str(kept)])

    runs = compare({"cold": cold, "floor": floor}, rounds, "fs840 cold build")
    cached, warm = _cached_and_warm(out, rounds)
    built, least = runs["cold"], runs["floor"]
    rows = [
        ("build fs840 cold", both(built), f"{in_loops(built.wall.median)}; empty cache"),
        ("  peak RSS", f"{built.rss_mb:.0f} MB", "the largest process"),
        ("  its floor: Vega + typst alone", both(least), "every chart and PDF of the build"),
        ratios("  build / floor", least, built),
        ("build fs840, output removed, cache kept", both(cached), "a text change"),
        ("build fs840 warm (nothing changed)", both(warm), f"peak RSS {warm.rss_mb:.0f} MB"),
    ]
    rows += _stages()
    found = {
        "cold_s": built.wall.median,
        "cold_over_floor_cpu": ratio(built.cpu, least.cpu),
        "warm_s": warm.wall.median,
    }
    return rows, found


def _cached_and_warm(out: Path, rounds: int) -> tuple[Runs, Runs]:
    """Builds into a filled cache: with the output removed, and with nothing changed."""
    command = [IOPRESS, "build", str(EXAMPLE), "-o", str(out)]
    cache = _fresh_cache()
    shutil.rmtree(out, ignore_errors=True)  # else it is up to date, and the cache stays empty
    run_once(command)
    cached = []
    for _ in range(rounds):
        shutil.rmtree(out, ignore_errors=True)
        cached.append(run_once(command))
    warm = tuple(run_once(command) for _ in range(rounds))
    shutil.rmtree(cache, ignore_errors=True)
    return Runs(tuple(cached)), Runs(warm)


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


def _stages() -> list[Row]:
    """When each stage of one cold build began (they overlap: Vega draws beside them)."""
    cache = _fresh_cache()
    marks = _python(STAGES, str(EXAMPLE))
    shutil.rmtree(cache, ignore_errors=True)
    text = ", ".join(f"{k} {v:.2f}" for k, v in marks.items())
    return [("  one cold build: stage began at", "", f"{text} s (in-process)")]


# --- the sweep beside fio-plot -----------------------------------------------------------


def fio_plot_install(folder: Path) -> Path:
    """fio-plot in a virtual environment of its own."""
    venv = folder / "fioplot-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", FIO_PLOT], check=True, capture_output=True
    )
    return venv


def fio_plot_script(venv: Path, out: Path) -> str:
    """A shell script running fio-plot as its users run it on bench-fio's folders: IOPS and
    latency against numjobs for every profile of the sweep, one chart each (for a mixed
    profile the read side: fio-plot draws one)."""
    lines = ["set -e", f"cd {shlex.quote(str(out))}"]
    for profile, (rw, levels) in W.sweep_profiles().items():
        mixed = ["-f", "read"] if rw in ("randrw", "rw") else []
        command = [str(venv / "bin" / "fio-plot"), "-i", str(profile), "-T", profile.name]
        command += ["-N", "-r", rw, *mixed, "-d", "1", "-n", *map(str, levels)]
        lines.append(shlex.join([*command, "-o", f"{out / profile.name}.png"]) + " >/dev/null")
    return "\n".join(lines)


def sweep_rows(folder: Path, rounds: int) -> list[Row]:
    """The real sweep: iopress's full cold build alternating with fio-plot's 15 charts."""
    if not W.SWEEP.is_dir():
        return [("fio sweep", "missing", "run make fio-fixtures (Debian's fio makes it)")]
    report = W.sweep_report(folder / "report-sweep")
    venv = fio_plot_install(folder)
    charts = folder / "fio-plot"
    charts.mkdir()
    script = fio_plot_script(venv, charts)
    runs = compare(
        {
            "iopress": lambda: cold_build(report, folder / "build-sweep"),
            "fio-plot": lambda: run_once(["sh", "-c", script]),
        },
        rounds,
        "sweep",
    )
    drawn = len(W.sweep_profiles())
    return [
        (
            "build SWEEP cold (75 fio JSON)",
            both(runs["iopress"]),
            f"{in_loops(runs['iopress'].wall.median)}; both languages, PDFs, site",
        ),
        (f"fio-plot, the sweep's {drawn} charts", both(runs["fio-plot"]), "fio-plot 1.1.21"),
        ratios("  fio-plot / iopress", runs["iopress"], runs["fio-plot"]),
    ]


# --- scale -------------------------------------------------------------------------------


def scale_rows(folder: Path, copies: Sequence[int]) -> tuple[list[Row], dict[str, float]]:
    """Cold builds of the sweep copied ``copies`` times (75 files each), one per count."""
    rows: list[Row] = []
    found: dict[str, float] = {}
    for n in copies:
        report = W.sweep_report(folder / f"scale-{n}", copies=n)
        _say(f"scale: {75 * n} files")
        s = cold_build(report, folder / f"scale-out-{n}")
        reference()
        shutil.rmtree(report)
        shutil.rmtree(folder / f"scale-out-{n}")
        rows.append(
            (
                f"build {75 * n:,} files cold",
                f"{s.seconds:.2f} s; CPU {s.cpu:.2f} s",
                f"peak RSS {s.rss_mb:.0f} MB",
            )
        )
        found.update(
            {
                f"{k}_{75 * n}": v
                for k, v in zip(
                    ("seconds", "cpu", "rss"), (s.seconds, s.cpu, s.rss_mb), strict=True
                )
            }
        )
    return rows + _slope(found, copies), found


def _slope(found: dict[str, float], copies: Sequence[int]) -> list[Row]:
    """CPU per file between the smallest and the largest count."""
    if len(copies) < 2:
        return []
    small, large = 75 * min(copies), 75 * max(copies)
    ms = (found[f"cpu_{large}"] - found[f"cpu_{small}"]) / (large - small) * 1000
    found["ms_per_file"] = ms
    return [("  CPU per file", f"{ms:.2f} ms", f"from {small:,} to {large:,} files")]


# --- the table and the targets -----------------------------------------------------------

TARGETS: dict[str, tuple[str, float, bool]] = {  # label: (figure, goal, higher is better)
    "fs840 cold build ≤ 2 s": ("cold_s", 2.0, False),
    "fs840 cold CPU ≤ 1.3 × its floor": ("cold_over_floor_cpu", 1.3, False),
    "fs840 warm build ≤ 0.5 s": ("warm_s", 0.5, False),
    "L ingest ≥ 300 MB/s": ("l_mb_s", 300.0, True),
    "LOG peak RSS ≤ 2 GB": ("log_rss", 2048.0, False),
    "7,500 files cold build ≤ 15 s": ("seconds_7500", 15.0, False),
    "7,500 files peak RSS ≤ 600 MB": ("rss_7500", 600.0, False),
    "≤ 1 ms CPU per file": ("ms_per_file", 1.0, False),
}


def table(head: list[str], rows: list[Row], found: dict[str, float]) -> None:
    ended = f"load average at the end {_load()}"
    print("\n".join([*head, reference_line(), ended]), end="\n\n")
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'value':>44}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>44}  {note}")
    print()
    for label, (key, goal, higher) in TARGETS.items():
        if key in found:
            print(f"target {label:<34} {verdict(found[key], goal, higher)} ({found[key]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller L and LOG, fewer rounds")
    parser.add_argument("--scale", action="store_true", help="only the builds of many files")
    parser.add_argument("--rounds", type=int, help="rounds of each alternated figure")
    args = parser.parse_args()
    copies, log_lines, rounds = (10, 5_000_000, 3) if args.quick else (100, 50_000_000, 5)
    rounds = args.rounds or rounds
    head = machine()
    reference()
    with tempfile.TemporaryDirectory(prefix="iopress-bench-") as tmp:
        folder = Path(tmp)
        if args.scale:
            rows, found = scale_rows(folder, (1, 10) if args.quick else (1, 10, 100))
        else:
            rows, found = build_rows(folder, rounds)
            ingested, read = ingest_rows(folder, copies, log_lines, rounds)
            rows += ingested + sweep_rows(folder, rounds)
            found.update(read)
    table(head, rows, found)


if __name__ == "__main__":
    main()
