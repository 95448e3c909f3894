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
A hardened cache
    An unreadable cache entry or index is treated as a miss, not an error, and is rewritten
    by the next save (``_harden_cache``; the compiler's interpreter uses it too).
A lean cache load
    Loading a cached signature starts Numba's runtime (NRT), which the cached object code
    links against, and nothing else: Numba's own ``load_overload`` first refreshes the whole
    CPU target, importing and installing every lowering registry Numba has (~60 modules,
    ~10 MB, ~0.1 s of a cold start) that only a compile uses. A compile (a signature not in
    the cache) still refreshes everything itself (``numba.core.compiler.compile_extra``).
    The runtime itself comes from the cache too (``_nrt_cache.py``: ~29 MB less).

``jit_small`` (``nogil=False``, otherwise the same policy)
    For kernels that one small op calls on a few elements (``_softmax_jit.py``): releasing
    and taking back the GIL costs ~0.2 us per call (measured: a kernel that does nothing,
    ~0.35 us to call without it, ~0.55 us with it), as much as the work itself; another
    thread gains nothing from a sub-microsecond release. Such kernels also return nothing:
    boxing an array back into a Python object costs ~0.4 us more.
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

import warnings
from typing import Any, Callable

import numba

from . import _compile_notice

try:  # (Numba internals, checked on numba 0.68; see "A lean cache load")
    from . import _nrt_cache
except ImportError:  # pragma: no cover - another Numba
    _nrt_cache = None  # type: ignore[assignment]

_compile_notice.install()  # once, when the first kernel module is imported (see _lazy.py)

_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")


def _harden_cache(dispatcher: Any) -> Any:
    """Treat an unreadable on-disk cache entry as a miss (recompile) and a failed save as
    no save. Numba unpickles its ``.nbi``/``.nbc`` files unguarded, so a truncated or garbled
    file (a full disk, a killed process) would otherwise break every call of the kernel.

    An unreadable *index* (``.nbi``) reads as empty: a miss, and the save after the
    recompile writes a fresh index, so the next process loads from the cache again (left
    unreadable, it would fail every save and every later process would recompile)."""
    cache = dispatcher._cache
    save = cache.save_overload
    cache_file = cache._cache_file
    load_index = cache_file._load_index

    def tolerant_load_index() -> dict[Any, Any]:
        try:
            return load_index()
        except Exception:  # a truncated, garbled or emptied .nbi
            return {}

    def load_overload(sig: Any, target_context: Any) -> Any:
        if not cache._enabled:  # (a disabled cache: the compile does all the set-up)
            return None
        try:
            _prepare_load(target_context, cache.cache_path)
            with cache._guard_against_spurious_io_errors():
                return cache._load_overload(sig, target_context)
        except Exception as exc:  # any unreadable entry: recompile instead
            warnings.warn(
                f"jitgrad: ignoring an unreadable Numba cache entry for "
                f"{dispatcher.py_func.__name__} ({type(exc).__name__}: {exc}); recompiling",
                RuntimeWarning, stacklevel=2,
            )
            return None

    def save_overload(*args: Any, **kwargs: Any) -> None:
        try:
            save(*args, **kwargs)
        except Exception as exc:  # e.g. a corrupt index beside it: run uncached
            warnings.warn(
                f"jitgrad: could not write the Numba cache entry for "
                f"{dispatcher.py_func.__name__} ({type(exc).__name__}: {exc})",
                RuntimeWarning, stacklevel=2,
            )

    cache_file._load_index = tolerant_load_index
    cache.load_overload = load_overload
    cache.save_overload = save_overload
    return dispatcher


def _prepare_load(target_context: Any, directory: str) -> None:
    """What a cached entry needs before it is rebuilt, in place of Numba's
    ``target_context.refresh()`` (see "A lean cache load" above): the runtime its object
    code links against, itself loaded from the cache in ``directory`` (``_nrt_cache.py``).
    (Not even the typing context's refresh: once any ``@overload_method`` is registered,
    that refreshes the whole target too.)

    Both lean steps rely on Numba internals (checked on numba 0.68): if they are not there,
    Numba's own ``refresh()`` does the same work, only with the larger footprint."""
    if _nrt_cache is None:
        target_context.refresh()
        return
    try:
        _nrt_cache.initialize(target_context, directory)
    except AttributeError:  # pragma: no cover - another Numba's internals
        target_context.refresh()


def jit(fn: Callable[..., Any]) -> Any:
    """The serial kernel decorator (the policy above)."""
    return _harden_cache(numba.njit(fn, **_OPTIONS))


def jit_inline(fn: Callable[..., Any]) -> Any:
    """The decorator of tiny helpers called in a kernel's innermost loop (a sort's comparator,
    a swap): inlined into the caller at Numba's level (``inline="always"``), where a separately
    compiled helper may stay a call costing more than the comparison (``_select_jit.py``'s
    sorts ran 3x faster so). Otherwise the serial policy."""
    return _harden_cache(numba.njit(fn, inline="always", **_OPTIONS))


def jit_small(fn: Callable[..., Any]) -> Any:
    """The decorator of kernels for a few elements per call: the GIL kept (see above)."""
    return _harden_cache(numba.njit(fn, **{**_OPTIONS, "nogil": False}))


def jit_parallel(fn: Callable[..., Any]) -> Any:
    """The partitioned-kernel decorator: ``parallel=True``, otherwise the same policy."""
    return _harden_cache(numba.njit(fn, parallel=True, **_OPTIONS))
