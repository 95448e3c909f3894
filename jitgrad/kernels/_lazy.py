"""Jitted kernels loaded on first use, so that ``import jitgrad`` imports no Numba.

Measured here (2 cores, warm caches): importing numba costs 0.2-0.5 s and ~60 MB, and the
first call of any kernel, even one loaded from the on-disk cache, another ~0.03 s and
~20 MB over that: LLVM starts (~4.5 MB), Numba's runtime library is loaded from the cache
(``_nrt_cache.py``: ~9.5 MB, LLVM's code paged in; compiling it, as Numba does on every
start, cost ~29 MB), the kernel's entry is loaded (~5.5 MB; ~1 MB per further kernel), and
none of Numba's lowering registries are imported (``_policy.py``, "A lean cache load":
~10 MB that only a compile needs). Small-tensor programs never reach a kernel
(NumPy moves regions of up to ``regions.SMALL`` elements), so they pay neither. A
``LazyKernel`` imports its ``_*_jit`` module (and with it numba) when first called; numba
then loads, or compiles, each signature on the first call with it.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import numpy as np


class LazyKernel:
    """Stands for the jitted dispatcher ``name`` of ``jitgrad.kernels.<module>``."""

    __slots__ = ("module", "name", "_dispatcher", "_entries")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._dispatcher: Any = None
        self._entries: dict[Any, Callable[..., Any]] = {}

    def load(self) -> Any:
        """The dispatcher, importing its module (and numba) the first time."""
        if self._dispatcher is None:
            module = importlib.import_module(f"{__package__}.{self.module}")
            self._dispatcher = getattr(module, self.name)
        return self._dispatcher

    def __call__(self, *args: Any) -> Any:
        dispatcher = self._dispatcher
        if dispatcher is None:
            dispatcher = self.load()
        return dispatcher(*args)

    def entry(self, dtype: Any) -> Callable[..., Any]:
        """The kernel's compiled function for C-contiguous 1-D arrays of ``dtype`` (its
        parameters but the last) and an int (the last), called without Numba's dispatch:
        ~0.3 us less per call (measured: ~0.6 us through the dispatcher, ~0.3 us direct),
        for kernels that small ops call on a few elements. The dispatch is what checks the
        arguments' types, so the caller passes exactly such arrays (a wrong one would be
        read as one). Compiled, or loaded from the cache, on first use."""
        function = self._entries.get(dtype)
        if function is None:
            dispatcher = self.load()
            count = len(inspect.signature(dispatcher.py_func).parameters) - 1
            arrays = [np.zeros(1, dtype) for _ in range(count)]
            dispatcher(*arrays, 1)  # (compiles or loads the signature)
            signature = tuple(dispatcher.typeof_pyval(value) for value in (*arrays, 1))
            function = self._entries[dtype] = dispatcher.overloads[signature].entry_point
        return function

    def __repr__(self) -> str:
        state = "loaded" if self._dispatcher is not None else "not loaded yet"
        return f"<jitgrad kernel {self.module}.{self.name} ({state})>"
