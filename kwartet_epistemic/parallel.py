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

>>> process_context().get_start_method() in ("forkserver", "spawn")
True
"""

from __future__ import annotations

import multiprocessing
import sys
from importlib import import_module
from multiprocessing.context import BaseContext

__all__ = ["PRELOAD", "process_context"]

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
