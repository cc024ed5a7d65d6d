"""campaign.toml [data]: compressible writes (issue 40), written into the job files as
fio's buffer options, accepted by Debian's fio and read back by the fio reader."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline import ingest
from pipeline.campaign import plan as planning
from pipeline.campaign.model import load_campaign
from pipeline.errors import InputErrors
from pipeline.ingest.base import ReadOptions
from tests.test_campaign import _campaign

DATA = "[data]\ncompress_pct = 50\ndedupe_pct = 10\n"


def _job(tmp_path: Path, extra: str) -> str:
    campaign = load_campaign(_campaign(tmp_path, extra))
    return planning.job_file(campaign, planning.points(campaign)[-1], "psync")


def test_the_job_files_carry_the_data(tmp_path: Path) -> None:
    job = _job(tmp_path, DATA)
    assert "buffer_compress_percentage=50\nrefill_buffers=1\ndedupe_percentage=10\n" in job
    assert "buffer_compress" not in _job(tmp_path, "")  # fio's own buffers


@pytest.mark.parametrize("extra", ["[data]\ncompress_pct = 101\n", "[data]\ndedupe_pct = 5\n"])
def test_a_data_table_fio_cannot_run_is_refused(tmp_path: Path, extra: str) -> None:
    with pytest.raises(
        InputErrors, match=r"data\.compress_pct: (Input should be less|Field required)"
    ):
        load_campaign(_campaign(tmp_path, extra))


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_runs_the_job_and_the_report_reads_the_data_back(tmp_path: Path) -> None:
    """The job file as planned, on the null engine for one second."""
    job = _job(tmp_path, DATA)
    job = re.sub(r"ioengine=\w+", "ioengine=null", job)
    job = re.sub(r"runtime=\d+", "runtime=1", job).replace("rate_iops=", "; rate_iops=")
    path = tmp_path / "job.fio"
    path.write_text(job, encoding="utf-8")
    out = tmp_path / "out.json"
    command = ["fio", "--output-format=json", f"--output={out}", str(path)]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    row = ingest.read(out, ReadOptions()).intervals.row(0, named=True)
    assert (row["compress_pct"], row["dedupe_pct"]) == (50.0, 10.0)


def test_a_percentage_is_a_whole_number_as_fio_reads_it(tmp_path: Path) -> None:
    """fio reads buffer_compress_percentage as a whole number: 0.00001 was written as
    '1e-05' (fio read 1e-300 as 300). A fraction is refused, naming the key."""
    with pytest.raises(InputErrors, match=r"data\.compress_pct"):
        _job(tmp_path, "[data]\ncompress_pct = 0.00001\n")
