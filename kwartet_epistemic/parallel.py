"""Worker processes without ``fork``: the start method every process pool here uses.

A forked child copies the parent as it is, threads' locks included, and a lock that some
other thread held at that moment stays locked forever in the child: a pool forked from a
threaded program (a Jupyter kernel, a GUI, a program using dask or torch) can hang, and
macOS does not support fork for that reason.  So pools start their workers with
``forkserver`` where the platform has it (Linux, macOS: a clean server process, started
once, forks the workers) and with ``spawn`` elsewhere (Windows: a fresh interpreter per
worker).  Either way a worker imports what it runs: the function a pool calls must be
importable at module level (not a lambda or a function defined inside another), and its
arguments picklable.  The server imports :mod:`kwartet_epistemic.agents` once
(``set_forkserver_preload``), so each worker starts with the library loaded.

A worker ends when the process that made its pool ends, however it ends: killed with
SIGKILL, the caller cannot shut its pool down, and a worker blocked on its task queue (it
holds that queue's other end itself) would wait forever, keeping the forkserver and the
resource tracker alive and the caller's output pipes open.  :func:`process_pool` and
:func:`process_executor` start each worker with a thread that watches the caller
(:func:`end_with`).

>>> process_context().get_start_method() in ("forkserver", "spawn")
True
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from importlib import import_module
from multiprocessing.context import BaseContext
from typing import Any

__all__ = ["PRELOAD", "end_with", "process_context", "process_executor", "process_pool"]

PRELOAD = ("kwartet_epistemic.agents",)
"""Modules the forkserver imports once, before it forks any worker."""


def process_context() -> BaseContext:
    """The ``multiprocessing`` context for worker pools: ``forkserver`` (with the library
    preloaded) where available, else ``spawn``; never ``fork``.

    >>> with process_context().Pool(1) as pool:
    ...     pool.map(abs, [-2, 3])
    [2, 3]
    """
    if sys.platform != "win32" and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Keep what the program asked the server to preload, and add the library.
        server = getattr(import_module("multiprocessing.forkserver"), "_forkserver", None)
        wanted = list(getattr(server, "_preload_modules", None) or [])
        context.set_forkserver_preload(wanted + [m for m in PRELOAD if m not in wanted])
        return context
    return multiprocessing.get_context("spawn")


def end_with(pid: int, *, interval: float = 0.5) -> threading.Thread | None:
    """End this process at once (SIGKILL to itself: no cleanup runs, and code busy in a loop
    is stopped too) as soon as process ``pid`` has ended; returns the
    daemon thread that watches it (``None`` on Windows, where a dead parent's pipes end its
    workers instead, and ``os.kill`` cannot probe a process without ending it).

    On Linux the thread waits on a pidfd (woken the moment ``pid`` ends); elsewhere it
    checks every ``interval`` seconds.

    >>> end_with(os.getpid()).daemon  # watching itself: never fires while it runs
    True
    """
    if sys.platform == "win32":
        return None

    def watch() -> None:
        try:
            handle = os.pidfd_open(pid)
        except (AttributeError, OSError):
            handle = None
        if handle is not None:
            select.select([handle], [], [])  # readable once the process has ended
        else:
            while True:
                time.sleep(interval)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:  # alive, owned by another user
                    pass
        os.kill(os.getpid(), signal.SIGKILL)

    thread = threading.Thread(target=watch, name=f"end-with-{pid}", daemon=True)
    thread.start()
    return thread


def _start_worker(
    caller: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]
) -> None:
    end_with(caller)
    if initializer is not None:
        initializer(*initargs)


def process_pool(
    processes: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> multiprocessing.pool.Pool:
    """A ``multiprocessing`` pool of ``processes`` workers in :func:`process_context`,
    each of which ends when this process ends (then runs ``initializer(*initargs)``).

    >>> with process_pool(1) as pool:
    ...     pool.map(abs, [-2, 3])
    [2, 3]
    """
    return process_context().Pool(
        processes, initializer=_start_worker, initargs=(os.getpid(), initializer, initargs)
    )


def process_executor(
    max_workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` of ``max_workers`` workers in :func:`process_context`,
    each of which ends when this process ends (then runs ``initializer(*initargs)``).

    >>> with process_executor(1) as executor:
    ...     list(executor.map(abs, [-2, 3]))
    [2, 3]
    """
    return ProcessPoolExecutor(
        max_workers,
        mp_context=process_context(),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )
