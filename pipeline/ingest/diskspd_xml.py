"""DiskSpd's XML results (``-Rxml``). See docs/formats/diskspd.md.

Parsed with expat, keeping each element's line: a document type declaration (and so any
entity) is refused, as DiskSpd never writes one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from pipeline.errors import InputError
from pipeline.ingest.base import stated_time
from pipeline.ingest.diskspd_parts import (
    TIME_LAYOUTS,
    BadFigure,
    Measured,
    Profile,
    Run,
    Span,
    whole,
)
from pipeline.language.message import Message

HINT = "give DiskSpd's XML output as it wrote it (-Rxml)"
# <Bucket><Percentile> -> the names iopress keeps
_PERCENTILES = {50.0: "p50", 90.0: "p90", 99.0: "p99", 99.9: "p999", 99.99: "p9999", 100.0: "max"}


@dataclass
class Node:
    tag: str
    line: int
    path: str
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)  # children so far, by tag

    @property
    def text(self) -> str:
        return "".join(self.parts).strip()

    def all(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]

    def first(self, *tags: str) -> Node | None:
        node: Node | None = self
        for tag in tags:
            node = next((c for c in node.children if c.tag == tag), None) if node else None
        return node

    def value(self, *tags: str) -> str | None:
        node = self.first(*tags)
        return node.text if node is not None else None


class _Refused(Exception):
    pass


MAX_DEPTH = 64  # DiskSpd's results nest fewer than 10 levels deep
MAX_NODES = 1_000_000  # a run of 4,000 threads with latency buckets has ≈ 200,000


def tree(text: str, path: Path) -> Node:
    """The document as nodes, each with its line and its path (``Results/TimeSpan[1]``)."""
    parser = expat.ParserCreate()
    root = Node("", 0, "")
    stack, count = [root], [0]

    def start(tag: str, _attrs: dict[str, str]) -> None:
        if len(stack) > MAX_DEPTH:  # each node keeps its path: memory grows with depth²
            raise _Refused("elements nested deeper than DiskSpd writes them")
        count[0] += 1
        if count[0] > MAX_NODES:  # ≈ 400 bytes a node: a 20 MB file of <a/> took 2.3 GB
            raise _Refused(f"more than {MAX_NODES:,} elements (DiskSpd writes far fewer)")
        parent = stack[-1]
        same = parent.seen[tag] = parent.seen.get(tag, 0) + 1
        place = f"{parent.path}/{tag}[{same}]" if parent.path else tag
        node = Node(tag, parser.CurrentLineNumber, place)
        parent.children.append(node)
        stack.append(node)

    def refuse(*_args: object) -> None:
        raise _Refused("a document type declaration (DiskSpd writes none)")

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda _tag: stack.pop()
    parser.CharacterDataHandler = lambda data: stack[-1].parts.append(data)
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(text, True)
    except expat.ExpatError as err:
        where = f"line {err.lineno}, column {err.offset + 1}"
        raise InputError(path, where, f"not XML: {expat.ErrorString(err.code)}", HINT) from None
    except _Refused as refused:
        where = f"line {parser.CurrentLineNumber}"
        raise InputError(path, where, str(refused), HINT) from None
    return root


def parse(text: str, path: Path) -> Run:
    root = tree(text, path).first("Results")
    if root is None:
        raise InputError(path, "line 1", "no <Results> element", HINT)
    run = Run(host=root.value("System", "ComputerName") or None)
    run.version = root.value("System", "Tool", "Version") or None
    run.time = stated_time(root.value("System", "RunTime") or "", TIME_LAYOUTS)
    profiles = _profiles(path, root)
    for number, result in enumerate(root.all("TimeSpan"), start=1):
        span = Span(number, result.line, result.path, profiles.get(number, {}), has_results=True)
        _span(path, result, span)
        run.spans.append(span)
    return run


def _profiles(path: Path, root: Node) -> dict[int, dict[str, Profile]]:
    spans = root.first("Profile", "TimeSpans")
    if spans is None:
        raise InputError(path, "line 1", "no <Profile><TimeSpans> (the parameters)", HINT)
    return {
        number: {t.value("Path") or "": _profile(path, span, t) for t in _targets(span)}
        for number, span in enumerate(spans.all("TimeSpan"), start=1)
    }


def _targets(span: Node) -> list[Node]:
    targets = span.first("Targets")
    return targets.all("Target") if targets else []


def _profile(path: Path, span: Node, target: Node) -> Profile:
    block = _setting(path, target, "BlockSize")
    write = _setting(path, target, "WriteRatio", 0)
    depth = _setting(path, span, "RequestCount", 0) or _setting(path, target, "RequestCount", 2)
    if not 0 < block <= 1 << 40 or write > 100 or depth < 1:
        what = f"<BlockSize> {block}, <WriteRatio> {write} or <RequestCount> {depth}"
        raise InputError(path, f"line {target.line}", f"{what}: out of range", HINT)
    random = target.first("Random") is not None
    return Profile("random" if random else "sequential", 100.0 - write, block, depth)


def _setting(path: Path, node: Node, tag: str, default: int | None = None) -> int:
    text = node.value(tag)
    if text is None and default is not None:
        return default
    if text is None or not whole(text):
        where = f"line {node.line}"
        raise InputError(path, where, f"<{tag}> is {text!r}, not a whole number", HINT)
    return int(text)


def _span(path: Path, result: Node, span: Span) -> None:
    seconds = _float(result.value("TestTimeSeconds"))
    span.seconds = seconds if seconds else None
    span.cpu_pct = _float(result.value("CpuUtilization", "Average", "UsagePercent"))
    latency = result.first("Latency")
    if latency is not None:
        span.percentiles[""] = _buckets(latency)
    for thread in result.all("Thread"):
        span.measured += [_measured(thread, target) for target in thread.all("Target")]


def _buckets(latency: Node) -> dict[str, float | None]:
    found: dict[str, float | None] = {}
    for bucket in latency.all("Bucket"):
        share = _float(bucket.value("Percentile"))
        if share in _PERCENTILES:
            value = _float(bucket.value("TotalMilliseconds"))
            found[_PERCENTILES[share]] = value if value and value > 0 else None
    return found


def _float(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and abs(value) < float("inf") else None


_COUNTS = (
    ("ios", "IOCount"),
    ("bytes", "BytesCount"),
    ("read_ios", "ReadCount"),
    ("read_bytes", "ReadBytes"),
    ("write_ios", "WriteCount"),
    ("write_bytes", "WriteBytes"),
)
_LATENCIES = (
    ("lat_ms", "AverageLatencyMilliseconds"),
    ("read_lat_ms", "AverageReadLatencyMilliseconds"),
    ("write_lat_ms", "AverageWriteLatencyMilliseconds"),
)


def _measured(thread: Node, target: Node) -> Measured:
    name = thread.value("Id") or "?"
    where = Message.of("where.record", path=target.path, line=target.line)
    found = Measured(name, target.value("Path") or "", target.line, where)
    try:
        for key, tag in _COUNTS:
            setattr(found, key, _count(target, tag, key in ("ios", "bytes")))
        for key, tag in _LATENCIES:
            setattr(found, key, _latency(target, tag))
    except BadFigure as bad:
        found.problem = bad.reason
    return found


def _count(target: Node, tag: str, required: bool) -> int | None:
    text = target.value(tag)
    if text is None and not required:
        return None
    if text is None or not whole(text):
        raise BadFigure(tag, str(text))
    return int(text)


def _latency(target: Node, tag: str) -> float | None:
    text = target.value(tag)
    if text is None:
        return None
    value = _float(text)
    if value is None or value < 0:
        raise BadFigure(tag, text)
    return value or None
