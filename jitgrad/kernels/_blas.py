"""``one_blas_thread()``: NumPy's OpenBLAS held to one thread around work whose products
threads cannot speed up (a recurrent layer's), decided by ``one_thread_pays``; and
``set_blas_threads``, the BLAS side of ``jitgrad.set_num_threads``.

Why: OpenBLAS splits every product above ~2**18 multiply-adds over its threads, and a
split product ends when its slowest thread does. A recurrent layer's input projection and
weight gradients are such products (an LSTM of 50 steps, batch 8, hidden 32: 0.8M and 1.6M
multiply-adds); on a 2-core machine with another process running, each took ~10 ms with
the default thread count, waiting for a worker the scheduler had not run, and ~40 us on
one thread (the layer's forward+backward: 38 ms against 2.4 ms). Products up to
``SMALL_PRODUCT`` cannot pay for threads even on idle cores, so they run on one.

The decision depends on the sizes only, never on the machine's load: OpenBLAS's results
depend on its thread count (1 against 2 threads, float64 and float32 ``a @ b``: 192 of 1150
shapes and layouts tried differ in the last bits, e.g. 64 x 1000 times 1000 x 64), so a
rule that read the load (as the Numba copy kernels' ``_parallel.idle_cpus`` does, whose
serial and parallel kernels agree bit for bit) would make a layer's values depend on what
else the machine was running. (It did: an LSTM of 50 steps, batch 8, 1000 inputs, 64
hidden gave other outputs and gradients with a core busy; tests/test_nn_rnn_fused.py.)
Larger products run on the count the user chose: ``jitgrad.set_num_threads(1)`` (or
``OPENBLAS_NUM_THREADS=1``) on a machine shared with other busy processes.

How, safely: NumPy's wheels bundle OpenBLAS as ``numpy.libs/*openblas*``; its thread count
is set through ``ctypes`` (the names differ by build: SciPy's builds prefix and suffix
them). The count is process-wide (OpenBLAS's ``*_local`` setter is too, in pthreads
builds), so the first caller in remembers it and the last one out restores it, under a
lock, and only if nobody changed it meanwhile. Without such a library (another BLAS, a
NumPy without OpenBLAS, a failed load) nothing is done.
"""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import threading
from typing import Any, Callable, Iterator

import numpy as np


_NAMES = (  # (set, get) by build: SciPy's ILP64 wheels, plain ILP64, plain
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)


def _find() -> tuple[Callable[[int], Any], Callable[[], int]] | None:
    """OpenBLAS's (set, get) thread-count functions in NumPy's bundled library, or None."""
    base = os.path.dirname(os.path.dirname(np.__file__))
    for path in sorted(glob.glob(os.path.join(base, "numpy.libs", "*openblas*")) +
                       glob.glob(os.path.join(os.path.dirname(np.__file__), ".dylibs", "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)  # (already loaded by NumPy: the same handle)
        except OSError:
            continue
        for set_name, get_name in _NAMES:
            setter, getter = getattr(lib, set_name, None), getattr(lib, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                return setter, getter
    return None


class _Policy:
    """The found functions (looked up on first use), the count to restore, how many callers
    are inside."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.looked = False
        self.found: tuple[Callable[[int], Any], Callable[[], int]] | None = None
        self.inside = 0
        self.saved = 1


_POLICY = _Policy()


def _look(policy: _Policy) -> None:
    """Find OpenBLAS's functions on first use (under ``policy.lock``)."""
    if not policy.looked:
        try:
            policy.found = _find()
        except Exception:  # (any failure: no policy, silently)
            policy.found = None
        policy.looked = True


def _enter() -> bool:
    policy = _POLICY
    with policy.lock:
        _look(policy)
        if policy.found is None:
            return False
        setter, getter = policy.found
        if policy.inside == 0:
            policy.saved = getter()
            if policy.saved != 1:
                setter(1)
        policy.inside += 1
        return True


def _leave() -> None:
    policy = _POLICY
    with policy.lock:
        policy.inside -= 1
        if policy.inside == 0 and policy.saved != 1:
            setter, getter = policy.found  # type: ignore[misc]
            if getter() == 1:  # (else someone set a count meanwhile: theirs stands)
                setter(policy.saved)


# Products OpenBLAS runs on one thread anyway (its ``SMP_THRESHOLD_MIN * 4`` multiply-adds
# for gemm): holding the count for them only costs the ~10 us of restoring it.
THREADED_PRODUCT = 2 ** 18
# Products up to this many multiply-adds take well under a millisecond on one core: waking
# and syncing threads for them cannot pay.
SMALL_PRODUCT = 2 ** 21


def one_thread_pays(largest_product: int) -> bool:
    """Whether work whose largest product has ``largest_product`` multiply-adds should hold
    OpenBLAS to one thread: a function of the sizes alone (see the module docstring)."""
    return THREADED_PRODUCT < largest_product <= SMALL_PRODUCT


@contextlib.contextmanager
def one_blas_thread(enabled: bool = True) -> Iterator[None]:
    """OpenBLAS at one thread inside the block, restored after (see the module docstring);
    nothing changes unless ``enabled``."""
    entered = enabled and _enter()
    try:
        yield
    finally:
        if entered:
            _leave()


def set_blas_threads(n: int) -> bool:
    """OpenBLAS's thread count set to ``n`` (``jitgrad.set_num_threads``); False when there
    is no OpenBLAS to set. Inside a ``one_blas_thread`` block the count is remembered and
    set when the last caller leaves it."""
    policy = _POLICY
    with policy.lock:
        _look(policy)
        if policy.found is None:
            return False
        if policy.inside:
            policy.saved = n
        else:
            policy.found[0](n)
        return True
