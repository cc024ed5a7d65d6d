"""Regenerate the golden typst and Markdown files of the example reports.

    make golden        (or: .venv/bin/python -m tests.regenerate_golden)

Run it after an intended change of the generated output, then review the diff
(``git diff tests/golden``) before committing.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.config import LANGS
from pipeline.prepare import prepare
from pipeline.render import site, whitepaper

GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"
NAMES = ("fs840", "a800")


def golden_files() -> dict[str, str]:
    """Relative path -> text of every golden file, generated from the examples."""
    files = {}
    for name in NAMES:
        ctx = prepare(EXAMPLES / name)
        files.update(
            {f"{name}/typst/{name}.{lang}.typ": whitepaper.body(ctx, lang) for lang in LANGS}
        )
        pages = site.pages([site.Built(ctx, Path())])
        files.update({f"{name}/site/{page}": text for page, text in pages.items()})
    return files


def main() -> None:
    for name, text in golden_files().items():
        path = GOLDEN / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
