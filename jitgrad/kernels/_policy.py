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

There is no parallel variant yet. When one is added it must be ``jit_parallel`` here, used
only where each thread writes a disjoint part of the destination.
"""
from __future__ import annotations

import functools

import numba

jit = functools.partial(
    numba.njit, cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy"
)
