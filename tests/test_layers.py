"""Layers point down: a module imports only its own layer and the layers below it.

The map is the one in docs/architecture.md; every import counts, also one inside a
function or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"

# lowest first; a module belongs to the first entry its dotted name starts with
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "errors",
        "console",
        "paths",
        "units",
        "inputs",
        "images",
        "procs",
        "cache",
        "csvfile",
        "output",
        "vlrender",
        "schema",
        "tomlplace",
    ),
    ("language", "config", "machine"),
    ("ingest",),
    ("dataset", "normalise", "provenance", "validate", "fingerprint"),
    ("compute",),
    ("report",),
    ("charts", "render"),
    ("manifest", "verify", "reproduce"),
    ("build", "prepare", "publish", "campaign", "comparison"),
    ("commands", "cli"),
)


def layer_of(module: str) -> int:
    head = module.removeprefix("pipeline.").split(".")[0]
    if head.startswith("__") or module == "pipeline":
        return -1
    for index, names in enumerate(LAYERS):
        if head in names:
            return index
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every pipeline import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pipeline"):
            names = [f"{node.module}.{a.name}" for a in node.names]
            found += [(node.lineno, n if n.count(".") > 1 else node.module) for n in names]
            if node.module == "pipeline":
                found += [(node.lineno, f"pipeline.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("pipeline")]
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    here = layer_of(module_name(path))
    upward = [
        f"line {line}: {target}"
        for line, target in imported(path)
        if target != "pipeline" and layer_of(target) > here
    ]
    assert not upward, f"{path.name} (layer {here}) imports a layer above it: {upward}"


def test_every_module_has_a_layer() -> None:
    for path in MODULES:
        layer_of(module_name(path))


READERS_OPEN_TO = (("ingest",), LAYERS[3])  # the readers, and the dataset layer above them


def reads_a_reader(target: str) -> bool:
    """A reader module or the readers' registry (``ingest.base``'s record types are not)."""
    return target.startswith("pipeline.ingest") and target != "pipeline.ingest.base"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_dataset_layer_reads(path: Path) -> None:
    """Above ingest, only the dataset layer imports a reader: everything else gets what
    was read from it (``pipeline.dataset``)."""
    head = module_name(path).removeprefix("pipeline.").split(".")[0]
    if any(head in names for names in READERS_OPEN_TO):
        return
    found = [f"line {line}: {t}" for line, t in imported(path) if reads_a_reader(t)]
    assert not found, f"{path.name} imports a reader: {found}"


# the registry's name and its record types; a reader's own module is format knowledge
FORMAT_FREE = ("validate.py", "build.py", "prepare.py", "normalise.py")


@pytest.mark.parametrize("name", FORMAT_FREE)
def test_no_format_knowledge_outside_the_readers(name: str) -> None:
    """The rules and the build ask the registry (``ingest.get_format``, the options'
    protocols in ``ingest.base``), never a reader module by name."""
    found = [
        f"line {line}: {t}"
        for line, t in imported(PACKAGE / name)
        if t.startswith("pipeline.ingest.")
        and not t.startswith("pipeline.ingest.base")
        and t.removeprefix("pipeline.ingest.") not in ("get_format", "FORMATS", "REPORT")
    ]
    assert not found, f"{name} imports a reader: {found}"


# the benchmarks run code of their own in a fresh interpreter: its imports are text
READER_TEXT = re.compile(
    r"pipeline\.ingest\.(?!base\b)\w+|from pipeline import ingest|pipeline\.build import"
    r" (?:combine|split_outcomes)"
)


def test_the_benchmarks_read_through_the_dataset_layer() -> None:
    for path in sorted((PACKAGE.parent / "benchmarks").rglob("*.py")):
        found = READER_TEXT.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name}: {found}"


# what opens an input file; only report.read (and the text reader it calls) and prepare
READS = {
    *(f"pipeline.inputs.{n}" for n in ("read_bytes", "read_text", "read_head", "stream")),
    *(f"pipeline.inputs.{n}" for n in ("digest", "ledger")),
    *(f"pipeline.config.{n}" for n in ("load_report", "read_toml", "provenance_files")),
    "pipeline.machine.load_machine",
    "pipeline.images.read",
    "pipeline.dataset.sources",
    "pipeline.report.read",
}
WORKING = ("compute", "report", "charts", "render")  # work from what was read
READERS_OF_A_REPORT = ("report/read.py", "report/narrative.py")


def opens_an_input(path: Path) -> list[str]:
    found = [f"line {n}: {t}" for n, t in imported(path) if any(t.startswith(r) for r in READS)]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "images.read":
            found.append(f"line {node.lineno}: images.read")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_compute_and_render_open_no_input(path: Path) -> None:
    """Every input of a report is read by ``report.read`` (the texts' images by
    ``prepare.read_inputs``, before compute): compute, report, charts and render work
    from what it read."""
    name = str(path.relative_to(PACKAGE))
    if not name.startswith(WORKING) or name in READERS_OF_A_REPORT:
        return
    assert not opens_an_input(path), f"{name} reads an input: {opens_an_input(path)}"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from pipeline.build import build\n", encoding="utf-8")
    assert [layer_of(m) for _, m in imported(source)] == [layer_of("pipeline.build")]
    assert layer_of("pipeline.build") > layer_of("pipeline.charts.family")


ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
_PACKAGE_CELL = re.compile(r"`(\w+)/`(?: \(([^)]*)\))?")
_NAME = re.compile(r"`([a-z_][a-z_0-9]*)`")  # a module; capitalised names are its classes


def module_map() -> dict[int, tuple[set[str], dict[str, set[str]]]]:
    """docs/architecture.md's module map: per layer, its top-level names and the modules
    each of its packages lists in parentheses."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## Module map")[1]
    found = {}
    for line in section.split("\n## ")[0].splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not re.match(r" \d+ ", cells[1]):
            continue
        packages = {m[1]: set(_NAME.findall(m[2] or "")) for m in _PACKAGE_CELL.finditer(cells[2])}
        top = set(_NAME.findall(_PACKAGE_CELL.sub("", cells[2]))) | set(packages)
        found[int(cells[1].split()[0])] = (top, packages)
    return found


def test_the_module_map_names_every_module_and_only_those() -> None:
    documented = module_map()
    code_top = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    code_top |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert set().union(*(top for top, _ in documented.values())) == code_top
    for packages in (packages for _, packages in documented.values()):
        for package, listed in packages.items():
            modules = {p.stem for p in (PACKAGE / package).glob("*.py")} - {"__init__"}
            assert listed == modules, f"{package}/: {sorted(listed ^ modules)}"


def test_the_module_map_is_the_layers() -> None:
    assert {n: top for n, (top, _) in module_map().items()} == {
        n: set(names) for n, names in enumerate(LAYERS)
    }


def test_the_readmes_layout_names_what_exists() -> None:
    """README's layout table: every file or folder it names is there, those of the
    ``pipeline/`` row in the package; and it points to the architecture."""
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout")[1].split("\n## ")[0]
    assert "docs/architecture.md" in layout
    for line in layout.splitlines():
        cells = line.split("|")
        if len(cells) < 3 or not cells[1].strip().startswith("`"):
            continue
        folder = PACKAGE.parent / cells[1].strip().strip("`")
        assert folder.exists(), folder
        if folder == PACKAGE:
            named = re.findall(r"`([\w]+(?:/|\.py))`", cells[2])
            missing = [n for n in named if not (PACKAGE / n).exists()]
            assert named and not missing, missing


def test_functions_are_short() -> None:
    """The house rule: no function over 50 lines, the median about 10."""
    lengths, long = [], []
    for path in [*MODULES, *sorted((PACKAGE.parent / "benchmarks").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                lengths.append(size)
                long += [f"{path.name}:{node.lineno} {node.name}: {size}"] if size > 50 else []
    assert not long, long
    assert sorted(lengths)[len(lengths) // 2] <= 12
