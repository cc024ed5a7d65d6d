"""Format readers, in one explicit registry.

Each reader module is a ``base.Reader`` (mypy checks it): ``NAME``, ``DESCRIPTION``,
``OPTIONS`` (the report.toml source keys it reads, with their models), ``EMPTY`` (names
of files it reads though empty), ``sniff(head: bytes) -> bool`` (never raises) and
``read(path, options) -> ReadResult`` (raises ``InputError`` for a file it cannot read at
all; rejects single bad records). The order of ``FORMATS`` is the order in which sniffing
tries them: the most specific signature first.
"""

from __future__ import annotations

import contextlib
import difflib
import gc
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from pipeline import inputs, procs
from pipeline.config import Report, Source
from pipeline.errors import InputError, InputErrors
from pipeline.ingest import (
    crystaldiskmark,
    diskspd,
    elbencho,
    fio,
    fio_fast,
    fio_log,
    iogen,
    iometer,
    vdbench,
)
from pipeline.ingest.base import Reader, ReadOptions, ReadResult, Reject, batch
from pipeline.inputs import DEEP, read_head, utf8_head

# fio first: its JSON keys are unmistakable; iogen's header test is looser.
# fio_log last: its sniffer only sees rows of numbers.
FORMATS: tuple[Reader, ...] = (
    fio,
    vdbench,
    diskspd,
    crystaldiskmark,
    iometer,
    elbencho,
    iogen,
    fio_log,
)
SNIFF_BYTES = 8192


def option_models() -> dict[str, type[BaseModel]]:
    """Every report.toml source key a reader reads (``Reader.OPTIONS``), with its model."""
    return {key: model for fmt in FORMATS for key, model in fmt.OPTIONS.items()}


def _report_model() -> type[Report]:
    """``config.Report`` whose sources take the readers' options, each by its model: the
    one model report.toml is checked by before anything is read."""
    fields: dict[str, Any] = {k: (m | None, None) for k, m in option_models().items()}
    fields["format"] = (Literal[tuple(f.NAME for f in FORMATS)] | None, None)  # the registry
    source = create_model("Source", __base__=Source, __doc__=Source.__doc__, **fields)
    sources = (list[source], Field(min_length=1))  # type: ignore[valid-type]
    return create_model("Report", __base__=Report, __doc__=Report.__doc__, sources=sources)


REPORT = _report_model()

__all__ = [
    "FORMATS",
    "REPORT",
    "ReadOptions",
    "ReadResult",
    "Reader",
    "Reject",
    "detect",
    "get_format",
    "hosts_summed",
    "read",
]


def names() -> list[str]:
    return [fmt.NAME for fmt in FORMATS]


def hosts_summed(tool: str) -> bool:
    """Whether the records of ``tool`` (a row's ``tool``) are its totals over every host
    it drove (``Reader.HOSTS_SUMMED``)."""
    return any(f.HOSTS_SUMMED for f in FORMATS if tool == f.NAME)


def get_format(name: str) -> Reader:
    for fmt in FORMATS:
        if name == fmt.NAME:
            return fmt
    near = difflib.get_close_matches(name, names(), n=1)
    guess = f"did you mean {near[0]!r}? " if near else ""
    raise InputError(
        "--format", "", f"unknown format {name!r}", guess + "use one of " + ", ".join(names())
    )


def detect(path: Path) -> Reader:
    """The first format whose sniffer recognises the file's first bytes."""
    head = utf8_head(read_head(path, SNIFF_BYTES * 4))[:SNIFF_BYTES]
    if not head.strip():
        raise InputError(
            path,
            "",
            "the file is empty",
            "check that the tool finished writing it, or leave it out",
        )
    for fmt in FORMATS:
        if fmt.sniff(head):
            return fmt
    if _JOB_FILE.search(head):
        raise InputError(
            path,
            "line 1",
            "a fio job file, not a tool's output",
            "give only the tool's outputs (e.g. raw/*.json); a report lists its job files "
            "under method = [...] in report.toml (how the data was made)",
        )
    if (refused := fio_log.histogram_log(path)) is not None:  # said, not just "not known"
        raise refused
    raise InputError(
        path,
        "line 1",
        "format not recognised",
        f"pass the format explicitly (--format, or format= in report.toml): one of {names()}",
    )


# a job section and an fio option with a bare value: what `fio job.fio` reads, not what it
# writes (a TOML file quotes its text)
_JOB_FILE = re.compile(
    rb"^\[[^\]\n]+\]\s*$[\s\S]*^\s*(?:rw|readwrite|bs|ioengine|iodepth|numjobs|filename|"
    rb"directory|size|runtime)\s*=\s*[^\s\"'\[{]",
    re.M,
)


def read(path: Path, options: ReadOptions, fmt: str | None = None) -> ReadResult:
    """Read one raw file; an explicit format always wins over sniffing."""
    module = get_format(fmt) if fmt else _empty_format(path) or detect(path)
    try:
        result = module.read(path, options)
    except RecursionError:  # a parser's: JSON or markup nested 200,000 deep
        raise InputError(path, "", DEEP, "give the file as the tool wrote it") from None
    result.format = module.NAME
    result.path = path
    result.notes += _unused(options, module)
    return result


def _unused(options: ReadOptions, module: Reader) -> list[str]:
    """A note for each option given that the file's reader does not read (said, not
    silently ignored), naming the readers it is for."""
    return [
        f"[sources.{key}] not used: they describe "
        f"{', '.join(f.NAME for f in FORMATS if key in f.OPTIONS)} output, "
        f"this is {module.NAME} output"
        for key in options.options
        if key not in module.OPTIONS
    ]


# A pool pays only for large batches: starting it costs ~0.5 s, and every row crosses back
# to this process as Python objects (see docs/performance.md).
PARALLEL_FROM = 64  # files
PARALLEL_BYTES = 128_000_000  # raw input
Job = tuple[Path, ReadOptions, str | None]
Outcome = ReadResult | InputError | InputErrors


def _empty_format(path: Path) -> Reader | None:
    """The format of an empty file that its tool may leave empty (``Reader.EMPTY``)."""
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return None
    named = [f for f in FORMATS if empty and f.EMPTY and f.EMPTY.match(path.name)]
    return named[0] if named else None


def _read_one(job: Job) -> tuple[str, Any]:
    """For the worker processes: results and errors as plain picklable values."""
    root = job[1].root
    try:
        with inputs.ledger(*filter(None, [root])) as book:
            result = read(*job)
        result.seen = book.seen
        return "ok", result
    except InputError as err:
        return "error", [(str(err.path), err.where, err.message, err.hint)]
    except InputErrors as errs:
        return "error", [(str(e.path), e.where, e.message, e.hint) for e in errs.errors]


def _outcome(kind: str, value: Any) -> Outcome:
    if kind == "ok":
        result: ReadResult = value
        for name, seen in result.seen.items():  # read by a worker process: enter it here
            inputs.enter(name, seen)
        return result
    errors = [InputError(path, where, message, hint) for path, where, message, hint in value]
    return errors[0] if len(errors) == 1 else InputErrors(errors)


def _size(jobs: list[Job]) -> int:
    """The bytes of the regular files among ``jobs`` (one ``stat`` each)."""
    total = 0
    for path, _, _ in jobs:
        try:
            info = os.stat(path)
        except OSError:
            continue
        total += info.st_size if stat.S_ISREG(info.st_mode) else 0
    return total


def read_many(jobs: list[Job]) -> list[Outcome]:
    """Read many files, in order; with many files on as many processes as there are cores.
    A file that cannot be read gives its error in its place."""
    workers = min(os.cpu_count() or 1, 4)
    if len(jobs) < PARALLEL_FROM or workers < 2 or _size(jobs) < PARALLEL_BYTES:
        return batched(_outcome(*one) for one in read_all(jobs))
    # two chunks per worker: fio JSON is read a chunk at a time (fio_fast), each with a
    # fixed cost, and a chunk's frame crosses back as one block
    size = max(1, -(-len(jobs) // (workers * 2)))
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    with procs.pool(workers) as pool:
        done = pool.map(_read_chunk, chunks)
        return batched(_outcome(*one) for chunk in done for one in chunk)


def _read_chunk(jobs: list[Job]) -> list[tuple[str, Any]]:
    """For the worker processes: a chunk of files, their plain rows already in frames
    (a frame crosses to the main process as one block of bytes, rows as objects)."""
    done = read_all(jobs)
    batched(value for kind, value in done if kind == "ok")
    return done


BATCH_ROWS = 8192  # plain rows held as dicts at most, before they become one frame


def batched(outcomes: Iterable[Outcome]) -> list[Outcome]:
    """The outcomes in order, as they come; the plain rows of consecutive files moved into
    one frame every ``BATCH_ROWS`` rows, so that memory grows with the data as a frame
    holds it, not with the number of files (a file whose rows are already in a frame ends
    a batch)."""
    done: list[Outcome] = []
    pending: list[ReadResult] = []
    held = 0
    for outcome in outcomes:
        done.append(outcome)
        if not isinstance(outcome, ReadResult):
            continue
        if outcome.frame is not None or outcome.batch is not None:
            batch(pending)
            pending, held = [], 0
        elif outcome.plain:
            pending.append(outcome)
            held += outcome.plain
            if held >= BATCH_ROWS:
                batch(pending)
                pending, held = [], 0
    batch(pending)
    return done


FAST_FILES = 1024  # fio JSON files read together (``fio_fast``): their rows, one frame


def read_all(jobs: list[Job]) -> list[tuple[str, Any]]:
    """Each job's outcome as ``_read_one`` gives it: fio JSON files ``FAST_FILES`` at a
    time through ``fio_fast``, a file it leaves (anything irregular) and the other formats
    one by one."""
    done = []
    for i in range(0, len(jobs), FAST_FILES):
        chunk = jobs[i : i + FAST_FILES]
        with _no_collection():
            fast = _read_fast(chunk)
        done += [one or _read_one(job) for job, one in zip(chunk, fast, strict=True)]
    return done


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """The garbage collector paused: reading a chunk of files makes many objects that
    live until the chunk is read and hold no cycles; the collector's passes over them
    cost 5-8 % of the chunk's time (its state is restored after)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _read_fast(jobs: list[Job]) -> list[tuple[str, Any] | None]:
    """The outcomes of the fio JSON files among ``jobs`` that ``fio_fast`` reads (None for
    the others)."""
    files, places, seen = [], [], []
    for k, (path, options, fmt) in enumerate(jobs):
        found = _fio_bytes(path, options, fmt)
        if found is not None:
            files.append(fio_fast.File(path, options, found[0]))
            places.append(k)
            seen.append(found[1])
    done: list[tuple[str, Any] | None] = [None] * len(jobs)
    for k, file, book, result in zip(places, files, seen, fio_fast.read_files(files), strict=True):
        if result is not None:
            result.format, result.path, result.seen = fio.NAME, file.path, book
            result.notes += _unused(file.options, fio)
            done[k] = "ok", result
    return done


def _fio_bytes(path: Path, options: ReadOptions, fmt: str | None) -> Any:
    """The bytes of a file that is read as fio output, and what the ledger saw of it; None
    for another format, or where reading fails (the reader of one file says why)."""
    try:
        if (get_format(fmt) if fmt else _empty_format(path) or detect(path)) is not fio:
            return None
        return inputs.read_alone(path, options.root)
    except InputError:
        return None
