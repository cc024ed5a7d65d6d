"""The campaign commands as the CLI runs them: what they print."""

from __future__ import annotations

from pathlib import Path

from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from pipeline import cache
from pipeline.campaign import plan as planning
from pipeline.campaign import run as running
from pipeline.campaign.model import load_campaign
from pipeline.campaign.targets import Seen
from pipeline.console import err_console, out_console
from pipeline.language.strings import Strings
from pipeline.machine import save_machine
from pipeline.paths import TOOL


def plan(source: Path, out: Path) -> None:
    campaign = load_campaign(source)
    engine = campaign.engine or planning.best_engine()
    planned = planning.plan(source, out, campaign, engine)
    n = len(planned.points)
    out_console.print(f"{n} job files in {out / planning.JOBS} (engine {engine})")
    for seen in planned.targets:
        out_console.print(_target(seen, out), markup=False, highlight=False)
    out_console.print(f"run time: {planning.run_time(campaign)}")
    out_console.print(f"next: iopress run {out}, then iopress build {out}")


def _target(seen: Seen, folder: Path) -> str:
    """``target /dev/sdx: block device, 1,000,204,886,016 bytes, holds ext4; …``"""
    t = Strings(TOOL)
    size = "" if seen.size is None else t("cli.target_bytes", n=f"{seen.size:,}")
    holds = ", ".join(seen.holds) if seen.holds else t("cli.target_nothing")
    if seen.created:
        holds = t("cli.target_created")
    elif seen.kind == "missing":
        holds = t("cli.target_unseen")
    what = t(f"cli.target_{seen.kind}") + size
    if not seen.writes:
        verdict = t("cli.target_read")
    elif seen.shared:
        verdict = t("cli.target_shared", why=seen.shared)
    elif seen.holds:
        verdict = t("cli.target_destroy", folder=folder, path=seen.target.path)
    else:
        verdict = t("cli.target_write")
    return t("cli.target", path=seen.target.path, what=what, holds=holds, verdict=verdict)


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

    try:
        with progress:
            results = running.run(folder, destroy, step)
    finally:  # the cache key that signs records and results: unusable, nothing is kept
        for note in dict.fromkeys(cache.NOTES):
            err_console.print(f"{Strings(TOOL)('cli.note')}: {note}", highlight=False, markup=False)
    ran = sum(not d.skipped for d in results)
    out_console.print(f"{len(results)} points: {ran} run, {len(results) - ran} kept from before")


def machine(out: Path, host: str, targets: list[str]) -> None:
    save_machine(running.describe(host, tuple(targets)), out)
    out_console.print(f"{out}: {host} described; name it in report.toml's machines")
