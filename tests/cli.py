"""Running the ``iopress`` command line from a test, declared once for every test module.

``iopress`` runs it in this process: no interpreter start and no library import per call,
and the worker's Vega engine stays warm, so a refused report is answered in milliseconds.
What only a process of its own shows stays with ``iopress_process``: signals, a memory
ceiling, a timeout that kills, a bare environment (``tests/test_security.py`` has the
attacks that need them)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline import cli, console

ROOT = Path(__file__).resolve().parent.parent
WIDE = 1000  # columns: rich folds long lines at 80 otherwise, and grep misses file names


@dataclass(frozen=True)
class Ran:
    """What a command did: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.returncode}\n{(self.stdout + self.stderr)[-3000:]}"


@contextlib.contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _exit_code(stop: SystemExit) -> int:
    if stop.code is None:
        return 0
    return stop.code if isinstance(stop.code, int) else 1


def iopress(*args: str | Path, cwd: Path | None = None, **env: str | Path) -> Ran:
    """``iopress args`` in this process (in ``cwd``, with ``env`` added to the environment);
    an exception that escapes the CLI is printed as a traceback and exits 1, as it would."""
    out, err = io.StringIO(), io.StringIO()
    for terminal in (console.out_console, console.err_console):
        terminal.width = WIDE
    with (
        contextlib.chdir(cwd or Path.cwd()),
        _environment({k: str(v) for k, v in env.items()}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            cli.invoke([str(a) for a in args])
            code = 0
        except SystemExit as stop:
            code = _exit_code(stop)
        except Exception:  # shown as the process would show it
            traceback.print_exc()
            code = 1
    return Ran(code, out.getvalue(), err.getvalue())


def iopress_process(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Ran:
    """``iopress args`` as a process of its own (``python -m pipeline.cli``), this checkout's
    code first on the path; ``env`` replaces the environment when given."""
    base = env if env is not None else dict(os.environ)
    base = {**base, "PYTHONPATH": str(ROOT), "COLUMNS": str(WIDE)}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=base,
        check=False,
        timeout=600,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def iopress_session(*args: str | Path) -> subprocess.Popen[bytes]:
    """``iopress args`` started in a session of its own (a signal to its group reaches it
    alone, as Ctrl-C reaches a command in a terminal), its output dropped."""
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
