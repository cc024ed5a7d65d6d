"""Worker processes that never outlive the command that started them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In each worker (Linux): SIGKILL when the parent dies, even by kill -9."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def pool(workers: int) -> ProcessPoolExecutor:
    """A spawn-context pool whose workers die with this process."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
