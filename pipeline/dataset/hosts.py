"""The report's names of the hosts (``[[hosts]]``) and the hosts a tool names twice."""

from __future__ import annotations

from pathlib import Path

from pipeline.config import Report
from pipeline.errors import InputError, InputErrors


def host_names(report: Report, toml: Path, check: bool, found: list[str]) -> dict[str, str]:
    """The report's name (``[[hosts]]``) for each host name ``found`` in the data: a raw
    name matches itself, and one without a port the tool's one ``name:port`` (fio client/
    server; two servers on one address stay apart). A raw name no tool gave is an error
    when ``check`` (no file failed, whose hosts might be missing): the report would state
    a mapping the data does not have."""
    mapping: dict[str, str] = {}
    unknown: list[InputError] = []
    for i, host in enumerate(report.hosts):
        for j, raw in enumerate(host.raw):
            port = ported(raw, found)
            same = [raw] if raw in found else port if len(port) == 1 else []
            mapping |= dict.fromkeys(same, host.name)
            if not same:
                where = f"hosts[{i}].raw[{j}]"
                listed = ", ".join(sorted(found))
                said = f"no host {raw!r} in the data (its hosts: {listed})"
                unknown.append(InputError(toml, where, said, HOST_HINT))
    if unknown and check:
        raise InputErrors(unknown)
    return mapping


HOST_HINT = "write the name as the tool gives it (host or host:port), or leave it out"


def ported(name: str, hosts: list[str]) -> list[str]:
    """The ``name:port`` among ``hosts`` of a host name without a port."""
    return [] if ":" in name else [h for h in hosts if ":" in h and h.rsplit(":", 1)[0] == name]


def same_host(hosts: list[str]) -> dict[str, str]:
    """Each host name without a port that the data also has with exactly one port."""
    return {h: p[0] for h in hosts if len(p := ported(h, hosts)) == 1}
