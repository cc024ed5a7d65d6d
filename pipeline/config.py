"""The report definition: ``report.toml`` in a report folder, validated with pydantic."""

from __future__ import annotations

import datetime as dt
import difflib
import math
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from pipeline import schema
from pipeline.errors import InputError, InputErrors, is_utf8, shown
from pipeline.inputs import (
    CONTROL,
    MAX_TOML_BYTES,
    OUTSIDE_HINT,
    inside,
    is_inside,
    read_text,
    real,
    too_deep,
)
from pipeline.language.strings import Variant
from pipeline.paths import ID_PATTERN, MAX_ID, TOOL, languages
from pipeline.tomlplace import item_line
from pipeline.units import Access, Convention, parse_block_size, rate_factor

LANGS = languages()  # the documents' languages: locales/*.toml
REPORT_FILE = "report.toml"


def _both_languages(value: Any) -> Any:
    """A plain string means the same text in every language."""
    if isinstance(value, str):
        return {lang: value for lang in LANGS}
    return value


def _check_languages(value: Any) -> Any:
    """Every language's text; anything but a table of them is left to the type's check
    (``title = 5``: "a valid dictionary", not a crash)."""
    if not isinstance(value, dict):
        return value
    missing = [lang for lang in LANGS if lang not in value]
    if missing:
        raise ValueError(f"text missing for language(s) {', '.join(missing)}")
    return value


# pydantic applies BeforeValidators last-first: expand a plain string, then check.
Text = Annotated[
    dict[str, str], BeforeValidator(_check_languages), BeforeValidator(_both_languages)
]


class Strict(BaseModel):
    """Unknown keys and wrong types are refused; an unknown key is named with the
    nearest valid one."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    synonyms: ClassVar[dict[str, str]] = {}  # common wrong names -> the right field
    elsewhere: ClassVar[dict[str, str]] = {}  # keys that belong elsewhere -> where


def _model_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model class that validates the object at ``loc`` below ``model``."""
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        inner = [a for a in _flatten(field.annotation) if isinstance(a, type)]
        found = next((a for a in inner if issubclass(a, BaseModel)), None)
        if found is None:
            return None
        model = found
    return model


def _flatten(annotation: Any) -> list[Any]:
    args = getattr(annotation, "__args__", None)
    return [a for arg in args for a in _flatten(arg)] if args else [annotation]


def nearest(model: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """For an unknown key at ``loc``: where it belongs, or the known keys, as a hint."""
    owner, key = _model_at(model, loc[:-1]), str(loc[-1])
    if owner is None:
        return ""
    elsewhere: dict[str, str] = getattr(owner, "elsewhere", {})
    if key in elsewhere:
        return f"{elsewhere[key]}; "
    return f"known here: {', '.join(sorted(owner.model_fields))}; "


def meant(model: type[BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """For an unknown key at ``loc``: the known key it most likely meant (a synonym or a
    near spelling), if any (never one that belongs elsewhere)."""
    owner, key = _model_at(model, loc[:-1]), str(loc[-1])
    if owner is None or key in getattr(owner, "elsewhere", {}):
        return None
    synonyms: dict[str, str] = getattr(owner, "synonyms", {})
    close = difflib.get_close_matches(key.lower(), sorted(owner.model_fields), n=1, cutoff=0.6)
    return synonyms.get(key.lower()) or next(iter(close), None)


class Source(Strict):
    """Raw files: one file, a glob (``raw/*.json``, ``raw/**/*.log``) or a folder
    (``raw/``: every file in it but hidden ones), read in sorted order."""

    path: str
    format: str | None = None
    setup: str = "default"
    # a reader's options (``[sources.<key>]``) are fields of the report model the format
    # registry makes of what the readers declare (``ingest.REPORT``)
    elsewhere: ClassVar[dict[str, str]] = {
        "repeats": "repeats is the report's rule for every point measured more than once: "
        "write it at the top of report.toml, before the first [[sources]]"
    }
    _listed: str = PrivateAttr(default="")  # where report.toml lists it (after expansion)
    _index: int | None = PrivateAttr(default=None)  # its [[sources]] entry (after expansion)

    def place(self, index: int) -> str:
        return self._listed or f"sources[{index}].path"

    def key_place(self, index: int, key: str) -> str:
        """The place of its ``key`` in report.toml: a file of a glob or folder is its entry's."""
        return f"sources[{index if self._index is None else self._index}].{key}"

    def options(self) -> dict[str, BaseModel]:
        """The readers' options this source gives (the fields beyond ``Source``'s own)."""
        extra = [k for k in type(self).model_fields if k not in Source.model_fields]
        return {k: v for k in extra if isinstance(v := getattr(self, k), BaseModel)}

    @property
    def is_pattern(self) -> bool:
        return bool(GLOB.search(self.path)) or self.path.endswith("/")


GLOB = re.compile(r"[*?\[]")


def _one_line(value: str) -> str:
    """A name the data is matched by (a setup, a host, the system) is one line: a setup
    "a\\nb" passed report.toml and every record of it then failed the schema's check."""
    if re.search(r"[\t\n\r]", value):
        raise ValueError("a name is one line: no tab or line break")
    return value


Name = Annotated[str, AfterValidator(_one_line)]


class Host(Strict):
    """A host as the report names it; ``raw`` lists the names the tools gave it (fio's
    ``host:port`` in client/server runs), which the report then shows as ``name``."""

    name: Name
    description: Text = Field(default_factory=lambda: _both_languages(""))
    raw: list[Name] = []


class Setup(Strict):
    name: Name = "default"
    description: Text = Field(default_factory=lambda: _both_languages(""))


class SystemUnderTest(Strict):
    name: Name
    vendor: str
    description: list[Text] = []


class VendorFigure(Strict):
    """A figure published by the vendor, shown beside the measured one."""

    access: Access
    block_size: int
    read_pct: float = Field(ge=0, le=100)
    metric: Literal["iops", "bytes_per_s", "lat_mean_us"]
    value: float = Field(gt=0)
    unit: Literal["B/s", "KiB/s", "MiB/s", "GiB/s", "KB/s", "MB/s", "GB/s", "IOPS", "us"] | None = (
        None
    )
    note: Text | None = None
    # the row it is shown beside, where the tables show several setups or queue depths
    setup: str | None = None
    queue_depth: int | None = Field(default=None, ge=1)

    def base_value(self, units: Convention) -> float:
        """The value in base units (bytes/s, IOPS, µs); MB/s by the report's convention."""
        if self.metric == "bytes_per_s":
            return self.value * rate_factor(self.unit or "B/s", units)
        return self.value

    @field_validator("block_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> int:
        return parse_block_size(str(v))


class NamedProfile(Strict):
    """A workload mix known by its name (Iometer's "Database": 8K, 67 % read, random):
    points of this access, block size and read share (of one fixed size: a split is
    named by its tool) are shown by ``name`` (report.toml ``[[profiles]]``)."""

    synonyms: ClassVar[dict[str, str]] = {"read": "read_pct", "bs": "block_size"}

    name: Text  # per language; the dataset's ``profile`` holds the tool's (English) one
    access: Access
    block_size: int
    read_pct: float = Field(ge=0, le=100)

    @field_validator("block_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> int:
        return parse_block_size(str(v))

    @field_validator("name")
    @classmethod
    def _name(cls, v: dict[str, str]) -> dict[str, str]:
        for text in v.values():
            if text != text.strip() or not 1 <= len(text) <= 60:
                raise ValueError(f"name {text!r}: 1 to 60 characters, no space at either end")
        return v


def _currency(code: str) -> str:
    from babel.numbers import list_currencies

    if code not in list_currencies():
        raise ValueError(f"unknown currency {code!r}: use an ISO 4217 code such as USD, EUR, CHF")
    return code


Currency = Annotated[str, AfterValidator(_currency)]


class CostRecord(Strict):
    """One system's price in one year (seed 000 Tabelle 5)."""

    system: str
    label: Text
    year: int = Field(ge=1950, le=2100)
    capacity_tb: float = Field(gt=0)
    iops: float = Field(gt=0)
    price: float = Field(gt=0)
    currency: Currency
    compression_ratio: float | None = Field(default=None, ge=1)


class FootprintRecord(Strict):
    """Space and power of one system (seed 000 Tabelle 6)."""

    system: str
    capacity_tb: float = Field(gt=0)
    iops: float = Field(gt=0)
    rack_units: int = Field(gt=0)
    power_w: float = Field(gt=0)


class Sizing(Strict):
    """How many systems for a target load (seed 000 Tabelle 8, seed 001: ≤ 50–60 %)."""

    targets: list[float] = Field(min_length=1)
    max_load_pct: float = Field(default=50, gt=0, le=100)

    @field_validator("targets")
    @classmethod
    def _positive(cls, v: list[float]) -> list[float]:
        if any(t <= 0 for t in v):
            raise ValueError("target IOPS must be greater than 0")
        return v


class SpeedupCase(Strict):
    """An Amdahl example: how much faster the application gets when its I/O does."""

    case: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    label: Text
    io_share: float = Field(gt=0, le=1)
    old_ms: float = Field(gt=0)
    new_ms: float = Field(gt=0)


class LatencyLimits(Strict):
    """The latency limit for 'I/O rate under N ms' (seed 001: 1 ms, 3 ms for large blocks)."""

    small_us: float = Field(default=1000, gt=0)
    large_us: float = Field(default=3000, gt=0)
    small_block: int = 32 * 1024

    @field_validator("small_block", mode="before")
    @classmethod
    def _size(cls, v: Any) -> int:
        return parse_block_size(str(v))


# a chart kind: a name of report/chart_registry.py, checked by report/plan.chart_plan
ChartKind = str


class ChartSpec(Strict):
    """One chart kind a report shows; ``profiles`` narrows it (e.g. ["8K random 100"])."""

    kind: ChartKind = Field(pattern=r"^[a-z_]+$")
    profiles: list[str] = []
    source: str | None = None  # histogram: the fio json+ file
    job: int = 0  # histogram: the job record in that file

    @field_validator("profiles")
    @classmethod
    def _profiles(cls, v: list[str]) -> list[str]:
        for profile in v:
            words = profile.split()
            if not 2 <= len(words) <= 3 or words[1] not in ("random", "sequential"):
                raise ValueError(
                    f"profile {profile!r} must read 'BLOCK ACCESS [READ%]', e.g. '8K random' "
                    "or '8K random 100'"
                )
            parse_block_size(words[0])
            if len(words) == 3 and not _is_number(words[2]):
                raise ValueError(f"read share {words[2]!r} in {profile!r} must be a number")
        return v


def _is_number(text: str) -> bool:
    try:
        return 0 <= float(text) <= 100
    except ValueError:
        return False


Colour = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]


class ThemeConfig(Strict):
    """The report's own colours (``[theme]``): per setup (seed 004: 4 vCPUs yellow) and per
    read share ("100", "70", "0"); the house colours of figures/theme.toml otherwise."""

    setups: dict[str, Colour] = {}
    mixes: dict[str, Colour] = {}


class FrontendBackend(Strict):
    """Two setups measured alike, one on a small cache-resident target (frontend) and one
    on a large target (backend), compared on one chart (seed 003)."""

    frontend: str
    backend: str
    label: Text | None = None  # the pair in the legend; default: the frontend's description


class DatasheetConfig(Strict):
    """Which records describe the tested system on its datasheet."""

    setup: str | None = None  # default: the first setup
    queue_depth: int | None = Field(default=None, gt=0)  # default: the setup's deepest
    footprint: str | None = None  # a [[footprint]] system name
    spc1: str | None = None  # an SPC-1 submission id of this system


# A report's id names its files (<id>.datasheet.de.typ and more): a file name has at most
# 255 bytes, and ids are short names anyway.
ChapterKey = Literal[
    "preliminary",
    "introduction",
    "summary",
    "setup",
    "method",
    "results",
    "performance",
    "latency",
    "cost",
    "footprint",
    "spc1",
    "speedup",
    "conclusion",
    "author",
]


class OwnChapter(Strict):
    """A chapter of the author's own: ``text/<lang>/<file>`` under ``title``."""

    file: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*\.md$", max_length=MAX_ID)
    title: Text


OWN_CHAPTER = '{ file = "name.md", title = { de = "…", en = "…" } }'


def _own_chapter(index: int, item: object) -> None:
    """A chapter of one's own as its table must be; else one error saying so."""
    if not isinstance(item, dict) or "file" not in item or set(item) - {"file", "title"}:
        raise ValueError(f"chapters[{index}]: not a chapter: a standard key, or {OWN_CHAPTER}")
    file = item["file"]
    if not isinstance(file, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*\.md", file):
        raise ValueError(
            f"chapters[{index}].file: {file!r} is no text's name: lower-case letters, "
            "digits, - and _, then .md (the file in text/de/ and text/en/)"
        )


NumberStyle = Literal["de-CH", "de-DE", "de-AT"]
Repeats = Literal["refuse", "newest", "mean"]
Edition = Literal["customer", "audit"]
EDITIONS: tuple[Edition, ...] = ("customer", "audit")


class Report(Strict):
    id: str = Field(pattern=ID_PATTERN, max_length=MAX_ID)  # names files
    title: Text
    subtitle: Text = Field(default_factory=lambda: _both_languages(""))
    author: str
    organisation: str = ""
    version: str
    date: dt.date
    classification: Text
    sponsor: Text | None = None
    reconstructed: Text | None = None
    # the chapters in order: standard ones by key, own ones by text file (docs/report.md)
    chapters: list[ChapterKey | OwnChapter] | None = None
    contact: list[str] = []  # the author block's lines under the author's name

    @field_validator("chapters", mode="before")
    @classmethod
    def _chapter_keys(cls, v: Any) -> Any:
        """A standard chapter's key, or a table for an own chapter: a key mistyped is one
        line naming the nearest key (not pydantic's union of both forms)."""
        keys = get_args(ChapterKey)
        for i, item in enumerate(v if isinstance(v, list) else []):
            if isinstance(item, str) and item not in keys:
                close = difflib.get_close_matches(item, keys, n=1, cutoff=0.6)
                guess = f" — did you mean {close[0]!r}?" if close else ""
                raise ValueError(
                    f"chapters[{i}]: unknown chapter {item!r}{guess} (the keys: "
                    f"{', '.join(keys)}; a chapter of your own is {OWN_CHAPTER})"
                )
            if not isinstance(item, str):  # one line, not one per form and field
                _own_chapter(i, item)
        return v

    @field_validator("profiles")
    @classmethod
    def _one_name_each(cls, v: list[NamedProfile]) -> list[NamedProfile]:
        """A profile has one name, and a name one profile."""
        seen: dict[object, str] = {}
        for i, p in enumerate(v):
            figures = (p.access, p.block_size, p.read_pct)
            names = [(lang, text) for lang, text in p.name.items()]
            for key, what in ((figures, "figures"), *((n, "name") for n in names)):
                if key in seen:
                    raise ValueError(
                        f"profiles[{i}] ({p.name[TOOL]!r}) has the {what} of {seen[key]}"
                    )
                seen[key] = f"profiles[{i}] ({p.name[TOOL]!r})"
        return v

    system: SystemUnderTest
    hosts: list[Host] = []
    setups: list[Setup] = [Setup()]
    sources: list[Source] = Field(min_length=1)
    vendor_figures: list[VendorFigure] = []
    profiles: list[NamedProfile] = []  # workload mixes shown by their name
    cost: list[CostRecord] = []
    cost_note: Text | None = None
    footprint: list[FootprintRecord] = []
    rack_units: int = Field(default=42, gt=0)
    spc1: list[str] = []
    sizing: Sizing | None = None
    speedup: list[SpeedupCase] = []
    latency_limits: LatencyLimits = LatencyLimits()
    # a point measured in several runs (files that are not one run's JSON and its logs):
    # refused, the newest run kept, or the runs' intervals averaged (docs/report.md)
    repeats: Repeats = "refuse"
    units: Convention = "binary"  # what KB, MB, GB mean in input and output
    # the optimum rule's noise margin: a step still pays when its latency gain exceeds its
    # IOPS gain by at most this many percentage points (0: the seeds' strict rule)
    optimum_margin_pp: float = Field(default=0.0, ge=0, le=100)
    # the German documents' number style: de-CH 1’008’045.5, de-DE and de-AT 1.008.045,5
    number_style: NumberStyle = "de-CH"
    # what generated the load: the documents say "per server" or "per VM"
    load_generators: Variant = "servers"
    datasheet: DatasheetConfig = DatasheetConfig()
    tables: list[str] | None = None  # names checked by compute/registry.py
    # the PDF's validation findings: per rule ("summary", for the customer) or each one
    # ("all", for the auditor); validation.csv always holds every finding
    findings: Literal["summary", "all"] = "summary"
    # which paper: "audit" (default) keeps the whole appendix (interval deviations, every
    # rule, checksums, versions); "customer" a short data-and-method section instead,
    # naming where the audit material is (manifest.json, tables/*.csv, rejects.csv)
    edition: Edition = "audit"
    charts: list[ChartSpec] | None = None
    theme: ThemeConfig = ThemeConfig()
    frontend_backend: list[FrontendBackend] = []
    # how the raw data was made, for the provenance appendix (files, globs or folders):
    # machine descriptions (iopress run, iopress machine) shown as a table, and the method's
    # files (campaign.toml, fio job files) listed with their SHA-256
    machines: list[str] = []
    method: list[str] = []

    @field_validator("chapters")
    @classmethod
    def _once(cls, v: list[ChapterKey | OwnChapter] | None) -> Any:
        names = [c if isinstance(c, str) else c.file for c in v or []]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"chapter(s) listed twice: {', '.join(twice)}")
        return v


class Presentation(Strict):
    """How a report prints its measurement tables besides their figures' settings (see
    compute.compare.Settings): stored with its dataset, so that ``iopress tables
    DATASET`` prints what the report prints."""

    units: Convention = "binary"
    number_style: NumberStyle = "de-CH"
    load_generators: Variant = "servers"
    tables: list[str] | None = None  # report.toml ``tables``: which measurement tables
    setups: dict[str, dict[str, str]] = {}  # language -> setup -> its description
    # language -> a named profile's name in the dataset (the tool's) -> its name there
    profiles: dict[str, dict[str, str]] = {}

    @classmethod
    def of(cls, report: Report) -> Presentation:
        return cls(
            units=report.units,
            number_style=report.number_style,
            load_generators=report.load_generators,
            tables=report.tables,
            setups={lang: {s.name: s.description[lang] for s in report.setups} for lang in LANGS},
            profiles={
                lang: {p.name[TOOL]: p.name[lang] for p in report.profiles} for lang in LANGS
            },
        )


def _where(loc: tuple[int | str, ...]) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc]
    return "".join(parts).lstrip(".") or "(top level)"


def field_place(loc: tuple[int | str, ...], text: str) -> str:
    """A field's place in an error: its path (``ramp[1].iops``) and, where the file's
    ``text`` tells, its line."""
    line = toml_line(text, loc)
    return _where(loc) + ("" if line is None else f" (line {line})")


def from_validation(
    path: Path,
    err: ValidationError,
    doc: str = "docs/report.md",
    model: type[BaseModel] | None = None,
    text: str = "",
) -> InputErrors:
    """pydantic's errors as input errors naming the file, the field (its line, given the
    file's ``text``) and a fix. An unknown key is one error, "did you mean" the key it most
    likely meant, and that key's "missing" goes with it: a typo (``autor``) is one line,
    not two."""
    found = err.errors()
    typos = {
        (*e["loc"][:-1], guess)
        for e in found
        if e["type"] == "extra_forbidden" and model and (guess := meant(model, e["loc"]))
    }
    errors = [
        _error(path, e, doc, model, text)
        for e in found
        if not (e["type"] == "missing" and e["loc"] in typos)
    ]
    return InputErrors(errors)


def _error(path: Path, e: Any, doc: str, model: type[BaseModel] | None, text: str) -> InputError:
    loc: tuple[int | str, ...] = e["loc"]
    keyed = [i for i, part in enumerate(loc) if isinstance(part, str)]  # not a position
    key = loc[: keyed[-1] + 1] if keyed else ()  # the place up to its last key
    line = toml_line(text, key) if key and e["type"] != "extra_forbidden" else None
    placed = _where(loc) if line is None else f"{_where(loc)} (line {line})"
    if e["type"] == "literal_error":  # a name not among the known ones: say which are
        hint = f"use one of {e['ctx']['expected']} (see {doc})"
        return InputError(path, placed, f"unknown value {e['input']!r}", hint)
    if e["type"] in _KIND_HINTS:  # a value of the wrong kind: its line and how to write it
        scalar = isinstance(e["input"], int | float | str) and not isinstance(e["input"], bool)
        shown = e["input"] if scalar else "…"
        hint = _KIND_HINTS[e["type"]].format(key=key[-1] if key else "key", input=shown)
        return InputError(path, placed, _message(e), f"{hint} (see {doc})")
    if e["type"] != "extra_forbidden":
        return InputError(path, placed, _message(e), _hint(e["type"], path.name, doc))
    line = toml_line(text, loc)
    where = _where(loc) if line is None else f"line {line}"
    what = f"unknown key {str(loc[-1])!r}" + (f" in {_where(loc[:-1])}" if len(loc) > 1 else "")
    guess = meant(model, loc) if model else None
    if model and not _close(model, loc, guess, text) and _misplaced_top(model, loc):
        header = f"[[{loc[0]}]]" if isinstance(loc[1], int) else f"[{loc[0]}]"
        return InputError(path, where, what, _misplaced(str(loc[-1]), header))
    if guess:
        return InputError(path, where, f"{what} — did you mean {guess!r}?")
    hint = (nearest(model, loc) if model else "") + _hint(e["type"], path.name, doc)
    return InputError(path, where, what, hint)


def _close(
    model: type[BaseModel], loc: tuple[int | str, ...], guess: str | None, text: str = ""
) -> bool:
    """Whether the near name guessed is more likely meant than a key of the top level:
    a synonym, or a spelling one letter away (``units`` for ``unit``), not a distant one
    (``edition`` for ``description``), nor one the table already sets (report.toml's
    ``text`` tells)."""
    if guess is None or (text and toml_line(text, (*loc[:-1], guess)) is not None):
        return False
    key, owner = str(loc[-1]).lower(), _model_at(model, loc[:-1])
    synonyms: dict[str, str] = getattr(owner, "synonyms", {})
    return key in synonyms or difflib.SequenceMatcher(None, key, guess).ratio() >= 0.8


def _misplaced_top(model: type[BaseModel], loc: tuple[int | str, ...]) -> bool:
    """A key of the top level found in a table, where the table does not say itself where
    that key belongs (``Source.elsewhere``)."""
    owner = _model_at(model, loc[:-1])
    said = owner is not None and loc[-1] in getattr(owner, "elsewhere", {})
    return len(loc) > 1 and loc[-1] in model.model_fields and not said


def _misplaced(key: str, header: str) -> str:
    """A key of the top level written below a table's header: TOML reads it as the
    table's (``chapters = [...]`` after ``[[charts]]``)."""
    return (
        f"{key!r} is a key of the top level: written below {header}, TOML reads it as that "
        "table's; move it above the first [...] or [[...]] header"
    )


def _message(e: Any) -> str:
    """pydantic's message, without the "Value error, " (or "Assertion failed, ") it puts
    before a validator's own words."""
    raised = e.get("ctx", {}).get("error")
    if e["type"] in ("value_error", "assertion_error") and raised is not None:
        return str(raised)
    return str(e["msg"])


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def toml_line(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The line (from 1) of ``text`` that writes the key at ``loc``: in the n-th item of an
    inline array where ``loc`` names one (``figures = [ {…}, {…} ]``), else the first
    assignment of it (also inside an inline table) under the table header that ``loc``
    lies in (the top level, ``[a]`` or the n-th ``[[a]]``); None where it cannot be told."""
    inline = _inline_item(text, loc)
    return inline if inline is not None else _assignment(text, loc)


def _inline_item(text: str, loc: tuple[int | str, ...]) -> int | None:
    for k, part in enumerate(loc[1:], start=1):
        array = loc[k - 1]
        if isinstance(part, int) and isinstance(array, str):
            key = loc[k + 1] if k + 1 < len(loc) else None
            found = item_line(text, array, part, key if isinstance(key, str) else None)
            if found is not None:
                return found
    return None


def _assignment(text: str, loc: tuple[int | str, ...]) -> int | None:
    key = re.escape(str(loc[-1]))
    assigns = re.compile(rf"(?:^|[\s{{,.\"']){key}[\"']?\s*=")
    counts: dict[str, int] = {}
    table: tuple[int | str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            names: tuple[int | str, ...] = tuple(
                n.strip().strip("\"'") for n in header[2].split(".")
            )
            if header[1] == "[[":
                counts[header[2]] = counts.get(header[2], -1) + 1
                names = (*names, counts[header[2]])
            table = names
        elif loc[: len(table)] == table and assigns.search(line.split("#")[0]):
            return number
    return None


# pydantic's error types of a value of the wrong kind -> how to write it in TOML
_KIND_HINTS = {
    "string_type": 'write it in quotes: {key} = "{input}"',
    "date_from_datetime_parsing": "write the date as year-month-day, without quotes: "
    "{key} = 2026-01-15",
    "date_parsing": "write the date as year-month-day, without quotes: {key} = 2026-01-15",
    "date_type": "write the date as year-month-day, without quotes: {key} = 2026-01-15",
    "int_parsing": "write a whole number, without quotes: {key} = 4",
    "int_type": "write a whole number, without quotes: {key} = 4",
    "int_from_float": "write a whole number, without a fraction: {key} = 4",
    "list_type": 'write a list in brackets: {key} = ["…", "…"]',
    "dict_type": 'write a text per language: {key} = {{ de = "…", en = "…" }}, or one text',
    "float_parsing": "write a number, without quotes: {key} = 1.5",
    "bool_parsing": "write true or false, without quotes: {key} = true",
}


def _hint(kind: str, name: str, doc: str) -> str:
    hints = {
        "missing": f"add this field to {name} (see {doc})",
        "extra_forbidden": f"remove or rename this field (see {doc} for the known fields)",
    }
    return hints.get(kind, f"correct the value (see {doc})")


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file (any BOM-marked Unicode), with every string and number checked."""
    return read_toml_text(path)[0]


def read_toml_text(path: Path) -> tuple[dict[str, Any], str]:
    """``read_toml``'s data, and the text it was read from (for the lines of errors)."""
    if not path.is_file():
        found = path.exists()
        said = "not a regular file (a FIFO, device or folder)" if found else "file not found"
        raise InputError(path, "", said, "name a file" if found else "check the path")
    text = read_text(path, MAX_TOML_BYTES)
    try:
        data = tomllib.loads(text)
        problems = [InputError(path, place, why, fix) for place, why, fix in _bad_values(data, "")]
    except tomllib.TOMLDecodeError as exc:
        where, message = _toml_place(text, str(exc))
        raise InputError(path, where, f"not valid TOML: {message}", "fix the TOML syntax") from None
    except RecursionError:  # [[[[…]]]] thousands deep: the parser's stack, not a traceback
        raise InputError(path, "", "arrays or tables nested too deeply", NESTING_HINT) from None
    if problems:
        raise InputErrors(problems)
    return data, text


NESTING_HINT = "nest arrays and tables a few levels deep, as report.toml's keys are"


MAX_WORD = 1000  # characters without a space, here and in the narrative (an address ≈ 300)
MAX_TOML_TEXT = 10_000  # characters of one text (the title goes into the PDF's metadata,
# whose strings hold at most 32,767)
LARGEST = schema.LARGEST  # larger figures are typing errors, and overflow the tables
# inputs.CONTROL (C0, DEL, C1, bidi overrides) but the tab and line ends of a text
CONTROL_IN_TEXT = _CONTROL = re.compile(f"(?![\t\n\r]){CONTROL}")


def _bad_values(value: Any, place: str) -> list[tuple[str, str, str]]:
    """(place, what is wrong, fix) for control characters and non-finite or huge numbers."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _bad_values(v, f"{place}.{k}".lstrip("."))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _bad_values(v, f"{place}[{i}]")]
    if isinstance(value, str) and _CONTROL.search(value):
        return [(place, "control character (e.g. NUL) in text", "remove it")]
    if isinstance(value, str) and len(value) > MAX_TOML_TEXT:
        why = f"a text of {len(value):,} characters"
        return [(place, why, f"keep it to {MAX_TOML_TEXT:,}; longer texts go into text/")]
    if isinstance(value, str) and len(value) > MAX_WORD:
        longest = max(value.split(), key=len, default="")
        if len(longest) > MAX_WORD:  # no line holds it, and typst takes long to try
            why = f"a word of {len(longest):,} characters"
            return [(place, why, f"break it with spaces (at most {MAX_WORD:,} without)")]
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and (not math.isfinite(value) or abs(value) > LARGEST):
        return [(place, f"number {value!r} out of range", f"give a number up to {LARGEST:g}")]
    return []


def _toml_place(text: str, message: str) -> tuple[str, str]:
    """tomllib says '(at line N, column M)' or '(at end of document)'; make it a place."""
    match = re.search(r" \(at line (\d+), column (\d+)\)$", message)
    if match:
        return f"line {match[1]}, column {match[2]}", message[: match.start()]
    if message.endswith(" (at end of document)"):
        lines = text.count("\n") or 1
        return f"line {lines} (end of file)", message.removesuffix(" (at end of document)")
    return "", message


Check = Callable[["Report", Path], list[InputError]]  # a layer above's check of report.toml


def load_report(folder: Path, model: type[Report], checks: Sequence[Check] = ()) -> Report:
    """Read and validate ``folder/report.toml`` by ``model`` (``Report`` with the readers'
    options: ``dataset.sources.load_report``) and ``checks`` (the layers above's: chart
    kinds, table names); every problem found before any data is read is reported at once,
    the checks run on the parts of the file that are valid on their own."""
    if not folder.is_dir():
        raise InputError(folder, "", "not a report folder", f"give a folder with {REPORT_FILE}")
    path = inside(folder, REPORT_FILE)
    if not path.is_file() and os.path.lexists(folder / "manifest.json"):  # not followed
        raise InputError(
            folder,
            "",
            f"a build's output (it holds manifest.json), not a report folder: no {REPORT_FILE}",
            f"give the report folder (the one with {REPORT_FILE} and the raw data) built into it",
        )
    data, text = read_toml_text(path)
    try:
        report = model.model_validate(data)
    except ValidationError as err:
        found = from_validation(path, err, model=model, text=text).errors
        said = {e.where for e in found}
        more = _salvaged(folder, path, data, model) + _checked(path, data, model, checks)
        raise InputErrors(found + [e for e in more if e.where not in said]) from None
    report = _expanded(folder, path, report)
    _check_sources(folder, path, report, [p for check in checks for p in check(report, path)])
    return report


def _checked(
    path: Path, data: dict[str, Any], model: type[Report], checks: Sequence[Check]
) -> list[InputError]:
    """``checks`` on the report.toml parts they read (charts, tables) that are valid on
    their own, when the whole is not."""
    if not checks:
        return []
    given = {k: (model.model_fields[k].annotation, data[k]) for k in _CHECKED if k in data}
    valid = {k: _valid(TypeAdapter(kind), v) for k, (kind, v) in given.items() if kind}
    parts = {k: v for k, v in valid.items() if v is not None}
    partial = model.model_construct(sources=[], **parts)
    return [p for check in checks for p in check(partial, path)]


_CHECKED = ("charts", "tables")  # what the checks of the layers above read


def _salvaged(
    folder: Path, path: Path, data: dict[str, Any], model: type[Report]
) -> list[InputError]:
    """The checks of the sources that report.toml's other mistakes would leave for the
    next run: each source that is valid on its own, its file and setup (the setups when
    they are valid), so that every problem is said at once."""
    item = get_args(model.model_fields["sources"].annotation)[0]
    raw = data.get("sources")
    sources = {
        i: s for i, r in enumerate(raw if isinstance(raw, list) else []) if (s := _valid(item, r))
    }
    problems = [p for i, s in sources.items() if (p := _file_problem(folder, path, s, i))]
    setups = _valid(TypeAdapter(list[Setup]), data.get("setups", [Setup()]))
    if setups is not None:
        names = {s.name for s in setups}
        problems += [p for i, s in sources.items() if (p := _setup_problem(path, i, s, names))]
    return problems


def _valid(model: Any, value: Any) -> Any:
    """``value`` validated by ``model`` (a model class or a TypeAdapter), else None."""
    try:
        return (
            model.validate_python(value)
            if isinstance(model, TypeAdapter)
            else (model.model_validate(value))
        )
    except ValidationError:
        return None


def _file_problem(folder: Path, path: Path, src: Source, index: int) -> InputError | None:
    """A source's file missing, or its glob or folder matching none."""
    where = f"sources[{index}].path"
    if src.is_pattern or (folder / src.path).is_dir():
        try:
            expand(folder, path, src.path, where)
        except InputError as err:
            return err
        return None
    return next(iter(_path_problems_of(folder, path, [(where, src.path)])), None)


def _base(pattern: str) -> str:
    """The folder a glob starts from (the part before its first wildcard), or the folder."""
    if not GLOB.search(pattern):
        return pattern
    return GLOB.split(pattern, maxsplit=1)[0].rpartition("/")[0]


def _matches(folder: Path, pattern: str) -> list[Path]:
    """The files a glob or folder names, sorted (hidden files of a folder left out)."""
    if GLOB.search(pattern):
        try:
            found = [p for p in folder.glob(pattern) if p.is_file()]
        except (NotImplementedError, ValueError):  # an absolute pattern
            return []
        return sorted(p for p in found if not p.name.startswith("."))
    target = folder / pattern
    return folder_files(target) if target.is_dir() else []


LONG_HINT = "name the files with a pattern that does not search the folders too long to open"


def folder_files(folder: Path) -> list[Path]:
    """The files a folder holds, sorted, hidden ones and subfolders left out (a folder of
    report.toml ``path``, of ``iopress ingest``)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def _bad_pattern(pattern: str) -> tuple[str, str] | None:
    """What is wrong with a file name or pattern before the file system is asked: a
    ``..`` after a wildcard (the part before it is what containment checks), a name
    longer than file systems take."""
    parts = pattern.split("/")
    if GLOB.search(pattern) and ".." in parts:
        why = f"{pattern!r} has '..' in a pattern: it may lead outside the report folder"
        return why, "name the files from the report folder down"
    if pattern.count("**") > 1:  # each one more multiplies the search: 4 took minutes
        why = f"{pattern!r} has more than one '**'"
        return why, "one '**' matches folders at any depth: 'raw/**/*.json'"
    if len(os.fsencode(pattern)) > 4096 or max(len(os.fsencode(p)) for p in parts) > 255:
        return f"{pattern[:60]!r}… is longer than a file name can be", "give a shorter name"
    return None


def _not_utf8(found: list[Path], path: Path, where: str) -> None:
    for file in found:
        if not is_utf8(file):
            name = shown(file if is_utf8(file.name) else file.name)  # a folder's or its own
            raise InputError(path, where, f"file name '{name}' is not UTF-8", RENAME)


RENAME = "rename it to a UTF-8 name (a byte that is not UTF-8 is shown as \\xNN)"


def expand(folder: Path, path: Path, pattern: str, where: str) -> list[Path]:
    """The files a file name, glob or folder of report.toml (``path``, at ``where``) names,
    at least one; a glob's matches may still be links out (checked where they are read)."""
    bad = _bad_pattern(pattern)
    if bad:
        raise InputError(path, where, *bad)
    if not (GLOB.search(pattern) or pattern.endswith("/") or (folder / pattern).is_dir()):
        found = [inside(folder, pattern, path, where)]
        if not found[0].is_file():
            raise InputError(
                path,
                where,
                f"file {pattern!r} not found",
                "check the path, relative to the report folder",
            )
        return found
    if not is_inside(folder, folder / _base(pattern)):  # nothing outside is even listed
        raise InputError(path, where, f"{pattern!r} leads outside the report folder", OUTSIDE_HINT)
    _not_too_deep(folder, pattern, path, where)
    try:
        found = _matches(folder, pattern)
    except OSError as exc:  # a path longer than the system takes (ENAMETOOLONG)
        raise InputError(path, where, f"{pattern!r}: {exc.strerror}", LONG_HINT) from None
    _not_through_links(folder, found, path, where)
    _not_utf8(found, path, where)
    if not found:
        raise InputError(path, where, f"{pattern!r} matches no file", _none_hint(folder, pattern))
    return found


# Folders a ``**`` glob searches at most (Python's glob recurses and fails at ≈ 900 deep);
# a benchmark archive nests a handful of levels.
MAX_DEPTH = 100


def _not_too_deep(folder: Path, pattern: str, path: Path, where: str) -> None:
    """Refused: a ``**`` glob over folders nested deeper than MAX_DEPTH."""
    if "**" not in pattern:
        return
    deep = too_deep(folder / _base(pattern), MAX_DEPTH)
    if deep is not None:
        name = deep.relative_to(folder).as_posix()
        name = name if len(name) <= 80 else f"{name[:40]}…{name[-30:]}"
        why = f"{pattern!r} searches folders nested more than {MAX_DEPTH} deep ({name!r})"
        raise InputError(path, where, why, "name the files with a shallower pattern")


def _not_through_links(folder: Path, found: list[Path], path: Path, where: str) -> None:
    """Refused: a match that lies outside the folder (a glob through a linked subfolder),
    named by the link that leads out, never by the names of the files outside. Each
    folder is resolved once; a file in a folder inside is outside only as a link."""
    folders: dict[Path, bool] = {}
    for match in found:
        if match.parent not in folders:
            folders[match.parent] = is_inside(folder, match.parent)
        if (folders[match.parent] and not match.is_symlink()) or is_inside(folder, match):
            continue
        step = folder
        for part in match.relative_to(folder).parts:
            step = step / part
            if not is_inside(folder, step):
                shown = step.relative_to(folder).as_posix()
                why = f"{shown!r} (a link) leads outside the report folder"
                raise InputError(path, where, why, OUTSIDE_HINT)


def _none_hint(folder: Path, pattern: str) -> str:
    """How to name the files of a folder that holds them only in its subfolders (a folder
    is read without them: ``raw/array-a/`` of ``raw/array-a/4k_r100/*.json``)."""
    target = folder / pattern
    if not GLOB.search(pattern) and target.is_dir() and any(target.rglob("*")):
        deeper = pattern.rstrip("/") + "/**/*"
        return f"a folder is read without its subfolders: name them, e.g. {deeper!r}"
    return "check the pattern, relative to the report folder"


def _expanded(folder: Path, path: Path, report: Report) -> Report:
    """The report with each glob or folder source replaced by one source per file; each
    file is then checked like a listed one (inside the folder, once)."""
    sources, problems = [], []
    for index, src in enumerate(report.sources):
        where = f"sources[{index}].path"
        bad = _bad_pattern(src.path)
        if bad:
            problems.append(InputError(path, where, *bad))
            continue
        if not (src.is_pattern or (folder / src.path).is_dir()):
            sources.append(src)
            continue
        try:
            found = expand(folder, path, src.path, where)
        except InputError as err:
            problems.append(err)
            continue
        for file in found:
            one = src.model_copy(update={"path": file.relative_to(folder).as_posix()})
            one._listed, one._index = f"{where} ({src.path!r})", index
            sources.append(one)
    if problems:
        raise InputErrors(problems)
    return report.model_copy(update={"sources": sources})


def provenance_files(folder: Path, report: Report) -> dict[str, list[Path]]:
    """The files ``machines`` and ``method`` name, per key (checked like sources)."""
    path = folder / REPORT_FILE
    found: dict[str, list[Path]] = {}
    problems: list[InputError] = []
    for key in ("machines", "method"):
        found[key] = []
        for index, pattern in enumerate(getattr(report, key)):
            try:
                where = f"{key}[{index}]"
                files = expand(folder, path, pattern, where)
                found[key] += [inside(folder, f.relative_to(folder), path, where) for f in files]
            except InputError as err:
                problems.append(err)
    if problems:
        raise InputErrors(problems)
    return found


def _files_named(report: Report) -> list[tuple[str, str]]:
    """(place in report.toml, path) of every file the report names; each must exist."""
    named = [(s.place(i), s.path) for i, s in enumerate(report.sources)]
    named += [
        (f"charts[{i}].source", c.source) for i, c in enumerate(report.charts or []) if c.source
    ]
    named += [(f"spc1[{i}]", n) for i, n in enumerate(report.spc1) if n.endswith(".toml")]
    return named


def _path_problems(folder: Path, path: Path, report: Report) -> list[InputError]:
    return _path_problems_of(folder, path, _files_named(report))


def _path_problems_of(folder: Path, path: Path, named: list[tuple[str, str]]) -> list[InputError]:
    problems = []
    for where, name in named:
        target = folder / name
        if not is_inside(folder, target):
            problems.append(
                InputError(path, where, f"{name!r} points outside the report folder", OUTSIDE_HINT)
            )
        elif not target.is_file():
            problems.append(
                InputError(
                    path,
                    where,
                    f"file {name!r} not found",
                    "check the path, relative to the report folder",
                )
            )
    return problems


def _setup_problems(path: Path, report: Report) -> list[InputError]:
    setups = {s.name for s in report.setups}
    found = [p for i, s in enumerate(report.sources) if (p := _setup_problem(path, i, s, setups))]
    return list({p.where: p for p in found}.values())  # a glob's files: their entry once


def _setup_problem(path: Path, index: int, src: Source, setups: set[str]) -> InputError | None:
    if src.setup in setups:
        return None
    where = src.key_place(index, "setup")
    return InputError(path, where, f"unknown setup {src.setup!r}", f"use one of {sorted(setups)}")


def _identity(target: Path) -> object:
    """A file as the file system knows it: one file under two names (a hard link) is one."""
    try:
        info = target.stat()
    except OSError:  # missing or unreadable: reported by the path checks
        return target
    return (info.st_dev, info.st_ino)


def _twice_problems(folder: Path, path: Path, report: Report) -> list[InputError]:
    """The same raw file listed twice (e.g. under two setups, or by a link or a hard link
    under another name) would count its load twice."""
    seen: dict[object, int] = {}
    problems = []
    for i, src in enumerate(report.sources):
        target = _identity(real(folder / src.path))
        if target in seen:
            j = seen[target]
            problems.append(
                InputError(
                    path,
                    src.key_place(i, "path"),
                    f"{src.path!r} is the same file as {report.sources[j].key_place(j, 'path')} "
                    f"({report.sources[j].path!r}, setup {report.sources[j].setup!r})",
                    "list each raw file once, under the setup it was measured with",
                )
            )
        seen.setdefault(target, i)
    return problems


def _check_sources(folder: Path, path: Path, report: Report, more: list[InputError]) -> None:
    problems = _path_problems(folder, path, report) + _setup_problems(path, report)
    problems += _twice_problems(folder, path, report) + more
    if problems:
        raise InputErrors(problems)
