"""When the partitioned ``*_par`` kernels (``jit_parallel`` in ``_policy.py``) run instead
of the serial ones. Pure Python: consulted on every large copy/add, after validation.

Two hazards decide the rules besides the size threshold:

* Launching Numba's thread pool costs tens of microseconds (more when the cores are busy),
  so small arrays stay serial: see :data:`PARALLEL_MIN_NUMEL`.
* With the GNU OpenMP threading layer (Numba's default on Linux when TBB is absent), a
  process forked *after* a parallel region ran aborts as soon as it launches one
  ("fork() called from a process already using GNU OpenMP"). A forked child (a DataLoader
  worker, ``multiprocessing`` with the fork start method) therefore stays serial.
  The serial and parallel kernels give bit-identical results, so this changes only speed.
"""
from __future__ import annotations

import os

PARALLEL_MIN_NUMEL = 1 << 20
"""Elements below which copies/adds stay serial. Measured on 2 idle cores: at 2**20
float32 elements a serial contiguous copy takes ~0.14 ms and the 2-thread one ~0.09 ms;
at 2**18 both take ~0.03 ms, so the pool launch (~10 us when its threads are awake) buys
nothing. On busy cores a parallel region waits for a descheduled worker (milliseconds),
whatever its size: ``numba.set_num_threads(1)`` (or ``NUMBA_NUM_THREADS=1``) turns the
parallel kernels off entirely."""

_MIN_CHUNK = 64  # the *_par kernels round chunk starts down to multiples of 64

_state = {"launched": False, "forked": False}


def _after_fork_in_child() -> None:
    if _state["launched"]:
        _state["forked"] = True


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def chunks_for(numel: int, outer: int) -> int:
    """How many disjoint chunks of the outermost (coalesced) dimension, of size ``outer``,
    to hand to a ``*_par`` kernel; 1 means run the serial kernel."""
    if numel < PARALLEL_MIN_NUMEL or _state["forked"]:
        return 1
    from numba import get_num_threads  # reached only with a kernel about to run

    chunks = min(get_num_threads(), outer // _MIN_CHUNK)
    if chunks < 2:
        return 1
    _state["launched"] = True  # (set slightly early if the caller then stays serial: harmless)
    return chunks
