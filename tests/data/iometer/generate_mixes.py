"""Writes iometer_mixes.csv: Iometer's File Server and Web Server access specifications
(several transfer sizes each) and a mix whose shares do not add up, in the layout of
Iometer 1.1's results file (see SOURCE.md). The figures are invented and consistent:
bytes = I/Os x the split's mean size, I/Os = IOps x 60 s. Run from the repository:
``.venv/bin/python -m tests.data.iometer.generate_mixes``."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
# name: (size, % of size) lines, % reads, % random (Iometer's predefined specifications)
SPECS = {
    "File Server": (
        [
            (512, 10),
            (1024, 5),
            (2048, 5),
            (4096, 60),
            (8192, 2),
            (16384, 4),
            (32768, 4),
            (65536, 10),
        ],
        80,
        100,
    ),
    "Web Server": (
        [
            (512, 22),
            (1024, 15),
            (2048, 8),
            (4096, 23),
            (8192, 15),
            (16384, 2),
            (32768, 6),
            (65536, 7),
            (131072, 1),
            (524288, 1),
        ],
        100,
        100,
    ),
    "Half Mix": ([(4096, 60), (65536, 30)], 50, 0),  # 90 %: rejected
}
RESULTS = {"File Server": (12000.0, 1.33), "Web Server": (15000.0, 1.06), "Half Mix": (800.0, 20.0)}
SECONDS = 60
HEADER = next(x for x in (HERE / "iometer_11.csv").read_text().splitlines() if "Target Type" in x)


def _specs() -> list[str]:
    lines = ["'Access specifications"]
    for name, (parts, reads, random) in SPECS.items():
        lines += ["'Access specification name,default assignment", f"{name},NONE"]
        lines.append("'size,% of size,% reads,% random,delay,burst,align,reply")
        lines += [f"{size},{share},{reads},{random},0,1,0,0" for size, share in parts]
    return [*lines, "'End access specifications"]


def _row(kind: str, name: str, spec: str, iops: float, lat_ms: float, shown: bool = True) -> str:
    parts, reads, _ = SPECS[spec]
    mean = sum(size * share for size, share in parts) / 100
    r_iops, w_iops = iops * reads / 100, iops * (100 - reads) / 100
    mib = [x * mean / 1048576 for x in (iops, r_iops, w_iops)]
    mb = [x * mean / 1e6 for x in (iops, r_iops, w_iops)]
    r_ios, w_ios = round(r_iops * SECONDS), round(w_iops * SECONDS)
    counts = ("1", "1", "1") if kind in ("ALL", "MANAGER") else ("", "1", "1")
    cells = [
        kind,
        name,
        spec if shown else "",
        *counts,
        f"{iops:.6f}",
        f"{r_iops:.6f}",
        f"{w_iops:.6f}",
    ]
    cells += [f"{v:.6f}" for v in (*mib, *mb)]
    w_lat = lat_ms if w_iops else 0.0
    cells += [f"{iops:.6f}", "0.000000", f"{lat_ms:.6f}", f"{lat_ms:.6f}", f"{w_lat:.6f}"]
    cells += [f"{lat_ms:.6f}", "0.000000", f"{lat_ms * 20:.6f}", "", "", "", "", "0", "0", "0"]
    cells += [str(round(r_ios * mean)), str(round(w_ios * mean)), str(r_ios), str(w_ios), "0"]
    cells += [""] * 12 + ["16", "12.5" if kind in ("ALL", "MANAGER") else ""]
    return ",".join(cells + [""] * (HEADER.count(",") + 1 - len(cells)))


def _test(spec: str, stamp: int) -> list[str]:
    iops, lat = RESULTS[spec]
    rows = [_row(k, n, spec, iops, lat) for k, n in (("ALL", "All"), ("MANAGER", "LAB-W1"))]
    rows += [
        _row("WORKER", "Worker 1", spec, iops, lat),
        _row("DISK", "E: DATA", spec, iops, lat, False),
    ]
    return [
        "'Time Stamp",
        f"2026-11-24 10:0{stamp}:00:000",
        *_specs(),
        "'Results",
        HEADER,
        *rows,
        "'Time Stamp",
        f"2026-11-24 10:0{stamp + 1}:00:000",
        "'End Test",
    ]


def main() -> None:
    lines = ["'Test Type,Test Description", "0,Iometer mixes", "'Version", "1.1.0"]
    for n, spec in enumerate(SPECS):
        lines += _test(spec, 2 * n)
    (HERE / "iometer_mixes.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode())


if __name__ == "__main__":
    main()
