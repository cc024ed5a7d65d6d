"""SPC-1 executive-summary records (TOML). See docs/formats/spc1.md.

Not a measurement format of the registry: a record is a published result of another
system, compared with ours. Each file holds one submission.
"""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.config import Currency, field_place, from_validation, read_toml_text
from pipeline.errors import InputError, InputErrors
from pipeline.inputs import inside
from pipeline.paths import ROOT
from pipeline.units import per_kiops

CATALOGUE = ROOT / "data" / "spc1"
DOC = "docs/formats/spc1.md"
LOADS = (10.0, 50.0, 80.0, 90.0, 95.0, 100.0)  # the SPC-1 response-time ramp's levels
REQUIRED_LOADS = (10.0, 50.0, 100.0)
PRICE_PERFORMANCE_TOLERANCE = 0.01
# SPC-1 runs each level of the ramp at its share of the 100 % level's BSUs: its IOPS are
# that share of the 100 % level's (the catalogue's within 0.1 %), here within 5 %
SHARE_TOLERANCE = 0.05
# a response time may fall below that of a lower load by at most 10 % (rounding, cache
# effects of a light load), never more
LATENCY_FALL_TOLERANCE = 0.10
MAX_RESPONSE_MS = 30.0  # SPC-1: no result whose average response time exceeds 30 ms

Loc = tuple[int | str, ...]
Problem = tuple[Loc, str, str]  # a field's place, what is wrong, how to fix it


class RampPoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    load_pct: float = Field(gt=0, le=100)
    iops: float = Field(gt=0)
    lat_ms: float = Field(gt=0)


class Spc1Record(BaseModel):
    """One SPC-1 result as its executive summary states it; ``consistency`` checks that
    its figures agree with one another as SPC-1 requires."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submission: str = Field(min_length=1)
    sponsor: str
    product: str
    short_name: str
    date: dt.date | None = None
    spc1_iops: float = Field(gt=0)
    price: float = Field(gt=0)
    currency: Currency
    price_per_kiops: float | None = Field(default=None, gt=0)
    capacity_tb: float = Field(gt=0, description="usable: storage pool after protection")
    asu_capacity_tb: float | None = Field(default=None, gt=0)
    physical_capacity_tb: float | None = Field(default=None, gt=0)
    protection: str | None = None
    media: str | None = None
    rack_units: int | None = Field(default=None, gt=0)
    source: str = Field(pattern=r"^https?://")
    ramp: list[RampPoint] = Field(min_length=3)

    def at_load(self, load_pct: float) -> RampPoint | None:
        return next((p for p in self.ramp if p.load_pct == load_pct), None)


def consistency(record: Spc1Record) -> list[Problem]:
    """What in ``record`` contradicts itself or the SPC-1 rules: the ramp's levels, each
    level's IOPS against its share of the 100 % level's, response times that fall as the
    load rises, the 30 ms limit, the price per 1,000 IOPS, the capacities' order."""
    problems = _levels(record.ramp)
    if problems:  # the other checks need the levels
        return problems
    problems += _full(record) + _shares(record.ramp) + _response(record.ramp)
    first: dict[Loc, Problem] = {}
    for problem in problems + _price(record) + _capacities(record):
        first.setdefault(problem[0], problem)  # a field once, by its first problem
    return list(first.values())


def _levels(ramp: list[RampPoint]) -> list[Problem]:
    loads = [p.load_pct for p in ramp]
    shown = ", ".join(f"{x:g}" for x in loads)
    allowed = ", ".join(f"{x:g}" for x in LOADS)
    if loads != sorted(loads) or len(set(loads)) != len(loads):
        fix = "list the [[ramp]] points once each, from the lowest load to 100 %"
        return [(("ramp",), f"the load levels {shown} % are not in rising order", fix)]
    problems: list[Problem] = [
        (
            ("ramp", i, "load_pct"),
            f"{p.load_pct:g} % is no level of the SPC-1 ramp",
            f"give the levels SPC-1 runs: {allowed} %",
        )
        for i, p in enumerate(ramp)
        if p.load_pct not in LOADS
    ]
    missing = ", ".join(f"{x:g}" for x in REQUIRED_LOADS if x not in loads)
    if missing:
        fix = "add the executive summary's response-time ramp at 10, 50 and 100 % load"
        problems.append((("ramp",), f"the ramp lacks the load level(s) {missing} %", fix))
    return problems


def _full(record: Spc1Record) -> list[Problem]:
    """The 100 % level is the SPC-1 IOPS."""
    full = record.ramp[-1]
    if abs(full.iops / record.spc1_iops - 1) <= PRICE_PERFORMANCE_TOLERANCE:
        return []
    what = f"{full.iops:,.0f} IOPS at 100 % load, but spc1_iops is {record.spc1_iops:,.0f}"
    fix = "the 100 % level of the ramp is the SPC-1 IOPS: correct one of the two"
    return [(("ramp", len(record.ramp) - 1, "iops"), what, fix)]


def _shares(ramp: list[RampPoint]) -> list[Problem]:
    """Each level's IOPS near its share of the 100 % level's."""
    full = ramp[-1].iops
    problems: list[Problem] = []
    for i, p in enumerate(ramp[:-1]):
        share = p.iops / full * 100
        if abs(share / p.load_pct - 1) > SHARE_TOLERANCE:
            what = (
                f"{p.iops:,.0f} IOPS at {p.load_pct:g} % load is {share:.3g} % of the "
                f"100 % level's {full:,.0f} IOPS, not about {p.load_pct:g} %"
            )
            expected = full * p.load_pct / 100
            fix = (
                f"SPC-1 runs each level at its share of the 100 % level (here about "
                f"{expected:,.0f} IOPS): copy the figure from the executive summary's "
                "response-time ramp (a digit or a thousands separator lost?)"
            )
            problems.append((("ramp", i, "iops"), what, fix))
    return problems


def _response(ramp: list[RampPoint]) -> list[Problem]:
    """IOPS that rise with the load, response times that do not fall as it rises (beyond
    the tolerance), and the SPC-1 limit at 100 %."""
    problems: list[Problem] = []
    for i, (low, high) in enumerate(itertools.pairwise(ramp), start=1):
        if high.iops <= low.iops:
            what = f"{high.iops:,.0f} IOPS at {high.load_pct:g} % load, no more than at "
            what += f"{low.load_pct:g} %"
            problems.append((("ramp", i, "iops"), what, "IOPS rise with the load: correct it"))
        slowest = max(p.lat_ms for p in ramp[:i])
        if high.lat_ms < slowest * (1 - LATENCY_FALL_TOLERANCE):
            what = (
                f"{high.lat_ms:g} ms at {high.load_pct:g} % load, more than "
                f"{LATENCY_FALL_TOLERANCE * 100:g} % below the {slowest:g} ms of a lower load"
            )
            fix = "the response time does not fall as the load rises: copy it from the ramp"
            problems.append((("ramp", i, "lat_ms"), what, fix))
    full = ramp[-1].lat_ms
    if full > MAX_RESPONSE_MS:
        what = f"{full:g} ms at 100 % load: SPC-1 accepts no result above {MAX_RESPONSE_MS:g} ms"
        fix = "give the response time in ms (not µs), or leave out a result SPC-1 refused"
        problems.append((("ramp", len(ramp) - 1, "lat_ms"), what, fix))
    return problems


def _price(record: Spc1Record) -> list[Problem]:
    if record.price_per_kiops is None:
        return []
    exact = per_kiops(record.price, record.spc1_iops)
    if abs(record.price_per_kiops / exact - 1) <= PRICE_PERFORMANCE_TOLERANCE:
        return []
    what = (
        f"{record.price_per_kiops:g} does not follow from price / SPC-1 IOPS × 1000 = {exact:.2f}"
    )
    return [
        (("price_per_kiops",), what, "correct price, spc1_iops or price_per_kiops, or leave it out")
    ]


def _capacities(record: Spc1Record) -> list[Problem]:
    """Physical ≥ usable (storage pool) ≥ ASU capacity."""
    problems: list[Problem] = []
    physical, usable, asu = record.physical_capacity_tb, record.capacity_tb, record.asu_capacity_tb
    if physical is not None and physical < usable:
        what = f"{physical:g} TB physical, less than the {usable:g} TB usable (capacity_tb)"
        fix = "physical_capacity_tb is the raw capacity, capacity_tb the pool after data protection"
        problems.append((("physical_capacity_tb",), what, fix))
    if asu is not None and asu > usable:
        what = f"{asu:g} TB of ASUs, more than the {usable:g} TB usable (capacity_tb)"
        fix = "the ASUs lie in the storage pool: check both figures against the executive summary"
        problems.append((("asu_capacity_tb",), what, fix))
    return problems


def load(path: Path) -> Spc1Record:
    """Read and validate one record; every problem names the file, the field and a fix."""
    data, text = read_toml_text(path)
    try:
        record = Spc1Record.model_validate(data)
    except ValidationError as err:
        raise from_validation(path, err, DOC, Spc1Record, text) from None
    problems = consistency(record)
    if problems:
        raise InputErrors(
            [
                InputError(path, field_place(loc, text), what, f"{fix} (see {DOC})")
                for loc, what, fix in problems
            ]
        )
    return record


def resolve(name: str, folder: Path, where: Path, place: str) -> Path:
    """A submission id from the catalogue (data/spc1/ID.toml) or a file in the report
    folder; either must resolve inside its folder."""
    if name.endswith(".toml"):
        return inside(folder, name, where, place)
    try:
        return inside(CATALOGUE, f"{name}.toml", where, place)
    except InputError:
        raise InputError(where, place, f"{name!r} is not an SPC-1 submission id", ID_HINT) from None


ID_HINT = "name a record of data/spc1/ by its id (e.g. AE00008) or a .toml file in the report"


def load_all(names: list[str], folder: Path, where: Path) -> list[Spc1Record]:
    records, problems = [], []
    for i, name in enumerate(names):
        try:
            path = resolve(name, folder, where, f"spc1[{i}]")
        except InputError as err:
            problems.append(err)
            continue
        if not path.is_file():
            problems.append(
                InputError(
                    where,
                    f"spc1[{i}]",
                    f"no SPC-1 record {name!r}",
                    f"add {path.name} to data/spc1/ or give a .toml file in the report folder",
                )
            )
            continue
        try:
            records.append(load(path))
        except InputErrors as errs:
            problems += errs.errors
    if problems:
        raise InputErrors(problems)
    return records
