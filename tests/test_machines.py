"""report.toml's ``machines`` and ``method``: read like raw files (inside the folder, links
resolved), machine descriptions validated, both in the provenance appendix."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.errors import InputErrors
from pipeline.prepare import prepare
from pipeline.render.appendix import files_view, machine_view

MIXED = Path(__file__).resolve().parent / "data" / "reports" / "mixed"
MACHINE = {"hostname": "lg01", "fio": "fio-3.33", "kernel": "Linux 6.1", "cpu": "EPYC", "cpus": 8}


def _report(tmp_path: Path, keys: str) -> Path:
    folder = tmp_path / "r"
    shutil.copytree(MIXED, folder)
    toml = folder / "report.toml"
    toml.write_text(keys + "\n" + toml.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "env").mkdir()
    (folder / "env" / "machine.json").write_text(json.dumps(MACHINE), encoding="utf-8")
    (folder / "jobs").mkdir()
    for i in range(6):
        (folder / "jobs" / f"{i:04d}.fio").write_text(f"[p{i}]\nrw=read\n", encoding="utf-8")
    return folder


def test_machine_table_and_method_files_in_provenance(tmp_path: Path) -> None:
    folder = _report(tmp_path, 'machines = ["env/*.json"]\nmethod = ["jobs/"]')
    ctx = prepare(folder)
    assert [m.hostname for m in ctx.machines] == ["lg01"]
    fmt = ctx.formatter("de")
    rows = {r[0][0].text: r[1][0].text for r in machine_view(ctx.machines[0], fmt).rows}
    assert rows["Kernel"] == "Linux 6.1" and rows["CPU (logische CPUs)"] == "EPYC (8)"
    files = files_view(ctx, fmt)
    by_path = {r[0][0].text: r for r in files.rows}
    assert "jobs/*" in by_path and "env/machine.json" in by_path
    assert by_path["jobs/*"][3][0].text == "Methode, 6 Dateien" and files.note
    assert not any(p.startswith("jobs/0") for p in by_path)
    listing = subprocess.run(  # the one row's SHA-256, as its note tells a reader to check it
        "LC_ALL=C sha256sum jobs/* | sha256sum",
        shell=True,
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    assert "".join(c.text for c in by_path["jobs/*"][2]) == listing


def test_a_machine_description_outside_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text(json.dumps(MACHINE), encoding="utf-8")
    folder = _report(tmp_path, 'machines = ["../secret.json"]')
    with pytest.raises(InputErrors, match=r"machines\[0\].*outside the report folder"):
        prepare(folder)
    folder = _report(tmp_path / "b", 'machines = ["env/*.json"]')
    (folder / "env" / "link.json").symlink_to(outside)
    with pytest.raises(InputErrors, match="outside the report folder"):
        prepare(folder)


def test_a_bad_machine_description_names_file_and_key(tmp_path: Path) -> None:
    folder = _report(tmp_path, 'machines = ["env/machine.json"]\nmethod = ["nothing/*"]')
    (folder / "env" / "machine.json").write_text(
        json.dumps({**MACHINE, "cpus": -1, "shell": "rm -rf /"}), encoding="utf-8"
    )
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    assert "method[0]" in str(caught.value) and "matches no file" in str(caught.value)
    (folder / "report.toml").write_text(
        (folder / "report.toml").read_text(encoding="utf-8").replace('"nothing/*"', '"jobs/"'),
        encoding="utf-8",
    )
    with pytest.raises(InputErrors) as caught:
        prepare(folder)
    text = str(caught.value)
    assert "env/machine.json: cpus" in text and "env/machine.json: shell" in text


@pytest.mark.parametrize("name", ["lg\u202e01", "lg\x9b01", "lg\x1b01"])
def test_a_machine_description_holds_no_control_character(tmp_path: Path, name: str) -> None:
    """C0 controls were refused, C1 controls and bidi overrides (U+202E) not: the set
    is inputs.CONTROL, as for every name from data."""
    folder = _report(tmp_path, 'machines = ["env/machine.json"]')
    (folder / "env" / "machine.json").write_text(
        json.dumps({**MACHINE, "hostname": name}), encoding="utf-8"
    )
    with pytest.raises(InputErrors, match="hostname"):
        prepare(folder)
