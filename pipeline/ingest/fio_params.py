"""fio job parameters: from ``job options``, then ``global options``, then a job file in
the same folder (fio 2.x JSON has no options), then fio's documented defaults."""

from __future__ import annotations

import configparser
from pathlib import Path
from typing import Any

from pipeline.units import parse_block_size

# fio's documented defaults (fio(1)): bs=4k, iodepth=1, numjobs=1, rwmixread=50, rw=read
DEFAULTS: dict[str, str] = {"bs": "4k", "iodepth": "1", "numjobs": "1", "rw": "read"}
RW: dict[str, tuple[str, float | None]] = {
    "randread": ("random", 100.0),
    "randwrite": ("random", 0.0),
    "randrw": ("random", None),
    "read": ("sequential", 100.0),
    "write": ("sequential", 0.0),
    "rw": ("sequential", None),
    "readwrite": ("sequential", None),
}
TRIM = {"trim", "randtrim", "trimwrite", "randtrimwrite"}
JOB_FILE_SUFFIXES = (".fio", ".job", ".ini")


class JobError(Exception):
    """One job record that cannot become a row; the message says why."""


def parser() -> configparser.ConfigParser:
    return configparser.ConfigParser(
        allow_no_value=True,
        strict=False,
        interpolation=None,
        comment_prefixes=(";", "#"),
        inline_comment_prefixes=(";",),
    )


def _job_files(folder: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """Sections of every job file in the folder: job name -> (file name, options with global)."""
    sections: dict[str, tuple[str, dict[str, str]]] = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.suffix not in JOB_FILE_SUFFIXES or not path.is_file():
            continue
        cp = parser()
        try:
            cp.read_string(path.read_text(encoding="utf-8", errors="replace"))
        except configparser.Error:
            continue
        glob = dict(cp["global"]) if cp.has_section("global") else {}
        for name in cp.sections():
            if name != "global":
                own = normalise_options({**glob, **dict(cp[name])})
                sections.setdefault(name, (path.name, own))
    return sections


ALIASES = {"blocksize": "bs", "readwrite": "rw"}


def normalise_options(value: Any) -> dict[str, str]:
    """Options with fio's long aliases folded onto the short names (blocksize -> bs)."""
    if not isinstance(value, dict):
        return {}
    return {ALIASES.get(str(k).lower(), str(k).lower()): str(v) for k, v in value.items()}


class Resolver:
    """Resolves the profile (access, mix, block size, parallelism, depth) of each job."""

    def __init__(self, path: Path, doc: dict[str, Any]) -> None:
        self.path = path
        self.globals = normalise_options(doc.get("global options"))
        self.notes: list[str] = []
        self._files: dict[str, tuple[str, dict[str, str]]] | None = None

    def _from_job_file(self, name: str) -> dict[str, str]:
        if self._files is None:
            self._files = _job_files(self.path.parent)
        found = self._files.get(name)
        if found is None:
            self._note(
                f"job {name!r} has no options in the JSON and no job file section: "
                "fio's defaults are assumed (rw=read, bs=4k, iodepth=1, numjobs=1)"
            )
            return {}
        self._note(f"options of job {name!r} taken from the job file {found[0]}")
        return found[1]

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def options(self, record: dict[str, Any]) -> dict[str, str]:
        job = record.get("job options")
        own = (
            normalise_options(job)
            if job is not None
            else self._from_job_file(str(record.get("jobname", "")))
        )
        return {**DEFAULTS, **self.globals, **own}

    def profile(self, record: dict[str, Any]) -> dict[str, Any]:
        opts = self.options(record)
        access, read_pct = _access(opts)
        return {
            "access": access,
            "read_pct": read_pct,
            "block_size": self._block_size(opts, read_pct, str(record.get("jobname", ""))),
            "parallelism": _whole(opts, "numjobs"),
            "queue_depth": _whole(opts, "iodepth"),
        }

    def _block_size(self, opts: dict[str, str], read_pct: float, job: str) -> int:
        text = opts.get("bs") or DEFAULTS["bs"]
        if "bssplit" in opts or "-" in text or ":" in text:
            raise JobError(
                f"block size {text!r} is a range or split: only fixed block sizes "
                "are supported (bs=4k or bs=4k,64k)"
            )
        parts = [p.strip() for p in text.split(",")]
        read_text, write_text = parts[0] or DEFAULTS["bs"], (parts + parts)[1] or parts[0]
        chosen = read_text if read_pct > 0 else write_text
        if len(parts) > 1 and 0 < read_pct < 100 and read_text != write_text:
            self._note(
                f"job {job!r}: bs={text} gives reads and writes different sizes; "
                f"the read size {read_text} is used for the point"
            )
        try:
            return parse_block_size(chosen)
        except ValueError as exc:
            raise JobError(f"bs={text}: {exc}") from None


def _access(opts: dict[str, str]) -> tuple[str, float]:
    rw = (opts.get("rw") or DEFAULTS["rw"]).split(":")[0].strip()
    if rw in TRIM:
        raise JobError(
            f"rw={rw}: trim jobs are not supported (iopress reports reads and "
            "writes); leave them out of the file or the report"
        )
    if rw not in RW:
        raise JobError(f"rw={rw!r} is not a fio I/O pattern iopress knows ({', '.join(RW)})")
    access, read_pct = RW[rw]
    return access, read_pct if read_pct is not None else _mix(opts)


def _mix(opts: dict[str, str]) -> float:
    try:
        if "rwmixread" in opts:
            value = float(opts["rwmixread"])
        elif "rwmixwrite" in opts:
            value = 100 - float(opts["rwmixwrite"])
        else:
            value = 50.0  # fio's default rwmixread
    except ValueError:
        raise JobError(f"rwmixread/rwmixwrite is not a number: {opts}") from None
    if not 0 <= value <= 100:
        raise JobError(f"read mix {value:g} % is outside 0…100")
    return value


def _rate(opts: dict[str, str]) -> float | None:
    """rate_iops=N (or r,w): the requested rate per job, if any."""
    text = opts.get("rate_iops", "")
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise JobError(f"rate_iops={text!r} is not a number") from None
    return sum(values) or None


def _whole(opts: dict[str, str], key: str) -> int:
    text = opts.get(key, DEFAULTS[key])
    try:
        value = int(text)
    except ValueError:
        raise JobError(f"{key}={text!r} is not a whole number") from None
    if value < 1:
        raise JobError(f"{key}={value} must be at least 1")
    return value
