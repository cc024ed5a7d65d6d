"""Worker processes that never outlive the command that started them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import types
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import SpawnContext, SpawnProcess

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In each worker (Linux): SIGKILL when the parent dies, even by kill -9."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


@contextlib.contextmanager
def _bare_main() -> Iterator[None]:
    """While a worker is started: a main module with neither file nor name. A spawned
    worker imports the parent's main module (as ``__mp_main__``) before its first job;
    for a build that is the ``iopress`` script and with it the whole command line (typer,
    the commands): ≈ 0.15 CPU-s per worker. Workers run only functions of ``pipeline``'s
    modules, which they import by name."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


class _Process(SpawnProcess):
    def start(self) -> None:
        with _bare_main():
            super().start()


class _Context(SpawnContext):
    Process = _Process


def pool(workers: int) -> ProcessPoolExecutor:
    """A spawn-context pool whose workers die with this process and do not import its
    main module."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_Context(),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
