"""Generated typst and Markdown per language equal the golden files.

Regenerate after an intended change with ``make golden`` and review the diff.
"""

from __future__ import annotations

import pytest

from tests.regenerate_golden import GOLDEN, golden_files

GENERATED = golden_files()


def test_golden_set_is_complete() -> None:
    on_disk = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*") if p.is_file())
    assert on_disk == sorted(GENERATED)


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_equals_golden(name: str) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert GENERATED[name] == expected, f"{name} changed: run 'make golden' and review the diff"
