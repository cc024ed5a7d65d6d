"""The output cache and the build fingerprint: what makes a second build cheap must never
make it wrong."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from pipeline import cache
from pipeline.fingerprint import fingerprint, stamp, up_to_date
from tests.conftest import FS840


@pytest.fixture()
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("IOPRESS_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_key_keeps_part_boundaries() -> None:
    assert cache.key("ab", "c") != cache.key("a", "bc")
    assert cache.key("a", b"b") == cache.key(b"a", "b")


def test_put_then_get(own_cache: Path) -> None:
    name = cache.key("x")
    assert cache.get(name) is None
    cache.put(name, b"drawing")
    assert cache.get(name) == b"drawing"
    stored = (own_cache / name[:2] / name).read_bytes()
    assert stored == hashlib.sha256(b"drawing").digest() + b"drawing"


def test_cached_makes_once(own_cache: Path) -> None:
    made: list[int] = []

    def make() -> bytes:
        made.append(1)
        return b"pdf"

    assert cache.cached(cache.key("y"), make) == cache.cached(cache.key("y"), make) == b"pdf"
    assert made == [1]


def test_unwritable_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("IOPRESS_CACHE", str(blocker))
    assert cache.cached(cache.key("z"), lambda: b"made") == b"made"
    assert cache.get(cache.key("z")) is None


@pytest.fixture()
def report(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FS840, tmp_path / "report"))


def test_fingerprint_follows_inputs_and_options(report: Path) -> None:
    before = fingerprint(report)
    assert fingerprint(report) == before
    assert fingerprint(report, "strict=True") != before
    (report / "report.toml").write_text(
        (report / "report.toml").read_text(encoding="utf-8") + "\n", encoding="utf-8"
    )
    assert fingerprint(report) != before


def test_fingerprint_sees_renamed_input(report: Path) -> None:
    before = fingerprint(report)
    first = sorted(p for p in report.rglob("*") if p.is_file())[-1]
    first.rename(first.with_name("renamed-" + first.name))
    assert fingerprint(report) != before


def test_stamp_covers_the_output_files(report: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "charts").mkdir(parents=True)
    (out / "charts" / "a.svg").write_text("<svg/>")
    print_ = fingerprint(report)
    assert not up_to_date(out, print_)
    stamp(out, print_)
    assert up_to_date(out, print_)
    assert not up_to_date(out, fingerprint(report, "other"))
    (out / "charts" / "a.svg").write_text("<svg></svg>")
    assert not up_to_date(out, print_)
    stamp(out, print_)
    (out / "charts" / "a.svg").unlink()
    assert not up_to_date(out, print_)


def test_unreadable_input_means_no_fingerprint(
    report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", unreadable)  # as for a file of another user
    assert fingerprint(report) is None
    monkeypatch.undo()
    out = tmp_path / "out"
    out.mkdir()
    stamp(out, None)
    assert not (out / ".iopress-fingerprint").exists()
    assert not up_to_date(out, None)
