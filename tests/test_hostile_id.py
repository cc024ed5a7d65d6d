"""A report folder is untrusted: its report.toml's id names the default output folder, and
was used as a path before it was checked ("/tmp/x/secret" made folders there and replaced,
then removed, a ``.secret.lock`` beside them); its report.toml was read with no limit (a
FIFO hung the build, 3 GB took 9 GB of memory) and a TOML nested thousands deep ended in a
traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli import iopress
from tests.conftest import FS840


def _folder(tmp_path: Path, line: str) -> Path:
    folder = tmp_path / "vendor"
    shutil.copytree(FS840, folder)
    toml = folder / "report.toml"
    lines = toml.read_text(encoding="utf-8").splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith("id = "))
    toml.write_text("\n".join([*lines[:at], line, *lines[at + 1 :]]) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("rid", ["{victim}/secret", "../../secret", "a/../../secret"])
@pytest.mark.parametrize("command", ["build", "datasheet"])
def test_an_id_that_is_a_path_touches_nothing_outside(
    tmp_path: Path, rid: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / ".secret.lock").write_text("precious", encoding="utf-8")
    folder = _folder(tmp_path, f'id = "{rid.format(victim=victim)}"')
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    before = sorted(p.name for p in tmp_path.iterdir())
    ran = iopress(command, folder)
    assert ran.returncode == 1 and "id" in ran.stderr, ran
    assert (victim / ".secret.lock").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sorted(p.name for p in victim.iterdir()) == [".secret.lock"]


def test_a_fifo_report_toml_is_refused_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "vendor"
    shutil.copytree(FS840, folder)
    (folder / "report.toml").unlink()
    os.mkfifo(folder / "report.toml")
    ran = iopress("build", folder, "-o", tmp_path / "out")
    assert ran.returncode == 1 and "not a regular file" in ran.stderr, ran


def test_a_report_toml_nested_thousands_deep_is_an_input_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 'id = "deep"\nzz = ' + "[" * 3000 + "]" * 3000)
    ran = iopress("build", folder, "-o", tmp_path / "out")
    assert ran.returncode == 1 and "nested too deeply" in ran.stderr, ran
    assert "Traceback" not in ran.stderr


def test_a_glob_through_a_linked_folder_names_the_link_not_the_files(tmp_path: Path) -> None:
    """path = "*/*" with a link to a folder outside: refused, but the error listed the
    names of the files out there (docs/security.md: nothing outside is even listed)."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "id_rsa_SECRETNAME").write_text("x", encoding="utf-8")
    folder = tmp_path / "vendor"
    shutil.copytree(FS840, folder)
    (folder / "l").symlink_to(secret)
    toml = folder / "report.toml"
    text = toml.read_text(encoding="utf-8")
    glob = '[[sources]]\npath = "*/*"\nformat = "iogen"\n\n[[sources]]'
    toml.write_text(text.replace("[[sources]]", glob, 1), encoding="utf-8")
    ran = iopress("build", folder, "-o", tmp_path / "out")
    assert ran.returncode == 1 and "'l' (a link) leads outside" in ran.stderr, ran
    assert "SECRETNAME" not in ran.stderr + ran.stdout
