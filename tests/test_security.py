"""Attacks by a report folder. A report folder is untrusted input: auditors build folders
that vendors sent them. Each test is one reproduction and states the REQUIRED behaviour:
the attack is refused with a message naming the file and place (exit 1), or a usage
error (exit 2), never a traceback, never a side effect outside the output folder.

Most attacks run the CLI in the test's process (``tests.cli``): they must be refused
before any harm, and an answer takes milliseconds there. What could hang, eat memory or
needs a process of its own runs ``isolated``: as a subprocess (``python -m pipeline.cli``)
with a memory ceiling (RLIMIT_DATA, so that a memory bomb cannot take the machine down)
and its own process group (so that a test that times out leaves no process behind):
template bombs, a huge file, a tampered disk cache (the process holds no conversion in
memory), kills. Full builds are slow: the site attacks share one build (``xss``); most
other attacks must fail before any chart is drawn.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import IO

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from tests.chromium import CHROMIUM, browser
from tests.cli import iopress as in_process
from tests.conftest import DATA, FS840, ROOT, once_per_run, pdf_text
from tests.serve import served

MIXED = DATA / "reports" / "mixed"
FIO_LOG = DATA / "fio-log"
MEMORY_CEILING = 4 << 30  # bytes of data segment per process


# --- running the CLI ---------------------------------------------------------------------


@dataclass
class Run:
    code: int | None  # None: killed after the timeout
    out: str
    err: str
    seconds: float
    max_rss_kib: int

    @property
    def text(self) -> str:
        return self.out + self.err

    def __str__(self) -> str:
        return f"exit {self.code} after {self.seconds:.1f} s\n{self.text[-3000:]}"


def _ceiling(limit: int = MEMORY_CEILING) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return apply


def cli_env(**extra: str | Path) -> dict[str, str]:
    """The environment of a CLI run: this checkout's code first, wide lines (rich wraps
    at 80 columns otherwise), no colour; IOPRESS_CACHE is the session's (tests.conftest)
    unless given."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(COLUMNS="1000", NO_COLOR="1", TERM="dumb")
    env.update({k: str(v) for k, v in extra.items()})
    return env


@dataclass
class Job:
    """A CLI process started in its own process group, its output going to files."""

    proc: subprocess.Popen[bytes]
    out: IO[bytes]
    err: IO[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def texts(self) -> tuple[str, str]:
        found = []
        for stream in (self.out, self.err):
            stream.seek(0)
            found.append(stream.read().decode("utf-8", "replace"))
            stream.close()
        return found[0], found[1]


def start(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None, ceiling: int = MEMORY_CEILING
) -> Job:
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # noqa: SIM115 (Job.texts)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)],
        cwd=cwd,
        env=env or cli_env(),
        stdout=out,
        stderr=err,
        start_new_session=True,
        preexec_fn=_ceiling(ceiling),
    )
    return Job(proc, out, err)


def finish(job: Job, timeout: float) -> Run:
    """Wait for ``job`` (killing its whole process group after ``timeout``)."""
    began = time.monotonic()
    deadline = began + timeout
    code: int | None
    while True:
        pid, status, usage = os.wait4(job.pid, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(job.pid, signal.SIGKILL)
            _, _, usage = os.wait4(job.pid, 0)
            code = None
            break
        time.sleep(0.05)
    job.proc.returncode = -1 if code is None else code
    out, err = job.texts()
    return Run(code, out, err, time.monotonic() - began, usage.ru_maxrss)


def isolated(
    *args: str | Path,
    cwd: Path,
    timeout: float = 300,
    env: dict[str, str] | None = None,
    ceiling: int = MEMORY_CEILING,
) -> Run:
    """The CLI as a process of its own (memory ceiling, own process group, killed after
    ``timeout``)."""
    return finish(start(*args, cwd=cwd, env=env, ceiling=ceiling), timeout)


def iopress(*args: str | Path, cwd: Path, **env: str | Path) -> Run:
    """The CLI in this process (``tests.cli``), ``env`` added to the environment."""
    began = time.monotonic()
    ran = in_process(*args, cwd=cwd, **env)
    return Run(ran.returncode, ran.stdout, ran.stderr, time.monotonic() - began, 0)


def assert_refused(run: Run, *words: str, code: int = 1) -> None:
    """Refused with exit ``code``, a message holding every one of ``words``, no traceback."""
    assert run.code is not None, f"still running after {run.seconds:.0f} s (killed)"
    assert "Traceback" not in run.text, f"traceback instead of a message:\n{run}"
    assert run.code == code, f"expected exit {code}:\n{run}"
    for word in words:
        assert word in run.text, f"message does not name {word!r}:\n{run}"


# --- report folders ----------------------------------------------------------------------


SMALL_BLOCKS = {"1K", "4K", "256K"}  # every profile the fs840 narrative names


def copy_report(tmp_path: Path, source: Path = FS840, name: str = "report") -> Path:
    """A copy of ``source``; fs840 trimmed to the three block sizes its texts name, so
    each build draws half the charts (the attacks do not depend on the others)."""
    report = Path(shutil.copytree(source, tmp_path / name, symlinks=True))
    if source == FS840:
        raw = report / "raw" / "fs840.iogen.csv"
        lines = raw.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [
            ln for ln in lines if ";" not in ln or ln.split(";")[2] in SMALL_BLOCKS | {"block_size"}
        ]
        raw.write_text("".join(kept), encoding="utf-8")
    return report


def append_line(path: Path, text: str) -> int:
    """Append ``text`` as a paragraph of its own; its (first) line number."""
    before = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(f"{before}\n\n{text}\n", encoding="utf-8")
    return before.count("\n") + 3


def edit_toml(report: Path, old: str, new: str) -> None:
    toml = report / "report.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text, old
    toml.write_text(text.replace(old, new), encoding="utf-8")


def toml_string(value: str) -> str:
    """A TOML basic string (JSON escapes are TOML escapes; no surrogate escapes)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def snapshot(root: Path) -> list[tuple[str, str]]:
    """Every entry below ``root`` with its content hash (or link target)."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found.append((rel, "-> " + os.readlink(path)))
        elif path.is_dir():
            found.append((rel, "dir"))
        else:
            found.append((rel, hashlib.sha256(path.read_bytes()).hexdigest()))
    return found


def leftovers(*folders: Path) -> list[str]:
    """Staging and scratch folders a build left behind."""
    pattern = re.compile(r"^\..*\.(tmp|old)-|^iopress-site-|^iopress-")
    return sorted(
        str(p)
        for folder in folders
        if folder.is_dir()
        for p in folder.iterdir()
        if pattern.match(p.name)
    )


def found_in_output(needle: str, run: Run, out: Path) -> list[str]:
    """Where ``needle`` shows: the run's messages, any output file, any PDF's text."""
    places = ["messages"] if needle in run.text else []
    if out.is_dir():
        for path in sorted(p for p in out.rglob("*") if p.is_file()):
            data = path.read_bytes()
            if needle.encode() in data or (path.suffix == ".pdf" and needle in pdf_text(path)):
                places.append(str(path.relative_to(out)))
    return places


# Staging folders of "-o out", "-o ." and "-o .." that a build with a relative output
# folder may wrongly make in the project folder (mkdocs resolves its site_dir there).
STRAY_IN_ROOT = (".out.tmp-", "..tmp-", "....tmp-")


@pytest.fixture(autouse=True)
def _project_folder_kept_clean() -> Iterator[None]:
    """The project folder is not ours to litter: take back what a failing build made."""
    before = set(os.listdir(ROOT))
    yield
    for name in set(os.listdir(ROOT)) - before:
        if name.startswith(STRAY_IN_ROOT):
            shutil.rmtree(ROOT / name, ignore_errors=True)


# --- 1. template injection ---------------------------------------------------------------

INJECTIONS = {
    "shell": "{{ cycler.__init__.__globals__.os.popen('touch MARKER').read() }}",
    "huge_list": "{{ range(10**9)|list }}",
    "nested_loop": (
        "{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}"
    ),
}


@pytest.mark.parametrize("payload", INJECTIONS)
def test_template_injection_fails_the_build(payload: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    marker = tmp_path / "MARKER"
    summary = report / "text" / "en" / "summary.md"
    line = append_line(summary, INJECTIONS[payload].replace("MARKER", str(marker)))
    run = isolated("build", report, "-o", tmp_path / "out", cwd=tmp_path, timeout=60)
    assert not marker.exists(), "a placeholder ran a shell command"
    assert_refused(run, "text/en/summary.md", f"line {line}")
    assert not (tmp_path / "out").exists()


# Within the allowed constructs (issue 32): a value's method and a huge number of places
# took 20 GB and 435 s (SIGTERM did not stop it: the string is made in one C call).
PLACEHOLDER_BOMBS = {
    "zfill": "{{ vendor.zfill(3000000000) }}",
    "rjust": "{{ system.rjust(400000000) }}",
    "places": '{{ value("cost", "FS 900", "price_per_tb", places=1000000000) }}',
}


@pytest.mark.parametrize("payload", PLACEHOLDER_BOMBS)
def test_placeholder_cannot_exhaust_memory_or_time(payload: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    line = append_line(report / "text" / "en" / "summary.md", PLACEHOLDER_BOMBS[payload])
    run = isolated("tables", report, cwd=tmp_path, timeout=60, ceiling=1 << 30)
    assert_refused(run, "text/en/summary.md", f"line {line}")
    assert run.seconds < 30, run


@pytest.mark.parametrize("command", ["tables", "verify", "datasheet"])
def test_template_injection_refused_by_every_command(command: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    marker = tmp_path / "MARKER"
    summary = report / "text" / "de" / "summary.md"
    line = append_line(summary, INJECTIONS["shell"].replace("MARKER", str(marker)))
    extras: dict[str, list[str | Path]] = {
        "tables": [],
        "verify": ["--published", report / "published" / "seed000.csv"],
        "datasheet": ["-o", tmp_path / "sheet"],
    }
    extra = extras[command]
    run = iopress(command, report, *extra, cwd=tmp_path)
    assert not marker.exists(), f"iopress {command}: a placeholder ran a shell command"
    code = 2 if command == "verify" else 1  # verify's 1 is a differing figure
    assert_refused(run, "text/de/summary.md", f"line {line}", code=code)


# --- 2. and 3. where the output goes -----------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """parent/ holding the report, another file and a working folder with a file."""
    parent = tmp_path / "parent"
    copy_report(parent)
    (parent / "other.txt").write_text("not iopress's\n")
    (parent / "work").mkdir()
    (parent / "work" / "notes.txt").write_text("mine\n")
    return parent


@pytest.mark.parametrize("target", ["report", "parent", ".", ".."])
def test_output_over_the_report_or_a_foreign_folder_is_refused(target: str, tree: Path) -> None:
    out = {"report": str(tree / "report"), "parent": str(tree)}.get(target, target)
    before = snapshot(tree)
    run = iopress("build", tree / "report", "-o", out, cwd=tree / "work")
    assert snapshot(tree) == before, f"-o {target} changed the files there\n{run}"
    assert leftovers(tree, tree / "work") == []
    assert_refused(run, code=2)


@pytest.mark.slow
def test_relative_output_into_empty_folder_then_over_earlier_output(tmp_path: Path) -> None:
    """A relative output folder is the working folder's (not the project's, where mkdocs
    would resolve it); an empty folder is fine, and so is an earlier iopress output: it is
    replaced. (A missing folder: every other build here.)"""
    report = copy_report(tmp_path, MIXED)
    cwd = tmp_path / "elsewhere"
    out = cwd / "out"
    out.mkdir(parents=True)
    in_root = set(os.listdir(ROOT))
    first = iopress("build", report.resolve(), "-o", "out", cwd=cwd)
    assert sorted(set(os.listdir(ROOT)) - in_root) == [], f"the build wrote into {ROOT}"
    assert first.code == 0, first
    (out / "stray.txt").write_text("left from last time\n")
    again = iopress("build", report, "-o", out, "--force", cwd=tmp_path)
    assert again.code == 0, again
    assert (out / "site" / "index.html").is_file() and not (out / "stray.txt").exists()
    assert leftovers(tmp_path, cwd) == []


# --- 4. and 5. files outside the report folder -------------------------------------------

SECRET = "SECRET-7f3a9c"


def _narrative_link(report: Path, outside: Path) -> str:
    secret = outside / "secret.md"
    secret.write_text(f"Conclusion: {SECRET}\n", encoding="utf-8")
    conclusion = report / "text" / "en" / "conclusion.md"
    conclusion.unlink()
    conclusion.symlink_to(secret)
    return "text/en/conclusion.md"


def _raw_file_link(report: Path, outside: Path) -> str:
    raw = report / "raw" / "fs840.iogen.csv"
    text = raw.read_text(encoding="utf-8")
    (outside / "fs840.iogen.csv").write_text(f"# {SECRET}\n{text}", encoding="utf-8")
    raw.unlink()
    raw.symlink_to(outside / "fs840.iogen.csv")
    return "raw/fs840.iogen.csv"


def _raw_folder_link(report: Path, outside: Path) -> str:
    shutil.move(report / "raw", outside / "raw")
    (outside / "raw" / SECRET).write_text("a file whose name is secret\n")
    (report / "raw").symlink_to(outside / "raw", target_is_directory=True)
    return "raw/fs840.iogen.csv"


@pytest.mark.parametrize("link", [_narrative_link, _raw_file_link, _raw_folder_link])
def test_symlink_out_of_the_report_folder_is_refused(
    link: Callable[[Path, Path], str], tmp_path: Path
) -> None:
    report = copy_report(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    name = link(report, outside)
    out = tmp_path / "out"
    run = iopress("build", report, "-o", out, cwd=tmp_path)
    assert found_in_output(SECRET, run, out) == []
    assert_refused(run, name, "outside the report folder")


@pytest.mark.parametrize("form", ["report-relative .toml", "catalogue id"])
def test_spc1_record_outside_the_folder_is_not_read(form: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    creds = tmp_path / "private" / "creds.toml"
    creds.parent.mkdir()
    creds.write_text('password = "s3cret"\n', encoding="utf-8")
    # a .toml name is resolved against the report folder, an id against data/spc1/
    target = creds if form.endswith(".toml") else creds.with_suffix("")
    name = "../" * 30 + str(target.relative_to("/"))
    edit_toml(report, 'spc1 = ["AE00008", "A00163"]', f"spc1 = [{toml_string(name)}]")
    run = iopress("tables", report, cwd=tmp_path)
    assert "password" not in run.text and "s3cret" not in run.text, f"record was read:\n{run}"
    assert_refused(run, "spc1[0]")


# --- 6. files read beside a raw file -----------------------------------------------------

JOB_FILE = """[global]
ioengine=null
[win]
rw=randrw
rwmixread=70
bs=4k
numjobs=2
iodepth=2
log_avg_msec=200
write_iops_log=win
write_bw_log=win
write_lat_log=win
"""


def fio_log_report(tmp_path: Path) -> Path:
    """The mixed report plus fio interval logs in raw/ (their job described nowhere)."""
    report = copy_report(tmp_path, MIXED)
    for log in FIO_LOG.glob("win_*.log"):  # both clones: one alone is refused
        shutil.copy(log, report / "raw" / log.name)
    toml = report / "report.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8")
        + '\n[[sources]]\npath = "raw/win_iops.1.log"\nformat = "fio-log"\n',
        encoding="utf-8",
    )
    return report


def _json_in_parent(report: Path, outside: Path) -> None:
    shutil.copy(FIO_LOG / "win.json", report.parent / "win.json")


def _json_link(report: Path, outside: Path) -> None:
    shutil.copy(FIO_LOG / "win.json", outside / "win.json")
    (report / "raw" / "win.json").symlink_to(outside / "win.json")


def _job_file_link(report: Path, outside: Path) -> None:
    (outside / "win.fio").write_text(JOB_FILE, encoding="utf-8")
    (report / "raw" / "win.fio").symlink_to(outside / "win.fio")


@pytest.mark.parametrize("place", [_json_in_parent, _json_link, _job_file_link])
def test_fio_job_description_outside_the_folder_is_not_used(
    place: Callable[[Path, Path], None], tmp_path: Path
) -> None:
    report = fio_log_report(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    place(report, outside)
    run = iopress("tables", report, cwd=tmp_path)
    assert_refused(run)
    assert any(name in run.text for name in ("win_iops.1.log", "win.json", "win.fio")), run


VDBENCH_TOTALS = """<pre>
10:00:00.000 Starting RD=seq_rd; I/O rate: Uncontrolled MAX; elapsed=10; For loops: threads=8
10:00:10.000  avg_2-3   99999.00  9999.00  262144  100.00  0.100  0.100  0.000  1.000  0.100  0.0
</pre>
"""


def test_vdbench_totals_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    from pipeline.errors import InputError, InputErrors
    from pipeline.prepare import prepare

    report = copy_report(tmp_path, MIXED)
    (tmp_path / "totals.html").write_text(VDBENCH_TOTALS, encoding="utf-8")
    (report / "raw" / "totals.html").symlink_to(tmp_path / "totals.html")
    try:
        notes = prepare(report).dataset.notes
    except (InputError, InputErrors) as err:
        assert "totals.html" in str(err)
        return
    used = [n for n in notes if "totals.html agrees" in n or "totals.html DIFFERS" in n]
    assert used == [], "totals.html outside the report folder was read as a cross-check"


@pytest.mark.slow
def test_a_build_makes_no_temporary_file_outside_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing goes to TMPDIR, not even for a moment: with TMPDIR a file, in which no file
    can be made, any temporary file made there fails the build (the staging folder beside
    the output is the build's only scratch space)."""
    report = copy_report(tmp_path, MIXED)
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setattr(tempfile, "tempdir", str(blocked))
    out, cache = tmp_path / "out", tmp_path / "cache"  # an empty cache: everything is made
    run = iopress("build", report, "-o", out, cwd=tmp_path, IOPRESS_CACHE=cache, TMPDIR=blocked)
    assert run.code == 0, run
    assert (out / "tables" / "tables.xlsx").is_file()  # xlsxwriter wrote a file per part


def test_workbook_cells_are_text_never_formulas_or_links(tmp_path: Path) -> None:
    """A name from the report that looks like a formula or an address stays text in the
    XLSX workbook: a vendor's =HYPERLINK(...) must not become live in an auditor's
    spreadsheet."""
    from pipeline.prepare import prepare
    from pipeline.render.workbook import write as write_workbook

    report = copy_report(tmp_path)  # a cost row names its system: a text cell
    payload = '=HYPERLINK("http://evil.example/","see")'
    edit_toml(report, 'system = "FS 840"', f"system = {toml_string(payload)}")
    write_workbook(prepare(report), tmp_path / "tables.xlsx")
    with zipfile.ZipFile(tmp_path / "tables.xlsx") as book:
        parts = {n: book.read(n).decode("utf-8") for n in book.namelist()}
    sheets = [text for name, text in parts.items() if name.startswith("xl/worksheets/")]
    assert sheets and not [s for s in sheets if "<f>" in s or "<hyperlink" in s]
    assert payload in parts["xl/sharedStrings.xml"]  # the name, as text


def test_files_read_beside_raw_files_are_listed_as_inputs(tmp_path: Path) -> None:
    from pipeline import manifest
    from pipeline.prepare import prepare

    report = fio_log_report(tmp_path)
    shutil.copy(FIO_LOG / "win.json", report / "raw" / "win.json")
    (report / "raw" / "totals.html").write_text(VDBENCH_TOTALS, encoding="utf-8")
    ctx = prepare(report)
    assert any("totals.html" in n for n in ctx.dataset.notes), "totals.html was not read"
    listed = {entry["path"] for entry in manifest.manifest(ctx)["inputs"]}
    assert {"raw/win.json", "raw/totals.html"} <= listed, sorted(listed)


# --- 7. script in the site ---------------------------------------------------------------

TITLE = "</title><script>alert(5)</script>"
SYSTEM = "ACME <img src=x onerror=alert(6)> [x](javascript:alert(7)) *bold*"
PWN = "document.documentElement.setAttribute('data-'+'pwned','1')"
PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    'A paragraph with attributes.\n{: onmouseover="alert(3)" }',
    "[click](javascript:alert(4))",
    "System: {{ system }}",
    f"<script>{PWN}</script>",
    f'<img src=x onerror="{PWN}">',
]


@dataclass
class Built:
    run: Run
    out: Path
    report: Path
    cache: Path


@pytest.fixture(scope="session")
def xss(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """One full build with every site payload: title, system name, summary, conclusion
    (made once per test run, shared by the parallel workers)."""
    return once_per_run(tmp_path_factory, "xss", _xss_build)


def _xss_build(tmp: Path) -> Built:
    tmp.mkdir()
    report = copy_report(tmp)
    for old in (
        "IBM Full Flash Storage für Kern-Applikationen auf Power Systemen",
        "IBM all-flash storage for core applications on Power Systems",
    ):
        edit_toml(report, toml_string(old), toml_string(TITLE))
    edit_toml(report, 'name = "IBM FlashSystem 840"', f"name = {toml_string(SYSTEM)}")
    for lang in ("de", "en"):
        for section in ("summary", "conclusion"):
            append_line(report / "text" / lang / f"{section}.md", "\n\n".join(PAYLOADS))
    cache = tmp / "cache"
    out = tmp / "out"
    run = iopress("build", report, "-o", out, cwd=tmp, IOPRESS_CACHE=cache)
    return Built(run, out, report, cache)


THEME_SCRIPTS = (  # mkdocs-material's own inline scripts
    '<script id="__config" type="application/json">',
    "<script>__md_scope=",
    "<script>var tabs=__md_get(",
    "<script>var target=document.getElementById(",
)
OWN_SCRIPT_SRC = re.compile(r'<script src="(?:/|(?:\.\./)*)(?:assets|search)/[\w./-]+">')
# a chart's Vega-Lite spec: JSON data, never run, with no "<" that could end it early (as
# Python-Markdown writes the element: its attributes sorted)
CHART_SPEC = re.compile(r'<script class="iop-spec" type="application/json">[^<]*</script>')


class _Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _dangerous(page: str) -> list[str]:
    """Script tags not of the site, event handler attributes, javascript: URLs."""
    found = [
        page[m.start() : m.start() + 80]
        for m in re.finditer(r"<script", page, re.IGNORECASE)
        if not (
            page.startswith(THEME_SCRIPTS, m.start())
            or OWN_SCRIPT_SRC.match(page, m.start())
            or CHART_SPEC.match(page, m.start())
        )
    ]
    parser = _Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:
        for name, value in attrs:
            url = re.sub(r"[\s\x00-\x1f]", "", value or "").lower()
            if name.startswith("on") or url.startswith(("javascript:", "vbscript:")):
                found.append(f"<{tag} {name}={value!r}>")
            if tag == "img" and name == "src" and value == "x":
                found.append("<img src=x> (an injected element)")
    return found


def test_site_pages_hold_no_injected_script(xss: Built) -> None:
    assert xss.run.code == 0, xss.run
    site = xss.out / "site"
    found = {
        str(page.relative_to(site)): hits
        for page in sorted(site.rglob("*.html"))
        if (hits := _dangerous(page.read_text(encoding="utf-8")))
    }
    assert found == {}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_site_payloads_do_not_run_in_a_browser(xss: Built, tmp_path: Path) -> None:
    assert xss.run.code == 0, xss.run
    with served(xss.out / "site") as base, browser(tmp_path / "profile") as chromium:
        dom, _ = chromium.load(base + "/fs840.html")
    assert chromium.dialogs == [], "an injected script opened a dialog"
    assert "<html" in dom
    assert 'data-pwned="1"' not in dom, "an injected script ran"
    injected = re.findall(r"<(?:img|a|p)\b[^<>]*\s(?:on\w+=|src=\"x\"|href=\"javascript:)", dom)
    assert injected == []


def _link_targets(pdf: Path) -> list[str]:
    targets = []
    for page in PdfReader(pdf).pages:
        annots = page.get("/Annots")
        for annot in annots.get_object() if annots else []:
            action = annot.get_object().get("/A")
            if action:
                targets.append(str(action.get_object().get("/URI", "")))
    return targets


def test_pdf_shows_payloads_literally_or_not_at_all(xss: Built) -> None:
    assert xss.run.code == 0, xss.run
    for lang in ("de", "en"):
        pdf = xss.out / f"fs840.{lang}.pdf"
        flat = re.sub(r"\s+", "", pdf_text(pdf))
        for payload in [TITLE, SYSTEM, *PAYLOADS]:
            literal = re.sub(r"\s+", "", payload.replace("{{ system }}", SYSTEM))
            for call in re.findall(r"alert\(\d\)", literal):
                assert call not in flat or literal in flat, f"{lang}: {payload!r} mangled"
        scripts = [u for u in _link_targets(pdf) if u.strip().lower().startswith("javascript:")]
        assert scripts == [], f"{lang}: javascript: link in the PDF"


# --- 8. the cache ------------------------------------------------------------------------

TAMPERED_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50">'
    b'<text x="10" y="30">TAMPERED</text></svg>'
)


@pytest.mark.slow
def test_tampered_cache_never_reaches_the_output(xss: Built, tmp_path: Path) -> None:
    assert xss.run.code == 0, xss.run
    cache = Path(shutil.copytree(xss.cache, tmp_path / "cache"))
    entries = sorted(p for p in cache.rglob("*") if p.is_file())
    svgs = [p for p in entries if b"<svg" in p.read_bytes()]
    others = sorted((p for p in entries if p not in svgs), key=lambda p: p.stat().st_size)
    assert svgs and others
    for path in svgs[:: max(1, len(svgs) // 3)]:  # a few: each is checked on its own
        path.write_bytes(TAMPERED_SVG)
    # issue 32: the forger recomputes the content hash an entry carried; a FIFO hung
    for path in svgs[1 :: max(1, len(svgs) // 3)]:
        path.write_bytes(hashlib.sha256(TAMPERED_SVG).digest() + TAMPERED_SVG)
    fifo = others[0]
    fifo.unlink()
    os.mkfifo(fifo)
    truncated = others[-1]
    whole = truncated.read_bytes()
    truncated.write_bytes(whole[: len(whole) // 2])
    out = tmp_path / "out"
    run = isolated("build", xss.report, "-o", out, cwd=tmp_path, env=cli_env(IOPRESS_CACHE=cache))
    assert run.code == 0, run
    assert fifo.is_file() and not fifo.is_fifo()
    assert found_in_output("TAMPERED", run, out) == []
    for pdf in sorted(out.glob("*.pdf")):
        assert len(PdfReader(pdf).pages) == len(PdfReader(xss.out / pdf.name).pages), pdf
    bundle = Path("site/assets/vega-embed.js")
    assert (out / bundle).read_bytes() == (xss.out / bundle).read_bytes()
    # the bad entries were made again, so a later build cannot meet them either
    assert [p for p in cache.rglob("*") if p.is_file() and b"TAMPERED" in p.read_bytes()] == []
    assert truncated.read_bytes() == whole


# --- 9. and 10. bad input ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        (
            'en = "FS840 attached to p760 and S824"',
            'en = "FS840\\u0000 attached to p760 and S824"',
            "setups[0].description",
        ),
        ('name = "p760"', 'name = "p7\\u000060"', "hosts[0].name"),
    ],
)
def test_nul_in_a_label_is_refused(old: str, new: str, field: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    edit_toml(report, old, new)
    run = iopress("build", report, "-o", tmp_path / "out", cwd=tmp_path)
    assert run.code is not None and run.code >= 0, f"crashed by a signal:\n{run}"
    assert_refused(run, "report.toml", field)


def test_report_toml_with_bom_is_accepted(tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    toml = report / "report.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes())
    run = iopress("tables", report, "--lang", "en", cwd=tmp_path)
    assert run.code == 0, run
    assert "1,008,045" in run.out


def test_report_toml_in_latin1_names_the_line(tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    toml = report / "report.toml"
    data = toml.read_text(encoding="utf-8").encode("latin-1", errors="replace")
    first = next(i for i, b in enumerate(data) if b >= 0x80)
    line = data[:first].count(b"\n") + 1
    toml.write_bytes(data)
    run = iopress("tables", report, cwd=tmp_path)
    assert_refused(run, "report.toml", f"line {line}")


def test_narrative_with_invalid_utf8_names_file_and_line(tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    method = report / "text" / "en" / "method.md"
    line = append_line(method, "placeholder")
    method.write_bytes(method.read_bytes().replace(b"placeholder", b"caf\xe9 \xff\xfe"))
    run = iopress("tables", report, cwd=tmp_path)
    assert_refused(run, "text/en/method.md", f"line {line}")


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("price = 250000", "price = inf", "cost[0].price"),
        ("capacity_tb = 20\n", "capacity_tb = nan\n", "cost[0].capacity_tb"),
        ("old_ms = 5\n", "old_ms = inf\n", "speedup[0].old_ms"),
    ],
)
def test_non_finite_number_is_refused(old: str, new: str, field: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    edit_toml(report, old, new)
    run = iopress("tables", report, cwd=tmp_path)
    assert_refused(run, "report.toml", field)


def test_huge_sparse_raw_file_is_refused_quickly(tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    raw = report / "raw" / "fs840.iogen.csv"
    raw.unlink()
    with raw.open("wb") as fh:
        fh.truncate(2 << 30)
    run = isolated("tables", report, cwd=tmp_path, timeout=30)
    assert run.max_rss_kib < 1 << 20, f"{run.max_rss_kib // 1024} MiB used\n{run}"
    assert_refused(run, "raw/fs840.iogen.csv")


@pytest.mark.parametrize("link", ["[see](#nowhere)", "as shown in @fig-missing"])
def test_reference_to_a_missing_label_names_the_file(link: str, tmp_path: Path) -> None:
    report = copy_report(tmp_path)
    summary = report / "text" / "en" / "summary.md"
    append_line(summary, link)
    run = iopress("build", report, "-o", tmp_path / "out", cwd=tmp_path)
    assert_refused(run, "text/en/summary.md")


# --- 11. kill -9 mid-build ---------------------------------------------------------------


def _children(pid: int) -> dict[int, str]:
    """Descendants of ``pid``: pid -> start time and command line (to know them again)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        current = todo.pop()
        for child, parent in parents.items():
            if parent == current and child not in found:
                found[child] = _identity(child) or ""
                todo.append(child)
    return found


def _identity(pid: int) -> str | None:
    """Start time and command line of a live (not zombie) process, else None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return None
    return None if stat[0] in "ZX" else f"{stat[19]} {cmdline.decode(errors='replace')}"


def _kill_when(job: Job, ready: Callable[[], bool], limit: float) -> dict[int, str]:
    """SIGKILL the build (its process only, as the OOM killer or a power cut would) once
    ``ready()`` or after ``limit`` seconds; its descendants at that moment."""
    deadline = time.monotonic() + limit
    while not ready() and time.monotonic() < deadline and job.proc.poll() is None:
        time.sleep(0.05)
    assert job.proc.poll() is None, f"the build ended before it could be killed: {job.texts()}"
    workers = _children(job.pid)
    os.kill(job.pid, signal.SIGKILL)
    job.proc.wait()
    job.texts()
    return workers


def _alive(processes: dict[int, str], grace: float = 10.0) -> list[str]:
    """Which of ``processes`` (pid -> identity) still run after ``grace`` seconds: an
    orphan finishing its last drawing on a loaded machine is no leak, one that stays is."""
    deadline = time.monotonic() + grace
    while True:
        alive = [f"{pid}: {who}" for pid, who in processes.items() if _identity(pid) == who]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def _making_site(parent: Path, tmpdir: Path) -> bool:
    """Has the site stage begun (its scratch folder in TMPDIR or in the staging folder)?
    A staging folder may be swapped in while it is looked at: then the answer is no."""
    try:
        return any(tmpdir.glob("iopress-site-*")) or any(parent.glob(".out.*/*site*"))
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_build_killed_midway_leaves_nothing_and_next_build_works(tmp_path: Path) -> None:
    report = copy_report(tmp_path, MIXED)  # small: three builds follow
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    env = cli_env(IOPRESS_CACHE=cache, TMPDIR=tmpdir)
    survivors: dict[int, str] = {}
    groups = []
    try:
        # first while the texts are converted (pandoc processes running) and the charts
        # drawn on their threads, then while the site is made (a fresh cache: the charts
        # must be drawn)
        first = start("build", report, "-o", out, cwd=tmp_path, env=env)
        groups.append(first.pid)
        survivors |= _kill_when(
            first, lambda: any("pandoc" in c for c in _children(first.pid).values()), 20
        )
        second = start("build", report, "-o", out, cwd=tmp_path, env=env)
        groups.append(second.pid)
        survivors |= _kill_when(second, lambda: _making_site(tmp_path, tmpdir), 20)
        # the next build in this process: what only a process of its own would show was
        # shown by the two that were killed
        run = iopress("build", report, "-o", out, cwd=tmp_path, IOPRESS_CACHE=cache, TMPDIR=tmpdir)
        assert run.code == 0, run
        assert (out / "site" / "index.html").is_file()
        found = {"left behind": leftovers(tmp_path, tmpdir), "still running": _alive(survivors)}
        assert found == {"left behind": [], "still running": []}
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)


# --- fuzzing labels and narrative --------------------------------------------------------

NASTY = st.sampled_from(
    [
        "{{",
        "}}",
        "{%",
        "%}",
        "{#",
        "\x00",
        "\x1b[31m",
        "\u202e",
        "\r",
        "\n",
        "\\",
        "<script>alert(1)</script>",
        "</div>",
        "<!--",
        "#",
        "*",
        "_",
        "$",
        "`",
        "|",
        "@fig-x",
        "[a](#b)",
        "{: onclick=x }",
        "#set page(width: 1pt)",
        '#import "/etc/passwd"',
        "{{ system }}",
        "{{ 1/0 }}",
        "]",
        ")",
        '"',
        "'",
    ]
)
FUZZ_TEXT = st.lists(st.one_of(st.text(max_size=10), NASTY), max_size=6).map("".join)


@pytest.fixture(scope="module")
def fuzz_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_report(tmp_path_factory.mktemp("fuzz"), MIXED)


def _fuzz_report(base: Path, folder: Path, title: str, system: str, setup: str, text: str) -> None:
    shutil.copytree(base, folder)
    toml = folder / "report.toml"
    lines = [
        f"title = {toml_string(title)}" if ln.startswith("title = ") else ln
        for ln in toml.read_text(encoding="utf-8").splitlines()
    ]
    body = "\n".join(lines).replace(
        'name = "Test System #1 <A&B>"', f"name = {toml_string(system)}"
    )
    body += (
        f'\n[[setups]]\nname = "default"\ndescription = {toml_string(setup)}\n'
        f"\n[[hosts]]\nname = {toml_string(system)}\ndescription = {toml_string(setup)}\n"
    )
    toml.write_text(body, encoding="utf-8")
    for lang in ("de", "en"):
        (folder / "text" / lang / "summary.md").write_text(text, encoding="utf-8")


@settings(
    max_examples=15,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(title=FUZZ_TEXT, system=FUZZ_TEXT, setup=FUZZ_TEXT, text=FUZZ_TEXT)
@example(title="T", system="S", setup="s", text="Result: {{ 1/0 }}")
@example(title="T\x00", system="S <b>", setup="s\x00", text="text\x00 {{ system }}")
def test_fuzzed_labels_and_narrative_give_a_document_or_an_input_error(
    fuzz_base: Path, title: str, system: str, setup: str, text: str
) -> None:
    from pipeline.errors import InputError, InputErrors
    from pipeline.prepare import prepare
    from pipeline.render import site, whitepaper

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "report"
        _fuzz_report(fuzz_base, folder, title, system, setup, text)
        try:
            ctx = prepare(folder)
            bodies = [whitepaper.body(ctx, lang) for lang in ("de", "en")]
            pages = site.pages([site.Built(ctx, folder)])
        except (InputError, InputErrors):
            return
        assert all(bodies) and pages


def _png() -> bytes:
    """A valid 1×1 PNG."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
    )


def test_a_chart_pdf_reads_no_file_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chart's PDF is made from its SVG given as bytes; an image the SVG links to is not
    looked up in the working directory (typst's default root for such a source)."""
    import typst

    from pipeline.vlrender import svg_to_pdf

    (tmp_path / "secret.png").write_bytes(_png())
    monkeypatch.chdir(tmp_path)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        '<image href="secret.png" width="10" height="10"/></svg>'
    )
    with pytest.raises(typst.TypstError, match="not found"):
        svg_to_pdf(svg)
