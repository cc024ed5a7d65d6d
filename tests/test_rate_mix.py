"""A rate cap on a mix: fio holds each direction to its own cap (one value caps both), so
``rate_iops=500`` at 50 % reads ran 500 reads and 500 writes a second, while iopress read
a target of 500 and the campaign asked for it. The fio reader now adds the caps of the
directions a mix has, and a campaign splits a mix's rate by its read share; both checked
against Debian's fio."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.campaign import plan as planning
from pipeline.campaign.model import load_campaign
from pipeline.ingest.base import ReadOptions, interval_frame
from tests.test_campaign import _campaign

FIO = shutil.which("fio")
needs_fio = pytest.mark.skipif(FIO is None, reason="fio is not installed (make test installs it)")


def _run(tmp_path: Path, job: str) -> tuple[float, float]:
    """fio's JSON of ``job`` (null engine, 2 s): the target iopress reads, and the IOPS
    fio measured."""
    (tmp_path / "j.fio").write_text(job, encoding="utf-8")
    out = tmp_path / "out.json"
    subprocess.run(
        ["fio", "--output-format=json", f"--output={out}", str(tmp_path / "j.fio")], check=True
    )
    read = ingest.read(out, ReadOptions(root=tmp_path), "fio")
    assert read.rows is not None
    rows = interval_frame(read.rows)
    return float(rows["target_iops"][0]), float(rows["iops"].sum())


JOB = "[j]\nioengine=null\nsize=64M\nbs=4k\ntime_based=1\nruntime=2\nrw=randrw\n"


@needs_fio
@pytest.mark.parametrize(
    ("options", "target"),
    [
        ("rwmixread=50\nrate_iops=500\n", 1000.0),  # one value caps each direction
        ("rwmixread=70\nrate_iops=350,150\n", 500.0),
        ("rwmixread=100\nrate_iops=500\n", 500.0),
    ],
)
def test_the_target_of_a_capped_mix_is_what_fio_runs(
    tmp_path: Path, options: str, target: float
) -> None:
    read, measured = _run(tmp_path, JOB + options)
    assert read == target
    assert abs(measured - target) / target < 0.05, measured


def test_a_campaigns_mix_is_capped_per_direction(tmp_path: Path) -> None:
    text = (
        _campaign(tmp_path)
        .read_text(encoding="utf-8")
        .replace("read_pct = [100]", "read_pct = [70]")
    )
    (tmp_path / "campaign.toml").write_text(text, encoding="utf-8")
    campaign = load_campaign(tmp_path / "campaign.toml")
    point = next(p for p in planning.points(campaign) if p.read_pct == 70 and p.level == 1)
    assert "rate_iops=1400,600\n" in planning.job_file(campaign, point, "psync")
