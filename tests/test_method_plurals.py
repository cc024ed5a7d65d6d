"""The method section's profile sentence counts in the language's plural forms: one block
size is a "Blockgrösse", one parallelism level a "Parallelität"."""

from __future__ import annotations

import pytest

from pipeline.prepare import prepare
from pipeline.render.whitepaper import method_sentences
from tests.conftest import DATA

LEVELS = DATA / "fio-levels"


@pytest.mark.parametrize(
    ("folder", "lang", "said"),
    [
        ("qd", "de", "für die Blockgrösse 4K Random. "),
        ("qd", "en", "for the block size 4K random. "),
        ("qd", "de", "Parallelitäten pro Server: 1, 2, 4."),
        ("bs", "de", "für die Blockgrössen 512B Random, 1K Random"),
        ("bs", "de", "Parallelität pro Server: 1."),
        ("bs", "en", "Parallelism level per server: 1."),
    ],
)
def test_one_block_size_and_one_level_are_singular(folder: str, lang: str, said: str) -> None:
    ctx = prepare(LEVELS / folder)
    assert said in method_sentences(ctx, ctx.formatter(lang))[0]
