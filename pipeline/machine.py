"""What ran the load: a machine description, as ``iopress run`` writes it for the machine
that runs fio (``raw/env/machine.json``) and ``iopress machine`` for any other host (a fio
server's). report.toml's ``machines`` names them; the provenance appendix shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, StrictInt, StringConstraints, ValidationError

from pipeline.config import Strict, from_validation
from pipeline.inputs import CONTROL, parse_json, read_text

MAX_BYTES = 1 << 20


# one line of printable text, as long as a command line may reasonably be: no control
# character (inputs.CONTROL: C0, DEL, C1, bidi overrides)
Line = Annotated[str, StringConstraints(max_length=4096, pattern=f"^[^{CONTROL[1:-1]}]*$")]


class Machine(Strict):
    host: Line = "local"  # "local", or the fio server's address host:port
    hostname: Annotated[Line, StringConstraints(min_length=1)]
    fio: Line = ""  # fio --version
    kernel: Line = ""
    cpu: Line = ""
    cpus: StrictInt | None = Field(default=None, gt=0, le=1 << 20)
    memory_bytes: StrictInt | None = Field(default=None, gt=0, le=1 << 60)
    targets: dict[Line, Line] = Field(default_factory=dict, max_length=256)  # -> device model
    servers: list[Line] = Field(default_factory=list, max_length=256)  # fio servers it drove
    command: Line = ""  # fio's command line for each point; {point} is the point's name


def load_machine(path: Path) -> Machine:
    """A machine description, validated (unknown keys refused, the JSON path named)."""
    text = read_text(path, MAX_BYTES)
    data = parse_json(text, path)
    try:
        return Machine.model_validate(data)
    except ValidationError as err:
        raise from_validation(path, err, "docs/campaign.md", Machine) from None


def save_machine(machine: Machine, path: Path) -> None:
    path.write_text(machine.model_dump_json(indent=2) + "\n", encoding="utf-8")
