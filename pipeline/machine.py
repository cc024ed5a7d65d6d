"""What ran the load: a machine description, as ``iopress run`` writes it for the machine
that runs fio (``raw/env/machine.json``) and ``iopress machine`` for any other host (a fio
server's). report.toml's ``machines`` names them; the provenance appendix shows them."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field, ValidationError

from pipeline.config import Strict, from_validation
from pipeline.errors import InputError
from pipeline.inputs import read_text

MAX_BYTES = 1 << 20


class Machine(Strict):
    host: str = "local"  # "local", or the fio server's address host:port
    hostname: str
    fio: str = ""  # fio --version
    kernel: str = ""
    cpu: str = ""
    cpus: int | None = Field(default=None, gt=0)
    memory_bytes: int | None = Field(default=None, gt=0)
    targets: dict[str, str] = Field(default_factory=dict)  # target -> device model
    servers: list[str] = Field(default_factory=list)  # fio servers it drove
    command: str = ""  # fio's command line for each point; {point} is the point's name


def load_machine(path: Path) -> Machine:
    """A machine description, validated (unknown keys refused, the JSON path named)."""
    text = read_text(path, MAX_BYTES)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            path, f"line {err.lineno}, column {err.colno}", f"not JSON: {err.msg}", "write it again"
        ) from None
    try:
        return Machine.model_validate(data)
    except ValidationError as err:
        raise from_validation(path, err, "docs/campaign.md", Machine) from None


def save_machine(machine: Machine, path: Path) -> None:
    path.write_text(machine.model_dump_json(indent=2) + "\n", encoding="utf-8")
