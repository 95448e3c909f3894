"""The one place that sets jitgrad's JIT policy.

Every jitted kernel in :mod:`jitgrad.kernels` is decorated with :data:`jit` (never with a
bare ``numba.njit``), so the choices below hold everywhere and are argued once:

``cache=True``
    Compile time is user-visible (a first ``backward()`` would otherwise stall for seconds).
    Each signature compiles once per machine and is then loaded from disk. Numba's cache is
    keyed on the *source file* of the function: it does not notice edits to other files or
    to module globals, which is why each kernel file is self-contained (it calls only jitted
    functions defined in the same file and reads no mutable module globals).
``nogil=True``
    Kernels touch only NumPy buffers, so other Python threads may run meanwhile.
``fastmath=False``
    Bit-exact agreement with NumPy/PyTorch (no reassociation, NaN/inf semantics kept).
``boundscheck=False``
    Every public entry point validates buffers and geometry in Python *before* the kernel
    runs (see ``_layout.py``), so the kernels cannot index outside their buffers; checking
    again per element would cost vectorisation.
``error_model="numpy"``
    Float division by zero gives inf/nan as in NumPy instead of raising, and the kernels
    need no exception-raising paths in their inner loops.

``jit_parallel`` (``parallel=True``, otherwise the same policy)
    Only for the ``*_par`` partitioned kernels: each splits the outermost dimension of an
    already coalesced geometry into ``chunks`` contiguous index ranges and runs the serial
    kernel on each range in a ``prange``. Each thread therefore writes a disjoint block of
    the destination (callers check the destination has no internal overlap first), every
    element is computed by exactly the same instructions as in the serial kernel, and the
    result is bit-identical to it whatever the thread count or schedule. No reductions run
    in parallel (those would reassociate sums). ``_parallel.py`` decides when they run (a
    size threshold, float dtypes, never in a forked child) and says why.
"""
from __future__ import annotations

import functools

import numba

jit = functools.partial(
    numba.njit, cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy"
)

jit_parallel = functools.partial(
    numba.njit, cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy",
    parallel=True,
)
