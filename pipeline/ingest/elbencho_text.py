"""elbencho's ``--resfile``: the result table it prints, as text. See
docs/formats/elbencho.md.

Each run appends ``ISO DATE:`` and ``COMMAND LINE:`` lines and its table: per phase an
operation row (``WRITE  Elapsed time  :  first  last``), its further result rows and
``---``. The phases become the fields of elbencho's ``--csvfile`` (its column names), the
run's settings read from its command line, so that one reader makes the rows of both."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from pipeline.errors import InputError

HINT = "give elbencho's --resfile as it wrote it, or its --csvfile"
HEADER = re.compile(r"^OPERATION\s+RESULT TYPE\s+FIRST DONE\s+LAST DONE\s*$", re.MULTILINE)
# "WRITE       Elapsed time     :    2m3.241s    2m5.755s", "            IOPS    :  1  2"
# a row's name begins and ends with a non-space (as a lazy "[^:]+?\s*", a line of spaces
# was tried in every split of them: a 10,000-character line took minutes)
ROW = re.compile(
    r"^(?P<op>[A-Z][A-Z0-9_]*)?\s+(?P<name>[^:\s](?:[^:]*[^:\s])?)\s*:\s*(?P<values>.*)$"
)
LATENCY = re.compile(
    r"\bavg=(?P<avg>[\d.]+)(?P<avg_unit>[a-zµ]*)\s.*\bmax=(?P<max>[\d.]+)(?P<max_unit>[a-zµ]*)"
)
# elapsed "2m3.241s", "30.140s", "82ms", "1h2m3s": each part a number and its unit
ELAPSED = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|us)")
UNITS_MS = {"h": 3_600_000.0, "m": 60_000.0, "s": 1000.0, "ms": 1.0, "us": 0.001}
LAT_US = {"": 1.0, "us": 1.0, "µs": 1.0, "ms": 1000.0, "s": 1_000_000.0}
# command-line options -> the --csvfile column they give, and elbencho's default
SETTINGS = {
    "block size": (("-b", "--block"), "1M"),
    "threads": (("-t", "--threads"), "1"),
    "IO depth": (("--iodepth",), "1"),
    "rwmixpct": (("--rwmixpct",), ""),
}
FLAGS = {"random": ("--rand",)}
MAX_LINE = 10_000  # elbencho's lines are short; a longer one is not its result file


def sniff(text: str) -> bool:
    return text.startswith("ISO DATE:") or bool(HEADER.search(text[:4096]))


DATE = "ISO date"  # the column of --csvfile and --jsonfile that says when the run ran
Phase = tuple[int, dict[str, str]]


def phases(path: Path, text: str) -> list[Phase]:
    """Every phase of every run, as (line of its operation row, --csvfile fields)."""
    found: list[Phase] = []
    settings: dict[str, str] = {}
    current: dict[str, str] | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        if len(line) > MAX_LINE:
            raise InputError(path, f"line {n}", "a line far longer than elbencho writes", HINT)
        if line.startswith("COMMAND LINE:"):
            command = command_settings(line.removeprefix("COMMAND LINE:"), path, n)
            settings = {DATE: settings.get(DATE, ""), **command}
        elif line.startswith("ISO DATE:"):  # a run starts: its time, as --csvfile's column
            settings = {DATE: line.removeprefix("ISO DATE:").strip()}
        elif line.strip() == "---":
            current = None
        elif (match := ROW.match(line)) and not HEADER.match(line):
            current = _row(match, settings, current, found, n)
    if not found:
        lines = text.count("\n") + 1
        where = f"lines 1–{lines}" if lines > 1 else "line 1"
        raise InputError(path, where, "no result table (OPERATION … LAST DONE) with a phase", HINT)
    return found


def _row(
    match: re.Match[str],
    settings: dict[str, str],
    current: dict[str, str] | None,
    found: list[Phase],
    n: int,
) -> dict[str, str] | None:
    """One result row: an operation row opens a phase, the rows below add to it."""
    if match["op"]:
        current = {"operation": match["op"], "_text": "1", **settings}
        found.append((n, current))
    if current is not None:
        current.update(_fields(match["name"].strip(), match["values"].strip()))
    return current


def _fields(name: str, values: str) -> dict[str, str]:
    """A result row as --csvfile columns: its LAST DONE figure ([last])."""
    last = values.split()[-1] if values.split() else ""
    if name.lower().startswith("elapsed"):
        return {"time ms [last]": _elapsed_ms(last, name)}
    if name in ("IOPS", "Throughput MiB/s"):
        return {"IOPS [last]" if name == "IOPS" else "MiB/s [last]": last}
    if name.startswith("IO latency"):
        return _latency(values, name)
    return {}


def _elapsed_ms(text: str, name: str) -> str:
    if name.endswith("ms"):  # "Elapsed ms : 6001 6001" (elbencho before 2.0)
        return text
    parts = ELAPSED.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return text  # not a time: the reader says so
    return repr(sum(float(a) * UNITS_MS[b] for a, b in parts))


def _latency(values: str, name: str) -> dict[str, str]:
    """``[ min=91 avg=120 max=1583 ]`` in µs (``IO latency us``), or each with its unit."""
    match = LATENCY.search(values)
    if not match:
        return {"IO lat us [avg]": values}  # not understood: the reader says so
    scale = 1000.0 if name.endswith(" ms") else 1.0
    avg = float(match["avg"]) * LAT_US.get(match["avg_unit"], 1.0) * scale
    top = float(match["max"]) * LAT_US.get(match["max_unit"], 1.0) * scale
    return {"IO lat us [avg]": repr(avg), "IO lat us [max]": repr(top)}


def command_settings(text: str, path: Path, line: int) -> dict[str, str]:
    """The run's settings from its command line ("--threads" "4" "--block" "128k"), as
    --csvfile columns; elbencho's defaults for those not given."""
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise InputError(
            path, f"line {line}", f"command line not understood: {err}", HINT
        ) from None
    found = {"command": text.strip(), "hosts": "1"}
    for column, (names, default) in SETTINGS.items():
        found[column] = _option(words, names) or default
    for column, names in FLAGS.items():
        found[column] = "1" if any(w in names for w in words) else "0"
    if hosts := _option(words, ("--hosts",)):
        found["hosts"] = str(len([h for h in re.split(r"[,\s]+", hosts) if h]))
    return found


def _option(words: list[str], names: tuple[str, ...]) -> str | None:
    """The value of the last of ``names`` given: "--threads 4", "--threads=4", "-t4"."""
    value = None
    for i, word in enumerate(words):
        for name in names:
            if word == name and i + 1 < len(words):
                value = words[i + 1]
            elif word.startswith(f"{name}="):
                value = word.partition("=")[2]
            elif len(name) == 2 and word.startswith(name) and len(word) > 2:
                value = word[2:]
    return value
