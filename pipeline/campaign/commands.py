"""The campaign commands as the CLI runs them: what they print."""

from __future__ import annotations

from pathlib import Path

from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from pipeline.campaign import plan as planning
from pipeline.campaign import run as running
from pipeline.campaign.model import load_campaign
from pipeline.console import err_console, out_console
from pipeline.machine import save_machine


def plan(source: Path, out: Path) -> None:
    campaign = load_campaign(source)
    engine = campaign.engine or planning.best_engine()
    points = planning.plan(source, out, campaign, engine)
    out_console.print(f"{len(points)} job files in {out / planning.JOBS} (engine {engine})")
    out_console.print(f"run time: {planning.run_time(campaign)}")
    out_console.print(f"next: iopress run {out}, then iopress build {out}")


def _last(done: running.Done | None) -> str:
    if done is None:
        return ""
    kept = " (kept)" if done.skipped else ""
    return f"last: {done.name}{kept}: {done.iops:,.0f} IOPS, {done.lat_us:,.0f} µs"


def run(folder: Path, destroy: list[str]) -> None:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[last]}"),
        console=err_console,
        disable=not err_console.is_terminal,
    )
    task = progress.add_task("points", total=None, last="")

    def step(n: int, total: int, done: running.Done | None) -> None:
        progress.update(task, completed=n, total=total, last=_last(done))

    with progress:
        results = running.run(folder, destroy, step)
    ran = sum(not d.skipped for d in results)
    out_console.print(f"{len(results)} points: {ran} run, {len(results) - ran} kept from before")


def machine(out: Path, host: str, targets: list[str]) -> None:
    save_machine(running.describe(host, tuple(targets)), out)
    out_console.print(f"{out}: {host} described; name it in report.toml's machines")
