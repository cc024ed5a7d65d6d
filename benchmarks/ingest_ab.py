"""fio ingest of two versions of iopress, alternated (A, B, A, B ...) on a shared machine:
CPU-seconds of reading the files (``read_jobs``, one process, no pool) and of combining
them (``combine``), as MB/s per CPU-second; median and range over the rounds.

    .venv/bin/python benchmarks/ingest_ab.py OLD_CHECKOUT NEW_CHECKOUT FOLDER [--rounds 5]

FOLDER: fio JSON files (e.g. benchmark workload S: ``workloads.fio_files``, L: the same
with ``copies=10``, or tests/data/fio-sweep). Each round is a fresh process importing
``pipeline`` from its checkout; it reads the files once to warm up, then three times, and
keeps its fastest. CPU-seconds include those of ``read_many``'s pool workers where it starts
one (from 128 MB); the wall-clock MB/s is printed as well.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROUND = """
import json, resource, sys, time
from pathlib import Path
root, folder = sys.argv[1], Path(sys.argv[2])
sys.path.insert(0, root)
import pipeline
assert pipeline.__file__.startswith(root), pipeline.__file__
from pipeline.dataset.assemble import combine
from pipeline.dataset.sources import read_jobs
from pipeline.ingest.base import ReadOptions
paths = sorted(folder.rglob("*.json"))
def cpu():
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + done.ru_utime + done.ru_stime
def once():
    jobs = [(p, ReadOptions(system="s", setup="x", label=str(p)), "fio") for p in paths]
    wall, start = time.perf_counter(), cpu()
    results, errors, failed = read_jobs(jobs, False)
    assert not errors, errors[:2]
    read = cpu()
    data = combine(results, failed)
    end = cpu()
    return read - start, end - read, data.intervals.height, time.perf_counter() - wall
once()
best = min(once() for _ in range(3))
size = sum(p.stat().st_size for p in paths)
print(json.dumps({"mb": size / 1e6, "read": best[0], "combine": best[1], "rows": best[2],
                  "wall": best[3]}))
"""


def one_round(root: Path, folder: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", ROUND, str(root.resolve()), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def summary(rates: list[float]) -> str:
    return f"{statistics.median(rates):6.1f} ({min(rates):.1f}-{max(rates):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rounds: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name in ("old", "new"):
            rounds[name].append(one_round(getattr(args, name), args.folder))
    mb = rounds["old"][0]["mb"]
    print(f"{args.folder}: {mb:.2f} MB, {rounds['old'][0]['rows']:.0f} rows, MB/s per CPU-s")
    print("          read_jobs + combine       read_jobs alone           wall MB/s (both)")
    medians = {}
    for name, runs in rounds.items():
        both = [mb / (r["read"] + r["combine"]) for r in runs]
        alone = [mb / r["read"] for r in runs]
        wall = [mb / r["wall"] for r in runs]
        medians[name] = [statistics.median(x) for x in (both, alone, wall)]
        print(f"  {name:6s}  {summary(both)}      {summary(alone)}      {summary(wall)}")
    ratio = [n / o for n, o in zip(medians["new"], medians["old"], strict=True)]
    print("  new/old " + "".join(f"{r:6.2f}x{' ' * 20}" for r in ratio))


if __name__ == "__main__":
    main()
