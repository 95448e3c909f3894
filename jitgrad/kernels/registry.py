"""Registry of every jitted kernel, for ``python -m jitgrad info`` / ``warmup``.

``warm()`` compiles (or loads from numba's on-disk cache) exactly the signatures jitgrad
produces: buffers are 1-D C-contiguous writeable arrays, offsets/counts are int64 and
geometry is one 2-D int64 array, so ndim never multiplies signatures. Dtype-converting
kernels (copy, scatter, add) get every (destination, source) pair they accept, their
parallel variants only the float pairs they are used for, the others one signature per
dtype. Read-only source buffers are typed differently by Numba and are compiled lazily
on first use (see ``strided.py``).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from numba import types

from . import _accumulate_jit, _compile_notice, _copy_jit, _overlap_jit

_DTYPES = (types.float32, types.float64, types.int64, types.boolean)
_ACCUMULATE = (types.float32, types.float64, types.int64)
_PARALLEL = (types.float32, types.float64)  # strided._PARALLEL_DTYPES
_I64 = types.int64
_GEOM = types.Array(types.int64, 2, "C")


def _buf(dt: types.Type) -> types.Array:
    return types.Array(dt, 1, "C")


@dataclass(frozen=True)
class KernelInfo:
    """One jitted dispatcher and the argument-type tuples jitgrad calls it with."""

    name: str
    dispatcher: Any
    signatures: tuple[tuple[types.Type, ...], ...]

    def warm(self) -> None:
        """Compile (or load from the on-disk cache) every signature in ``signatures``."""
        for sig in self.signatures:
            self.dispatcher.compile(sig)


def _pairs(dst_dtypes, src_dtypes):
    return itertools.product(dst_dtypes, src_dtypes)


def kernels() -> list[KernelInfo]:
    """Every jitted dispatcher of the kernel package, with its signatures."""
    return [
        KernelInfo("copy_strided", _copy_jit._copy_strided, tuple(
            (_buf(d), _I64, _buf(s), _I64, _GEOM) for d, s in _pairs(_DTYPES, _DTYPES))),
        KernelInfo("copy_strided_par", _copy_jit._copy_strided_par, tuple(
            (_buf(d), _I64, _buf(s), _I64, _GEOM, _I64) for d, s in _pairs(_PARALLEL, _PARALLEL))),
        KernelInfo("transpose_plane", _copy_jit._transpose_plane, tuple(
            (_buf(d), _I64, _I64, _buf(s), _I64, _I64, _I64, _I64)
            for d, s in _pairs(_DTYPES, _DTYPES))),
        KernelInfo("fill_strided", _copy_jit._fill_strided, tuple(
            (_buf(d), _I64, _GEOM, d) for d in _DTYPES)),
        KernelInfo("add_strided", _accumulate_jit._add_strided, tuple(
            (_buf(d), _I64, _buf(s), _I64, _GEOM) for d, s in _pairs(_ACCUMULATE, _DTYPES))),
        KernelInfo("add_strided_par", _accumulate_jit._add_strided_par, tuple(
            (_buf(d), _I64, _buf(s), _I64, _GEOM, _I64) for d, s in _pairs(_PARALLEL, _PARALLEL))),
        KernelInfo("scatter_block", _accumulate_jit._scatter_block, tuple(
            (_buf(d), _I64, _buf(s), _GEOM, types.boolean)
            for d, s in _pairs(_DTYPES, _DTYPES))),
        KernelInfo("internal_overlap_bitmap", _overlap_jit._internal_overlap_bitmap,
                   ((_I64, _GEOM, _I64),)),
        KernelInfo("regions_share_bitmap", _overlap_jit._regions_share_bitmap,
                   ((_I64, _GEOM, _I64, _GEOM, _I64, _I64),)),
        KernelInfo("offsets", _overlap_jit._offsets, ((_I64, _GEOM),)),
    ]


def compiled() -> dict[str, list[str]]:
    """Kernel name -> signatures compiled (or loaded) in this process."""
    return {k.name: [str(sig) for sig in k.dispatcher.signatures] for k in kernels()}


def cache_dir() -> str:
    """Where numba reads/writes this package's cache, as numba's own locator decided:
    the ``__pycache__`` next to the kernel files, or numba's user-wide fallback
    (or ``NUMBA_CACHE_DIR``) when that is not writable."""
    cache = getattr(_copy_jit._copy_strided, "_cache", None)
    path = getattr(cache, "cache_path", None)
    if path is None:  # pragma: no cover - depends on numba internals
        raise RuntimeError("cache_dir: this numba version does not expose the cache path "
                           "(expected Dispatcher._cache.cache_path)")
    return str(path)


def warmup(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile or load every kernel; report ``progress(i, n, name)`` before each (i from 1)."""
    ks = kernels()
    with _compile_notice.quiet():  # one progress line per kernel instead of per signature
        for i, k in enumerate(ks, start=1):
            if progress is not None:
                progress(i, len(ks), k.name)
            k.warm()
