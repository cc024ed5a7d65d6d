"""SPC-1 executive-summary records (TOML). See docs/formats/spc1.md.

Not a measurement format of the registry: a record is a published result of another
system, compared with ours. Each file holds one submission.
"""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from pipeline.config import Currency, from_validation, read_toml
from pipeline.errors import InputError, InputErrors
from pipeline.inputs import inside
from pipeline.paths import ROOT
from pipeline.units import per_kiops

CATALOGUE = ROOT / "data" / "spc1"
REQUIRED_LOADS = (10.0, 50.0, 100.0)
PRICE_PERFORMANCE_TOLERANCE = 0.01


class RampPoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    load_pct: float = Field(gt=0, le=100)
    iops: float = Field(gt=0)
    lat_ms: float = Field(gt=0)


class Spc1Record(BaseModel):
    """One SPC-1 result as its executive summary states it."""

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

    @field_validator("ramp")
    @classmethod
    def _ramp(cls, ramp: list[RampPoint]) -> list[RampPoint]:
        _check_ramp(ramp)
        return ramp

    @model_validator(mode="after")
    def _consistent(self) -> Spc1Record:
        full = self.ramp[-1]
        if abs(full.iops / self.spc1_iops - 1) > PRICE_PERFORMANCE_TOLERANCE:
            raise ValueError(
                f"ramp: the 100 % point ({full.iops:g} IOPS) is not spc1_iops ({self.spc1_iops:g})"
            )
        if self.price_per_kiops is not None:
            exact = per_kiops(self.price, self.spc1_iops)
            if abs(self.price_per_kiops / exact - 1) > PRICE_PERFORMANCE_TOLERANCE:
                raise ValueError(
                    f"price_per_kiops: {self.price_per_kiops:g} does not follow from "
                    f"price / SPC-1 IOPS × 1000 = {exact:.2f}"
                )
        return self

    def at_load(self, load_pct: float) -> RampPoint | None:
        return next((p for p in self.ramp if p.load_pct == load_pct), None)


def _check_ramp(ramp: list[RampPoint]) -> None:
    loads = [p.load_pct for p in ramp]
    if loads != sorted(loads) or len(set(loads)) != len(loads):
        raise ValueError(f"ramp must be ordered by rising load without repeats, got {loads}")
    missing = [f"{x:g}" for x in REQUIRED_LOADS if x not in loads]
    if missing:
        raise ValueError(f"ramp lacks the load level(s) {', '.join(missing)} %")
    for low, high in itertools.pairwise(ramp):
        if high.iops <= low.iops or high.lat_ms < low.lat_ms:
            raise ValueError(
                f"ramp not monotonic between {low.load_pct:g} % and "
                f"{high.load_pct:g} %: IOPS must rise and latency must not fall"
            )


def load(path: Path) -> Spc1Record:
    """Read and validate one record; every problem names the file and the field."""
    try:
        return Spc1Record.model_validate(read_toml(path))
    except ValidationError as err:
        raise from_validation(path, err, "docs/formats/spc1.md") from None


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
