"""An SPC-1 record agrees with itself as the SPC-1 rules require: each level of the
response-time ramp at about its share of the 100 % level's IOPS, IOPS rising and the
response time not falling (beyond a tolerance) as the load rises, at most 30 ms at 100 %,
the levels SPC-1 runs, the capacities in their order. Each problem names the file, the
field with its line and a fix; the catalogue's records pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.errors import InputErrors
from pipeline.ingest import spc1
from pipeline.paths import ROOT

OK = (ROOT / "data" / "spc1" / "AE00008.toml").read_text(encoding="utf-8")
TENFOLD = [("spc1_iops = 440011", "spc1_iops = 4400110"), ("\niops = 440011", "\niops = 4400110")]


@pytest.mark.parametrize("path", sorted(spc1.CATALOGUE.glob("*.toml")), ids=lambda p: p.stem)
def test_the_catalogue_passes(path: Path) -> None:
    assert spc1.consistency(spc1.load(path)) == []


def _refused(tmp_path: Path, *changes: tuple[str, str]) -> str:
    text = OK
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "X.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        spc1.load(path)
    return str(caught.value).replace(f"{path}: ", "")


def test_a_level_far_from_its_share_of_the_full_load(tmp_path: Path) -> None:
    """4.4 M IOPS at 100 % but 220 k at 50 %: monotonic, and still impossible."""
    said = _refused(tmp_path, *TENFOLD)
    assert "ramp[1].iops (line 23): 219,977 IOPS at 50 % load is 5 % of the 100 % level's " in said
    assert "4,400,110 IOPS, not about 50 %" in said
    assert "here about 2,200,055 IOPS" in said and "docs/formats/spc1.md" in said
    assert "ramp[0].iops (line 18): 43,986 IOPS at 10 % load is 1 % " in said


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ("lat_ms = 0.30", "lat_ms = 0.2"),
            "ramp[1].lat_ms (line 24): 0.2 ms at 50 % load, more than 10 % below the 0.24 ms",
        ),
        (("lat_ms = 0.49", "lat_ms = 49"), "ramp[2].lat_ms (line 29): 49 ms at 100 % load: SPC-1"),
        (("load_pct = 50\n", "load_pct = 60\n"), "ramp[1].load_pct (line 22): 60 % is no level"),
        (
            ("\niops = 440011", "\niops = 300000"),
            "ramp[2].iops (line 28): 300,000 IOPS at 100 % load",
        ),
        (
            ("physical_capacity_tb = 68.4", "physical_capacity_tb = 6.84"),
            "physical_capacity_tb (line 11): 6.84 TB physical, less than the 57 TB usable",
        ),
        (
            ("rack_units = 2", "rack_units = 2\nasu_capacity_tb = 60"),
            "asu_capacity_tb (line 14): 60 TB of ASUs, more than the 57 TB usable",
        ),
        (
            ("rack_units = 2", "rack_units = 2\nprice_per_kiops = 3"),
            "price_per_kiops (line 14): 3 does not follow from price / SPC-1 IOPS × 1000",
        ),
    ],
)
def test_each_contradiction_names_its_field(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    said = _refused(tmp_path, change)
    assert expected in said and "\n  hint: " in said
    assert "Value error" not in said


def test_a_small_fall_of_the_response_time_is_accepted(tmp_path: Path) -> None:
    """A light load's response time a little above the next level's (rounding, caching)."""
    path = tmp_path / "X.toml"
    path.write_text(OK.replace("lat_ms = 0.30", "lat_ms = 0.23", 1), encoding="utf-8")
    assert spc1.load(path).at_load(50) is not None


def test_a_reports_own_record_is_refused_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    (folder / "spc1").mkdir(parents=True)
    shutil.copy(spc1.CATALOGUE / "AE00008.toml", folder / "spc1" / "mine.toml")
    own = folder / "spc1" / "mine.toml"
    own.write_text(OK.replace(*TENFOLD[0]).replace(*TENFOLD[1]), encoding="utf-8")
    with pytest.raises(InputErrors) as caught:
        spc1.load_all(["A00163", "spc1/mine.toml"], folder, folder / "report.toml")
    assert f"{own}: ramp[1].iops (line 23): 219,977 IOPS at 50 % load" in str(caught.value)
