"""Generated typst and Markdown per language equal the golden files.

Regenerate after an intended change with ``make golden`` and review the diff. The files
are generated once per session in a fixture (never while the tests are collected, so a
failure here cannot break the collection of the whole suite).
"""

from __future__ import annotations

import pytest

from tests.regenerate_golden import GOLDEN, golden_files

ON_DISK = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file())


@pytest.fixture(scope="session")
def generated() -> dict[str, str]:
    return golden_files()


def test_golden_set_is_complete(generated: dict[str, str]) -> None:
    assert sorted(generated) == ON_DISK


@pytest.mark.parametrize("name", ON_DISK)
def test_generated_equals_golden(name: str, generated: dict[str, str]) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert generated[name] == expected, f"{name} changed: run 'make golden' and review the diff"
