"""One fio result of ``iopress run`` checked as ``build`` reads it: its point's figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pipeline import ingest
from pipeline.errors import InputError
from pipeline.ingest import fio
from pipeline.ingest.base import ReadOptions, interval_frame, problems
from pipeline.inputs import read_text


def figures(result: Path) -> tuple[float, float] | str:
    """The point's IOPS and mean latency (µs) when ``result`` is complete fio output whose
    figures ``build`` accepts, by the same rule: it reads, and records are accepted. Records
    rejected with their reason are listed by ``build`` as for any fio output: the snapshots
    before fio starts a job's counters again (laying out a new file, ``ramp_time``) are
    not part of fio's final figures, not a defect of the run. Else why not."""
    try:
        read = ingest.read(result, ReadOptions(root=result.parent), "fio")
        repeated = server_snapshots(result)
    except InputError as err:  # its place and what is wrong: the hint is build's
        return f"{err.where}: {err.message}" if err.where else err.message
    except (OSError, ValueError) as err:
        return str(err)
    if repeated:
        return repeated
    found = problems(read, result)
    if found or not read.rows:
        return str(found[0]) if found else "no interval was accepted"
    rows = interval_frame(read.rows)
    ios = float((rows["iops"] * rows["interval_s"]).sum())
    seconds = float(rows["interval_s"].sum())
    lat = float((rows["lat_mean_us"].fill_null(0.0) * rows["iops"] * rows["interval_s"]).sum())
    return (ios / seconds if seconds else 0.0), (lat / ios if ios else 0.0)


def cut_short(result: Path, planned_ms: int) -> str:
    """Why a job of fio's final record covers less than ``planned_ms`` (the point's
    runtime × its workers: fio sums its jobs' run times where it reports them as a group),
    or "": a file cut after a status snapshot (a machine that stopped before the file was
    whole) reads as sound output of a shorter run."""
    doc = fio.final_document(result, read_text(result)).data
    records = [r for key in ("jobs", "client_stats") for r in doc.get(key) or []]
    ran = [
        r.get("job_runtime")
        for r in records
        if isinstance(r, dict) and r.get("jobname") != fio.ALL_CLIENTS
    ]
    shortest = min((t for t in ran if isinstance(t, int | float)), default=0)
    if shortest >= planned_ms * 0.99:
        return ""
    return f"a job of its last record ran {shortest:,} of the {planned_ms:,} ms planned (cut short)"


def server_snapshots(result: Path) -> str:
    """Why fio's client output holds a job of one fio server more than once, or "": a
    server started with ``--status-interval`` sends its cumulative snapshots, which the
    client writes as further records of the same job (docs/campaign.md); iopress does
    not read them as snapshots (yet), so such a result is not sound."""
    doc = fio.final_document(result, read_text(result)).data
    records = doc.get("client_stats")
    if not isinstance(records, list):
        return ""
    seen = Counter(
        (r.get("jobname"), r.get("hostname"), r.get("port"))
        for r in records
        if isinstance(r, dict) and r.get("jobname") != fio.ALL_CLIENTS
    )
    twice = sorted({f"{host}:{port}" for (_, host, port), n in seen.items() if n > 1})
    if not twice:
        return ""
    servers = f"the fio server {twice[0]}" if len(twice) == 1 else f"fio servers {', '.join(twice)}"
    return (
        f"{servers} sent status snapshots (started with --status-interval), which iopress "
        "does not read: start fio --server without it"
    )
