"""Random factories (``rand``, ``randn``, ``randint`` and their ``*_like``), ``manual_seed``
and ``Generator``. Values come from NumPy's PCG64, so they differ from PyTorch's; seeding
makes them reproducible."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes
from .creation import _finish, _like, _no_out, _options, _size_arg
from .geometry import numel
from .geometry.strided import as_int, as_int_tuple
from .storage import Storage
from .tensor import Tensor


class Generator:
    """A seedable source of random numbers for the ``generator=`` argument (``device`` must
    be the CPU)."""

    def __init__(self, device: Any = "cpu") -> None:
        from .device import check

        check("Generator()", device)
        self._rng = np.random.default_rng()
        self._seed: int | None = None

    def manual_seed(self, seed: int) -> Generator:
        """Reseed: ``seed`` an integer in ``[-2**63, 2**64)``; a negative one is taken modulo
        ``2**64``, as PyTorch does (``manual_seed(-1)`` is ``manual_seed(2**64 - 1)``)."""
        if isinstance(seed, (bool, float, str)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not isinstance(seed, int):  # (NumPy integers too, as PyTorch; jitgrad.manual_seed converts)
            raise TypeError(f"manual_seed(): an integer is required, got {type(seed).__name__}")
        value = int(seed)
        if not -2**63 <= value < 2**64:
            raise ValueError(f"manual_seed(): seed {value} is out of range: expected [-2**63, 2**64)")
        self._seed = value % 2**64
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int | None:
        return self._seed


_default = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator behind ``rand``/``randn``/``randint``; returns it. ``seed``
    is converted with ``int()`` first (as PyTorch's: ``manual_seed(1.5)`` seeds 1)."""
    return _default.manual_seed(int(seed))


# checks run before each draw from the default generator (``vmap(randomness="error")``
# pushes one that raises)
GUARDS: list[Callable[[], None]] = []


def default_rng() -> np.random.Generator:
    """The NumPy generator behind the default ``Generator`` (re-made by ``manual_seed``)."""
    for guard in GUARDS:
        guard()
    return _default._rng


def _rng(op: str, generator: Any) -> np.random.Generator:
    if generator is None:
        return default_rng()
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}(): generator must be a jitgrad.Generator, got {type(generator).__name__}")
    return generator._rng


def _float_target(op: str, dtype: object, default: np.dtype, device: Any, layout: Any, pin: bool) -> np.dtype:
    target = _options(op, dtype, default, device, layout, pin)
    if target not in dtypes.FLOATING:
        raise RuntimeError(f"{op}(): expected a floating dtype, got {target.name}")
    return target


def _sample(rng: np.random.Generator, kind: str, n: int, target: np.dtype) -> np.ndarray:
    compute = target if target != dtypes.float16 else dtypes.float32  # NumPy samples f32/f64 only
    draw = rng.random if kind == "rand" else rng.standard_normal
    values = draw(n, dtype=compute)
    return values if compute == target else values.astype(target)


def _floats(kind: str, args: tuple[Any, ...], size: Any, generator: Any, dtype: object, layout: Any,
            device: Any, requires_grad: bool, pin_memory: bool, out: None) -> Tensor:
    """``rand``/``randn`` (``kind``): samples of the default (or given) float dtype."""
    _no_out(kind, out)
    sizes = _size_arg(kind, args, size)
    target = _float_target(kind, dtype, dtypes.DEFAULT_FLOAT, device, layout, pin_memory)
    values = _sample(_rng(kind, generator), kind, numel(sizes), target)
    return _finish(Tensor._from_buffer(values, sizes), requires_grad)


def rand(
    *args: Any, size: Any = None, generator: Any = None, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False,
    out: None = None,
) -> Tensor:
    """Uniform samples in ``[0, 1)``."""
    return _floats("rand", args, size, generator, dtype, layout, device, requires_grad, pin_memory, out)


def randn(
    *args: Any, size: Any = None, generator: Any = None, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False,
    out: None = None,
) -> Tensor:
    """Standard normal samples."""
    return _floats("randn", args, size, generator, dtype, layout, device, requires_grad, pin_memory, out)


def randperm(
    n: int, *, generator: Any = None, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, pin_memory: bool = False, out: None = None,
) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise)."""
    _no_out("randperm", out)
    n = as_int("randperm", "n", n)
    if n < 0:
        raise RuntimeError(f"randperm(): Trying to create tensor with negative dimension {n}: [{n}]")
    target = _options("randperm", dtype, dtypes.int64, device, layout, pin_memory)
    values = _rng("randperm", generator).permutation(n).astype(target)
    return _finish(Tensor._from_buffer(values, (n,)), requires_grad)


def _randint_values(op: str, rng: np.random.Generator, low: Any, high: Any, n: int, target: np.dtype) -> np.ndarray:
    low, high = as_int(op, "low", low), as_int(op, "high", high)
    if low >= high:
        raise RuntimeError(f"{op}(): random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return rng.integers(low, high, size=n, dtype=np.int64).astype(target)


def randint(
    *args: Any, size: Any = None, generator: Any = None, dtype: object = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False,
    pin_memory: bool = False, out: None = None,
) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in ``[low, high)``,
    int64 unless ``dtype`` says otherwise."""
    _no_out("randint", out)
    if size is None:
        if not args:
            raise TypeError("randint(): missing required argument 'size'")
        *args, size = args  # type: ignore[assignment]
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError(f"randint(): expected (high, size) or (low, high, size), got {len(args) + 1} arguments")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): size must be a tuple of ints, got {type(size).__name__}")
    sizes = as_int_tuple("randint", "size", size)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"randint(): Trying to create tensor with negative dimension: {list(sizes)}")
    target = _options("randint", dtype, dtypes.int64, device, layout, pin_memory)
    values = _randint_values("randint", _rng("randint", generator), low, high, numel(sizes), target)
    if requires_grad and target not in dtypes.FLOATING:
        raise RuntimeError("randint(): only Tensors of floating point dtype can require gradients")
    return _finish(Tensor._from_buffer(values, sizes), requires_grad)


def _like_random(op: str, input: Tensor, values_for: Any, dtype: object, device: Any, layout: Any,
                 memory_format: Any, requires_grad: bool) -> Tensor:
    sizes, strides, target = _like(op, input, dtype, device, layout, memory_format)
    values = values_for(target, numel(sizes))
    out = Tensor._make(Storage(np.ascontiguousarray(values)), sizes, strides)
    return _finish(out, requires_grad)


def rand_like(
    input: Tensor, *, generator: Any = None, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    def values(target: np.dtype, n: int) -> np.ndarray:
        if target not in dtypes.FLOATING:
            raise RuntimeError(f"rand_like(): expected a floating dtype, got {target.name}")
        return _sample(_rng("rand_like", generator), "rand", n, target)

    return _like_random("rand_like", input, values, dtype, device, layout, memory_format, requires_grad)


def randn_like(
    input: Tensor, *, generator: Any = None, dtype: object = None, layout: Any = None,
    device: Any = None, requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    def values(target: np.dtype, n: int) -> np.ndarray:
        if target not in dtypes.FLOATING:
            raise RuntimeError(f"randn_like(): expected a floating dtype, got {target.name}")
        return _sample(_rng("randn_like", generator), "randn", n, target)

    return _like_random("randn_like", input, values, dtype, device, layout, memory_format, requires_grad)


def randint_like(
    input: Tensor, low: Any = 0, high: Any = None, *, generator: Any = None, dtype: object = None,
    layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None,
) -> Tensor:
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``."""
    if high is None:
        low, high = 0, low

    def values(target: np.dtype, n: int) -> np.ndarray:
        return _randint_values("randint_like", _rng("randint_like", generator), low, high, n, target)

    return _like_random("randint_like", input, values, dtype, device, layout, memory_format, requires_grad)
