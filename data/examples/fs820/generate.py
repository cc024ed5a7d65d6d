"""Reconstruct Iometer and CrystalDiskMark raw data for the fs820 example.

The numbers are NOT measurements. Seed 002 (SAFEDATA, "IBM FlashSystem 820 Storage
Overview and Testing", English translation) shows its Iometer and CrystalDiskMark results
only as charts and screenshots; its text gives a handful of figures and findings, which
the data here keeps exactly:

- queue-depth sweep, 4 KB random read, one thread on server no. 1: a read "in
  approximately 200 μs" while the system is not overloaded, practically the same with one
  or two links: 200 µs at queue depth 1 in both setups (5,000 IOPS);
- CPU load without MPIO "5-7%", with MPIO "almost 100%": every Iometer test without MPIO
  between 5 and 7 %, with MPIO between 96 and 99.5 %;
- block-size sweep (512 B … 1 MB, 100 % read, 100 % write, 50/50): the rate rises with the
  block size up to the limit of one 8 Gbit FC link (about 760 MB/s, MB = 1024² bytes, one
  direction) with one link, of two links with two; every mix with writes peaks in IOPS at
  4 KB; with two links 4 KB and 8 KB reads come close to two links;
- the application profiles (Database, Fileserver, Workstation, Webserver) limited by the
  FC link with one link.

Everything else (the curves' shapes, the figures between those findings, the
CrystalDiskMark figures) is ILLUSTRATIVE: chosen to fit the findings, not read from the
seed. The model: a rate x that the array and host would reach is limited by the FC links'
capacity C smoothly, rate = (x^-p + C^-p)^(-1/p); latency follows by Little's law from the
outstanding I/Os.

Run:  python data/examples/fs820/generate.py
      (writes raw/iometer-<setup>.csv and raw/crystaldiskmark-<setup>.txt)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SETUPS = ("1link", "2links-mpio")
MIB = 1024 * 1024
LINK_MIB_S = 760.0  # one 8 Gbit FC link, one direction, MB = 1024² bytes
RUN_S = 60  # Iometer run time per test
SERVER_1 = ("x3850", 32)  # host name as Iometer's manager names it, logical CPUs
SERVER_2 = ("x3650m4", 24)
WORKERS = 4  # workers per server in the two-server tests, one LUN each
QUEUE_DEPTH = 8  # outstanding I/Os per worker in the two-server tests
SIZES = (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
MIXES = (100, 0, 50)  # read %: the seed's 100 % read, 100 % write, 50/50
QD_SWEEP = (1, 2, 4, 8, 16, 32, 64, 128)  # one worker, 4 KB random read
# workers at queue depth 4, 4 KB random read (one worker at queue depth 4: the sweep above)
THREAD_SWEEP = (2, 4, 8, 16, 32)
QD1_LAT_US = 200.0  # seed 002: "approximately 200 μs", one or two links alike

# Iometer's own application specifications: (size, % of size, % reads, % random) lines
APPLICATIONS = {
    "Database": [(8192, 100, 67, 100)],
    "File Server": [
        (512, 10, 80, 100),
        (1024, 5, 80, 100),
        (2048, 5, 80, 100),
        (4096, 60, 80, 100),
        (8192, 2, 80, 100),
        (16384, 4, 80, 100),
        (32768, 4, 80, 100),
        (65536, 10, 80, 100),
    ],
    "Workstation": [(8192, 100, 80, 80)],
    "Web Server": [
        (512, 22, 100, 100),
        (1024, 15, 100, 100),
        (2048, 8, 100, 100),
        (4096, 23, 100, 100),
        (8192, 15, 100, 100),
        (16384, 2, 100, 100),
        (32768, 6, 100, 100),
        (65536, 7, 100, 100),
        (131072, 1, 100, 100),
        (524288, 1, 100, 100),
    ],
}

# IOPS the array and two hosts would reach per block size without the links' limit
# (illustrative): reads; writes and 50/50 peak at 4 KB (the seed's "internal data
# structure" of 4 KB: smaller writes are read-modify-write)
READ_IOPS = (165e3, 162e3, 158e3, 420e3, 300e3, 170e3, 90e3, 46e3, 23e3, 12e3, 6e3, 3e3)
WRITE_IOPS = (55e3, 62e3, 80e3, 250e3, 135e3, 72e3, 38e3, 20e3, 10e3, 5e3, 2.6e3, 1.3e3)
MIXED_IOPS = (70e3, 78e3, 95e3, 300e3, 180e3, 100e3, 55e3, 30e3, 15e3, 7.5e3, 3.8e3, 1.9e3)
# application profiles without the links' limit, IOPS (illustrative)
APP_IOPS = {"Database": 190e3, "File Server": 150e3, "Workstation": 200e3, "Web Server": 95e3}
# one worker's and one server's ceilings for the 4 KB random read sweeps (illustrative)
ONE_WORKER_IOPS = {"1link": 110e3, "2links-mpio": 100e3}
ONE_SERVER_IOPS = {"1link": 400e3, "2links-mpio": 300e3}
SHARPNESS = 4.0  # p of the smooth limit

HEADER = (
    "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,"
    "Read IOps,Write IOps,MiBps (Binary),Read MiBps (Binary),Write MiBps (Binary),"
    "MBps (Decimal),Read MBps (Decimal),Write MBps (Decimal),Transactions per Second,"
    "Connections per Second,Average Response Time,Average Read Response Time,"
    "Average Write Response Time,Average Transaction Time,Average Connection Time,"
    "Maximum Response Time,Maximum Read Response Time,Maximum Write Response Time,"
    "Maximum Transaction Time,Maximum Connection Time,Errors,Read Errors,Write Errors,"
    "Bytes Read,Bytes Written,Read I/Os,Write I/Os,Connections,Transactions per Connection,"
    "Total Raw Read Response Time,Total Raw Write Response Time,Total Raw Transaction Time,"
    "Total Raw Connection Time,Maximum Raw Read Response Time,Maximum Raw Write Response Time,"
    "Maximum Raw Transaction Time,Maximum Raw Connection Time,Total Raw Run Time,"
    "Starting Sector,Maximum Size,Queue Depth,% CPU Utilization,% User Time,"
    "% Privileged Time,% DPC Time,% Interrupt Time,Processor Speed,Interrupts per Second,"
    "CPU Effectiveness,Packets/Second,Packet Errors,Segments Retransmitted/Second,"
    "0 to 50 uS,50 to 100 uS,100 to 200 uS,200 to 500 uS,0.5 to 1 mS,1 to 2 mS,2 to 5 mS,"
    "5 to 10 mS,10 to 15 mS,15 to 20 mS,20 to 30 mS,30 to 50 mS,50 to 100 mS,"
    "100 to 200 mS,200 to 500 mS,0.5 to 1 S,1 to 2 s,2 to 4.7 s,4.7 to 5 s,5 to 10 s,>= 10 s"
)
COLUMNS = HEADER.lstrip("'").split(",")


def limited(rate: float, capacity: float) -> float:
    """``rate`` smoothly limited by ``capacity``."""
    return float((rate**-SHARPNESS + capacity**-SHARPNESS) ** (-1 / SHARPNESS))


def links(setup: str) -> int:
    return 2 if setup == "2links-mpio" else 1


# --- what one test moves -------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    name: str
    lines: list[tuple[int, int, int, int]]  # size, % of size, % reads, % random

    @property
    def read_pct(self) -> int:
        return self.lines[0][2]

    @property
    def mean_size(self) -> float:
        return sum(size * share for size, share, _, _ in self.lines) / 100


@dataclass(frozen=True)
class Test:
    spec: Spec
    managers: tuple[tuple[str, int], ...]
    workers: int  # per manager
    queue_depth: int  # per worker
    iops: float  # all managers together


def link_capacity_iops(setup: str, spec: Spec) -> float:
    """I/Os per second the links carry: reads and writes each in their own direction."""
    mib = links(setup) * LINK_MIB_S * 0.97 ** (links(setup) - 1)
    share = max(spec.read_pct, 100 - spec.read_pct) / 100
    return mib * MIB / spec.mean_size / share


def block_tests(setup: str) -> Iterator[Test]:
    for mix, ceilings in zip(MIXES, (READ_IOPS, WRITE_IOPS, MIXED_IOPS), strict=True):
        for size, ceiling in zip(SIZES, ceilings, strict=True):
            spec = Spec(f"{_size_name(size)}; {mix}% Read; 0% random", [(size, 100, mix, 0)])
            cpu_bound = 0.9 if setup == "2links-mpio" and size < 4096 else 1.0
            iops = limited(ceiling * cpu_bound, link_capacity_iops(setup, spec))
            yield Test(spec, (SERVER_1, SERVER_2), WORKERS, QUEUE_DEPTH, iops)


def application_tests(setup: str) -> Iterator[Test]:
    for name, lines in APPLICATIONS.items():
        spec = Spec(name, lines)
        iops = limited(APP_IOPS[name], link_capacity_iops(setup, spec))
        yield Test(spec, (SERVER_1, SERVER_2), WORKERS, QUEUE_DEPTH, iops)


READ_4K = Spec("4 KiB; 100% Read; 100% random", [(4096, 100, 100, 100)])


def sweep_iops(setup: str, workers: int, depth: int) -> float:
    """4 KB random reads of server no. 1: ``depth`` I/Os at 200 µs each, per worker."""
    if workers == 1 and depth == 1:
        return 1e6 / QD1_LAT_US  # exactly the seed's 200 µs
    one = limited(depth * 1e6 / QD1_LAT_US, ONE_WORKER_IOPS[setup])
    ceiling = limited(ONE_SERVER_IOPS[setup], link_capacity_iops(setup, READ_4K))
    return limited(workers * one, ceiling)


def sweep_tests(setup: str) -> Iterator[Test]:
    for depth in QD_SWEEP:
        yield Test(READ_4K, (SERVER_1,), 1, depth, sweep_iops(setup, 1, depth))
    for workers in THREAD_SWEEP:
        yield Test(READ_4K, (SERVER_1,), workers, 4, sweep_iops(setup, workers, 4))


def _size_name(size: int) -> str:
    if size >= MIB:
        return f"{size // MIB} MiB"
    return f"{size // 1024} KiB" if size >= 1024 else f"{size} B"


# --- Iometer's results file ----------------------------------------------------------------


@dataclass
class Figures:
    """One row's counts over the run; latencies in ms."""

    reads: int
    writes: int
    read_ms: float
    write_ms: float
    max_ms: float
    bytes_read: int
    bytes_written: int

    @staticmethod
    def sum(parts: list[Figures]) -> Figures:
        reads, writes = sum(p.reads for p in parts), sum(p.writes for p in parts)
        return Figures(
            reads,
            writes,
            sum(p.read_ms * p.reads for p in parts) / reads if reads else 0.0,
            sum(p.write_ms * p.writes for p in parts) / writes if writes else 0.0,
            max(p.max_ms for p in parts),
            sum(p.bytes_read for p in parts),
            sum(p.bytes_written for p in parts),
        )

    def cells(self) -> dict[str, str]:
        ios = self.reads + self.writes
        mean = (self.read_ms * self.reads + self.write_ms * self.writes) / ios
        rate = {
            k: v / RUN_S for k, v in (("", ios), ("Read ", self.reads), ("Write ", self.writes))
        }
        moved = {"": self.bytes_read + self.bytes_written, "Read ": self.bytes_read}
        moved["Write "] = self.bytes_written
        cells = {f"{k}IOps": f"{v:.6f}" for k, v in rate.items()}
        for k, b in moved.items():
            cells[f"{k}MiBps (Binary)"] = f"{b / RUN_S / MIB:.6f}"
            cells[f"{k}MBps (Decimal)"] = f"{b / RUN_S / 1e6:.6f}"
        return cells | {
            "Transactions per Second": f"{ios / RUN_S:.6f}",
            "Connections per Second": "0.000000",
            "Average Response Time": f"{mean:.6f}",
            "Average Read Response Time": f"{self.read_ms:.6f}",
            "Average Write Response Time": f"{self.write_ms:.6f}",
            "Average Transaction Time": f"{mean:.6f}",
            "Average Connection Time": "0.000000",
            "Maximum Response Time": f"{self.max_ms:.6f}",
            "Errors": "0",
            "Read Errors": "0",
            "Write Errors": "0",
            "Bytes Read": str(self.bytes_read),
            "Bytes Written": str(self.bytes_written),
            "Read I/Os": str(self.reads),
            "Write I/Os": str(self.writes),
            "Connections": "0",
        }


def worker_figures(rng: random.Random, test: Test, ios: int) -> Figures:
    """One worker's run: ``ios`` I/Os at the latency Little's law gives its queue."""
    spec = test.spec
    reads = round(ios * spec.read_pct / 100)
    writes = ios - reads
    lat_ms = test.queue_depth / (ios / RUN_S) * 1000
    k_write = 0.85 if reads and writes else 1.0
    k_read = (1 - writes / ios * k_write) / (reads / ios) if reads else 0.0
    size = spec.mean_size
    return Figures(
        reads,
        writes,
        lat_ms * k_read,
        lat_ms * k_write if writes else 0.0,
        lat_ms * rng.uniform(6, 12),
        round(reads * size),
        round(writes * size),
    )


def split(total: int, parts: int, rng: random.Random) -> list[int]:
    weights = [1 + rng.uniform(-0.02, 0.02) for _ in range(parts)]
    counts = [round(total * w / sum(weights)) for w in weights]
    counts[-1] = total - sum(counts[:-1])
    return counts


def row(kind: str, name: str, spec: str, counts: tuple[str, str, str], **cells: str) -> str:
    values = {
        "Target Type": kind,
        "Target Name": name,
        "Access Specification Name": spec,
        "# Managers": counts[0],
        "# Workers": counts[1],
        "# Disks": counts[2],
        **cells,
    }
    return ",".join(values.get(c, "") for c in COLUMNS)


def cpu_load(rng: random.Random, setup: str) -> float:
    """Seed 002: without MPIO 5-7 %, with MPIO almost 100 %."""
    return rng.uniform(96.0, 99.5) if setup == "2links-mpio" else rng.uniform(5.0, 7.0)


def processors(rng: random.Random, cpus: int, load: float) -> list[str]:
    lines = []
    for n in range(cpus):
        busy = min(100.0, max(0.0, load + rng.uniform(-1.5, 1.5)))
        user = busy * 0.15
        cells = {
            "% CPU Utilization": f"{busy:.2f}",
            "% User Time": f"{user:.2f}",
            "% Privileged Time": f"{busy - user:.2f}",
            "% DPC Time": f"{busy * 0.2:.2f}",
            "% Interrupt Time": f"{busy * 0.1:.2f}",
        }
        lines.append(row("PROCESSOR", f"CPU {n}", "", ("", "", ""), **cells))
    return lines


def manager_block(
    rng: random.Random, setup: str, test: Test, manager: tuple[str, int], ios: int, first: int
) -> tuple[list[str], Figures, float]:
    host, cpus = manager
    depth = {"Queue Depth": str(test.queue_depth)}
    workers = [worker_figures(rng, test, n) for n in split(ios, test.workers, rng)]
    lines = []
    for n, figures in enumerate(workers):
        cells = figures.cells() | depth
        lines.append(row("WORKER", f"Worker {first + n}", test.spec.name, ("", "1", "1"), **cells))
        lines.append(row("DISK", f"PHYSICALDRIVE:{n + 1}", "", ("", "", "1"), **cells))
    total = Figures.sum(workers)
    load = cpu_load(rng, setup)
    counts = ("1", str(test.workers), str(test.workers))
    cells = total.cells() | depth | {"% CPU Utilization": f"{load:.2f}"}
    head = row("MANAGER", host, test.spec.name, counts, **cells)
    return [head, *processors(rng, cpus, load), *lines], total, load


def test_lines(rng: random.Random, setup: str, test: Test, clock: int) -> list[str]:
    spec_lines = [",".join(str(v) for v in (*line, 0, 1, 0, 0)) for line in test.spec.lines]
    lines = [
        "'Access specifications",
        "'Access specification name,default assignment",
        f"{test.spec.name},NONE",
        "'size,% of size,% reads,% random,delay,burst,align,reply",
        *spec_lines,
        "'End access specifications",
        "'Results",
        HEADER,
    ]
    ios = round(test.iops * RUN_S)
    blocks = [
        manager_block(rng, setup, test, manager, n, 1 + i * test.workers)
        for i, (manager, n) in enumerate(
            zip(test.managers, split(ios, len(test.managers), rng), strict=True)
        )
    ]
    total = Figures.sum([figures for _, figures, _ in blocks])
    load = sum(cpu for _, _, cpu in blocks) / len(blocks)
    n = len(test.managers)
    counts = (str(n), str(n * test.workers), str(n * test.workers))
    depth = {"Queue Depth": str(test.queue_depth), "% CPU Utilization": f"{load:.2f}"}
    lines.append(row("ALL", "All", test.spec.name, counts, **(total.cells() | depth)))
    for block, _, _ in blocks:
        lines += block
    return [*lines, "'Time Stamp", _stamp(clock + RUN_S + 5), "'End Test"]


def _stamp(seconds: int) -> str:
    day = 24 * 3600
    hours, rest = divmod(seconds % day, 3600)
    return f"2015-03-{10 + seconds // day:02d} {hours:02d}:{rest // 60:02d}:{rest % 60:02d}:000"


def iometer(setup: str) -> str:
    rng = random.Random(f"fs820-iometer-{setup}")
    clock = 9 * 3600
    lines = [
        "'Test Type,Test Description",
        f"0,FS820 {setup} - RECONSTRUCTED from seed 002 (not measured; made by generate.py)",
        "'Version",
        "1.1.0",
        "'Time Stamp",
        _stamp(clock),
    ]
    for test in [*block_tests(setup), *application_tests(setup), *sweep_tests(setup)]:
        lines += test_lines(rng, setup, test, clock)
        clock += RUN_S + 5
    return "\r\n".join(lines) + "\r\n"


# --- CrystalDiskMark 3.0.3's text ----------------------------------------------------------

# MB/s (MB = 10⁶ bytes, as CrystalDiskMark counts) per test, ILLUSTRATIVE: the seed shows
# both runs only as screenshots. Queue depth 1 tests gain nothing from a second path
# (one I/O in flight uses one link); MPIO's CPU load costs a little everywhere.
CDM = {
    "1link": (792.4, 731.6, 748.9, 702.3, 19.512, 39.871, 402.113, 356.204),
    "2links-mpio": (776.0, 715.2, 731.5, 688.0, 18.902, 38.640, 388.724, 341.957),
}
CDM_TESTS = (
    ("Sequential Read", 0),
    ("Sequential Write", 0),
    ("Random Read 512KB", 0),
    ("Random Write 512KB", 0),
    ("Random Read 4KB (QD=1)", 4096),
    ("Random Write 4KB (QD=1)", 4096),
    ("Random Read 4KB (QD=32)", 4096),
    ("Random Write 4KB (QD=32)", 4096),
)


def crystaldiskmark(setup: str) -> str:
    lines = [
        "-----------------------------------------------------------------------",
        "CrystalDiskMark 3.0.3 x64 (C) 2007-2013 hiyohiyo",
        "                           Crystal Dew World : http://crystalmark.info/",
        "-----------------------------------------------------------------------",
        "* MB/s = 1,000,000 byte/s [SATA/300 = 300,000,000 byte/s]",
        "",
    ]
    for (name, size), rate in zip(CDM_TESTS, CDM[setup], strict=True):
        iops = f" [{rate * 1e6 / size:8.1f} IOPS]" if size else ""
        lines.append(f"{name:>26} : {rate:9.3f} MB/s{iops}")
    paths = "two FC links, MPIO" if setup == "2links-mpio" else "one FC link"
    lines += [
        "",
        "  Test : 1000 MB [E: 0.0% (0.0/100.0 GB)] (x5)",
        f"  Date : 2015/03/{9 + links(setup):02d} 15:30:00",
        "    OS : Windows Server 2012 R2 Datacenter (Full installation) [6.3 Build 9600] (x64)",
        f"  FS820, {paths} - RECONSTRUCTED from seed 002, not measured",
    ]
    return "\r\n".join(lines) + "\r\n"


def main() -> None:
    raw = Path(__file__).with_name("raw")
    raw.mkdir(exist_ok=True)
    for setup in SETUPS:
        for name, text in (
            (f"iometer-{setup}.csv", iometer(setup)),
            (f"crystaldiskmark-{setup}.txt", crystaldiskmark(setup)),
        ):
            (raw / name).write_bytes(text.encode("utf-8"))
            print(f"wrote {raw / name}")


if __name__ == "__main__":
    main()
