"""fio job parameters: from ``job options``, then ``global options``, then a job file in
the same folder (fio 2.x JSON has no options), then fio's documented defaults."""

from __future__ import annotations

import configparser
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.inputs import is_inside, read_text
from pipeline.language.message import Message
from pipeline.units import MAX_BLOCK, MAX_COUNT, MAX_RATE, parse_block_size, split_label

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
    """One job record that cannot become a row; ``reason`` says why (in any language)."""

    def __init__(self, key: str, **values: object) -> None:
        self.reason = Message.of(f"fio.{key}", **values)
        super().__init__(str(self.reason))


def parser() -> configparser.ConfigParser:
    return configparser.ConfigParser(
        allow_no_value=True,
        strict=False,
        interpolation=None,
        comment_prefixes=(";", "#"),
        inline_comment_prefixes=(";",),
    )


def _job_files(folder: Path, root: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Sections of every job file in the folder (links that lead outside ``root`` are not
    followed): job name -> (file, options with global)."""
    sections: dict[str, tuple[Path, dict[str, str]]] = {}
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.suffix not in JOB_FILE_SUFFIXES or not path.is_file():
            continue
        if not is_inside(root, path):
            continue
        cp = parser()
        try:
            cp.read_string(read_text(path))
        except (configparser.Error, InputError):
            continue
        glob = dict(cp["global"]) if cp.has_section("global") else {}
        for name in cp.sections():
            if name != "global":
                own = normalise_options({**glob, **dict(cp[name])})
                sections.setdefault(name, (path, own))
    return sections


ALIASES = {"blocksize": "bs", "readwrite": "rw"}


def normalise_options(value: Any) -> dict[str, str]:
    """Options with fio's long aliases folded onto the short names (blocksize -> bs)."""
    if not isinstance(value, dict):
        return {}
    return {ALIASES.get(str(k).lower(), str(k).lower()): str(v) for k, v in value.items()}


class Resolver:
    """Resolves the profile (access, mix, block size, parallelism, depth) of each job."""

    def __init__(self, path: Path, doc: dict[str, Any], root: Path | None) -> None:
        self.path = path
        self.root = root or path.parent
        self.globals = normalise_options(doc.get("global options"))
        self.notes: list[str] = []
        self.used: list[Path] = []  # job files read
        self._files: dict[str, tuple[Path, dict[str, str]]] | None = None
        self._profiles: dict[object, dict[str, Any]] = {}

    def _from_job_file(self, name: str) -> dict[str, str]:
        if self._files is None:
            self._files = _job_files(self.path.parent, self.root)
        found = self._files.get(name)
        if found is None:
            self._note(
                f"job {name!r} has no options in the JSON and no job file section: "
                "fio's defaults are assumed (rw=read, bs=4k, iodepth=1, numjobs=1)"
            )
            return {}
        self._note(f"options of job {name!r} taken from the job file {found[0].name}")
        if found[0] not in self.used:
            self.used.append(found[0])
        return found[1]

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def options(self, record: dict[str, Any]) -> dict[str, str]:
        job = record.get("job options")
        if job is not None:
            own = normalise_options(job)
        elif self.globals:
            own = {}  # fio lists only options a job sets itself: this one sets none
        else:
            own = self._from_job_file(str(record.get("jobname", "")))
        return {**DEFAULTS, **self.globals, **own}

    def clones_per_record(self, record: dict[str, Any]) -> int:
        """How many records of the job a snapshot holds: its numjobs, or 1 where its
        clones are reported as one group (group_reporting)."""
        opts = self.options(record)
        return 1 if flag(opts, "group_reporting") else count(opts.get("numjobs", "1"))

    def profile(self, record: dict[str, Any]) -> dict[str, Any]:
        """The job's profile (shared by the records of one job: not to be changed)."""
        key = _options_key(record)
        found = self._profiles.get(key)
        if found is None:
            found = self._profiles[key] = self._profile(record)
        return found

    def _profile(self, record: dict[str, Any]) -> dict[str, Any]:
        opts = self.options(record)
        access, read_pct = _access(opts)
        job = str(record.get("jobname", ""))
        block, split = (
            self._split(opts, read_pct, job)
            if opts.get("bssplit")
            else (self._block_size(opts, read_pct, job), None)
        )
        workers = _whole(opts, "numjobs")
        per_worker = _rate(opts, block, read_pct)
        return {
            "access": access,
            "read_pct": read_pct,
            "block_size": block,
            "block_split": split,
            "parallelism": workers,
            "queue_depth": _whole(opts, "iodepth"),
            "target_iops": per_worker * workers if per_worker else None,
            "compress_pct": _percent(opts, "buffer_compress_percentage"),
            "dedupe_pct": _percent(opts, "dedupe_percentage"),
        }

    def _chosen(self, name: str, text: str, read_pct: float, job: str) -> str:
        """Of ``name=read,write`` the part the point's size comes from: the read one
        unless the job only writes (noted where a mixed job has two)."""
        read_text, write_text = directions(text, DEFAULTS.get(name, text.split(",")[0].strip()))
        if "," in text and 0 < read_pct < 100 and read_text and read_text != write_text:
            self._note(
                f"job {job!r}: {name}={text} gives reads and writes different sizes; "
                f"the read size {read_text} is used for the point"
            )
        return (read_text if read_pct > 0 else write_text) or read_text

    def _block_size(self, opts: dict[str, str], read_pct: float, job: str) -> int:
        text = opts.get("bs") or DEFAULTS["bs"]
        if "-" in text or ":" in text:
            raise JobError("bs_range", value=repr(text))
        return _size(self._chosen("bs", text, read_pct, job) or DEFAULTS["bs"], text)

    def _split(self, opts: dict[str, str], read_pct: float, job: str) -> tuple[int, str]:
        """fio ``bssplit=4k/50:8k/30:64k/20``: one profile named by its split ("4K/8K/64K
        50/30/20"), its size the mean of the sizes weighted by their share of the I/Os."""
        text = opts["bssplit"]
        shares = split_shares(self._chosen("bssplit", text, read_pct, job), text)
        mean = round(sum(size * pct for size, pct in shares) / 100)
        return mean, split_label(shares)


def direction_sizes(opts: dict[str, str]) -> tuple[int, int] | None:
    """The block size of reads and of writes (fio's ``bs=read,write``), where each
    direction has one; None where a direction mixes sizes (``bssplit``: its mean size
    is the profile's only where both directions share the split)."""
    split = opts.get("bssplit")
    if split:
        parts = [p.strip() for p in split.split(",")]
        return None if len(parts) > 1 and parts[0] != (parts + parts)[1] else (0, 0)
    text = opts.get("bs") or DEFAULTS["bs"]
    read, write = directions(text, DEFAULTS["bs"])
    return _size(read, text), _size(write, text)


def directions(text: str, default: str) -> tuple[str, str]:
    """Of fio's ``name=read,write`` the reads' and the writes' part: one part is both
    directions', an empty one fio's ``default`` (bs=8k, gives writes 4k, not 8k)."""
    parts = [p.strip() for p in text.split(",")]
    read = parts[0] or default
    return read, (parts[1] or default) if len(parts) > 1 else read


def flag(opts: dict[str, str], name: str) -> bool:
    """A fio boolean option set (1, true, yes, on; a bare ``name``, as fio writes it: "")."""
    return opts.get(name, "0").strip().lower() not in ("0", "false", "no", "off")


def count(text: str) -> int:
    """A count option (numjobs): its whole number, 1 where it is none or not above 0."""
    text = text.strip()
    return int(text) if text.isdigit() and int(text) > 0 else 1


def split_shares(chosen: str, text: str) -> list[tuple[int, float]]:
    """``4k/50:8k/:64k/`` -> [(4096, 50), (8192, 25), (65536, 25)]: a share left out is
    an equal part of the rest (as fio fills it); the shares must add up to 100."""
    entries = [e.strip().partition("/") for e in chosen.split(":") if e.strip()]
    try:
        given = [float(pct) if pct.strip() else None for _, _, pct in entries]
    except ValueError:
        raise JobError("bssplit_bad", value=repr(text)) from None
    rest = 100 - sum(p for p in given if p is not None)
    blanks = given.count(None)
    pcts = [p if p is not None else rest / blanks for p in given]
    if not entries or any(p < 0 for p in pcts) or abs(sum(pcts) - 100) > 1e-6:
        raise JobError("bssplit_sum", value=repr(text), total=f"{sum(pcts):g}")
    return [(_size(size, text), pct) for (size, _, _), pct in zip(entries, pcts, strict=True)]


def _size(chosen: str, text: str) -> int:
    try:
        size = parse_block_size(chosen.strip())
    except ValueError as exc:
        raise JobError("bs_bad", value=text) from exc
    if size > MAX_BLOCK:
        raise JobError("bs_large", value=text)
    return size


def _percent(opts: dict[str, str], key: str) -> float | None:
    """``buffer_compress_percentage``, ``dedupe_percentage``: None where not set."""
    text = opts.get(key)
    if text is None or not text.strip():
        return None
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise JobError("percent_bad", name=key, value=repr(text)) from None
    if not 0 <= value <= 100:
        raise JobError("percent_bad", name=key, value=repr(text))
    return value


def _options_key(record: dict[str, Any]) -> object:
    """What a record's profile depends on, as the resolver sees it: its job name and its
    options as text (1, 1.0 and true are one dictionary key but three option values).
    Records of one job, or of one job on several hosts, share it."""
    job = record.get("job options")
    if not isinstance(job, dict):
        return str(record.get("jobname", "")), job is None
    options = tuple(zip(job, map(str, job.values()), strict=True))  # no generator per key
    return str(record.get("jobname", "")), options


def _access(opts: dict[str, str]) -> tuple[str, float]:
    rw = (opts.get("rw") or DEFAULTS["rw"]).split(":")[0].strip()
    if rw in TRIM:
        raise JobError("trim", value=rw)
    if rw not in RW:
        raise JobError("rw_unknown", value=repr(rw), known=", ".join(RW))
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
        raise JobError("mix_bad", value=opts.get("rwmixread", opts.get("rwmixwrite"))) from None
    if not 0 <= value <= 100:
        raise JobError("mix_range", value=f"{value:g}")
    return value


def _rate(opts: dict[str, str], block: int, read_pct: float) -> float | None:
    """The I/O rate one worker was asked for: ``rate_iops`` (or ``rate=`` in bytes per
    second, ``4m``, divided by the block size), None if unlimited. fio holds each
    direction of a mix to its own cap, whatever the mix (``rate=2m,1m`` at 4k and 50 %
    reads ran 512 reads and 256 writes a second), and one value caps every direction
    (``rate_iops=500`` at 50 % reads ran 500 and 500: 1,000, not 500): the caps of the
    directions the mix has, added up; None where one of them has none."""
    for name, parse in (
        ("rate_iops", float),
        ("rate", lambda v: parse_block_size(v) / block),
    ):
        if opts.get(name):
            caps = _caps(opts[name], name, parse)
            shares = (read_pct / 100, 1 - read_pct / 100)
            used = [c for c, share in zip(caps, shares, strict=True) if share > 0]
            return None if 0 in used else sum(used)
    return None


def _caps(text: str, name: str, parse: Callable[[str], float]) -> tuple[float, float]:
    """The reads' and the writes' cap of ``rate_iops``/``rate`` (one value: both; 0 or
    none: no cap)."""
    parts = [v.strip() for v in text.split(",")]
    try:
        values = [parse(v) if v else 0.0 for v in parts]
    except ValueError:
        raise JobError("rate_bad", name=name, value=repr(text)) from None
    if any(not math.isfinite(v) or v > MAX_RATE or v < 0 for v in values):
        raise JobError("rate_range", name=name, value=repr(text))
    return values[0], values[1] if len(values) > 1 else values[0]


def _whole(opts: dict[str, str], key: str) -> int:
    text = opts.get(key, DEFAULTS[key])
    try:
        value = int(text)
    except ValueError:
        raise JobError("whole_bad", name=key, value=repr(text)) from None
    if not 1 <= value <= MAX_COUNT:
        raise JobError("whole_range", name=key, value=text, max=f"{MAX_COUNT:,}")
    return value
