"""The Tensor: a storage seen through a geometry. Data and views only; math lives above.

A tensor is ``(storage, sizes, strides, storage_offset)``, all in elements, as in PyTorch.
A view is a new Tensor on the *same* Storage with a new geometry; nothing is copied. Its
``_base`` is the root tensor that owns the storage (a view of a view points at the root,
never at the intermediate view), and it shares the storage's version counter (Note
[Version counter] in ``storage.py``); what autograd remembers about views is Note [Views and
in-place writes] in ``ops/view_meta.py``. Geometry is validated against the storage's size
whenever it is created from user input (``as_strided``, ``from_numpy``), so every tensor
that exists can be handed to a kernel safely.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from . import _tracing, dtypes
from ._formatting import format_tensor
from .device import CPU, check as check_device
from .device import device as device_type
from .geometry import Geometry, Size, contiguous_strides, is_contiguous, numel, wrap_dim
from .geometry.layout import is_channels_last
from .storage import Storage

_new = object.__new__  # (a module global: one lookup less on the per-op path of ``_make``)


class Tensor:
    """An n-dimensional strided array with PyTorch semantics and a NumPy buffer underneath."""

    __slots__ = (
        "_storage", "_sizes", "_strides", "_offset", "_base",
        # autograd state, managed by jitgrad/autograd (this layer only holds it)
        "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_grad_accumulator", "_hooks",
        "_retains_grad", "_view_meta", "__weakref__",
    )

    _storage: Storage
    _sizes: tuple[int, ...]
    _strides: tuple[int, ...]
    _offset: int
    _base: Tensor | None
    _requires_grad: bool
    _grad: Tensor | None
    _grad_fn: Any
    _output_nr: int
    _grad_accumulator: Any
    _hooks: dict[int, Any] | None
    _retains_grad: bool
    _view_meta: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to do: the legacy constructor ``jitgrad.Tensor(data)`` / ``Tensor(2, 3)``
        is ``__new__`` (``tensor_new.legacy_new``, attached in ``_bind.py``), which builds the
        whole tensor; internal code uses ``Tensor._make``."""

    @classmethod
    def _make(
        cls,
        storage: Storage,
        sizes: tuple[int, ...],
        strides: tuple[int, ...],
        offset: int = 0,
        base: Tensor | None = None,
    ) -> Tensor:
        """Wrap an already-validated geometry. Internal: no checks here."""
        t = _new(cls)
        t._storage = storage
        t._sizes = sizes
        t._strides = strides
        t._offset = offset
        t._base = base
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._grad_accumulator = None
        t._hooks = None
        t._retains_grad = False
        t._view_meta = None
        return t

    @classmethod
    def _from_buffer(cls, buffer: np.ndarray, sizes: tuple[int, ...]) -> Tensor:
        """A fresh contiguous tensor owning ``buffer`` (1-D, exactly ``numel(sizes)`` long)."""
        return cls._make(Storage(buffer), sizes, contiguous_strides(sizes))

    def _alias(self, g: Geometry) -> Tensor:
        """A view of this tensor's storage with geometry ``g`` (already validated)."""
        root = self if self._base is None else self._base
        return Tensor._make(self._storage, g.sizes, g.strides, g.storage_offset, root)

    @property
    def _geometry(self) -> Geometry:
        return Geometry(self._sizes, self._strides, self._offset)

    # -- geometry -------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._sizes)

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._sizes)
        return self._sizes[wrap_dim(dim, len(self._sizes), "size", wrap_scalar=False)]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if dim is None:
            return self._strides
        return self._strides[wrap_dim(dim, len(self._sizes), "stride", wrap_scalar=False)]

    def storage_offset(self) -> int:
        return self._offset

    def dim(self) -> int:
        return len(self._sizes)

    @property
    def ndim(self) -> int:
        return len(self._sizes)

    def numel(self) -> int:
        return numel(self._sizes)

    nelement = numel

    @property
    def dtype(self) -> np.dtype:
        return self._storage.buffer.dtype

    def element_size(self) -> int:
        return self._storage.buffer.itemsize

    def is_floating_point(self) -> bool:
        return self._storage.buffer.dtype in dtypes.FLOATING

    @property
    def device(self) -> device_type:
        return CPU

    is_cuda = False
    is_cpu = True
    is_mps = False
    is_meta = False

    def get_device(self) -> int:
        """-1: the CPU, as in PyTorch."""
        return -1

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False) -> Tensor:
        check_device("cuda()", "cuda" if device is None else device)
        return self  # check_device accepted only the CPU

    def is_contiguous(self, *, memory_format: Any = None) -> bool:
        """Dense in row-major order; or, with ``memory_format=channels_last`` (4-D) or
        ``channels_last_3d`` (5-D), in channels-last order (``contiguous_format`` and
        ``preserve_format`` ask the first)."""
        if memory_format is not None and (memory_format == "channels_last" or memory_format == "channels_last_3d"):
            return len(self._sizes) == (4 if memory_format == "channels_last" else 5) \
                and is_channels_last(self._sizes, self._strides)
        return is_contiguous(self._sizes, self._strides)

    @property
    def _version(self) -> int:
        return self._storage.version

    def _is_view(self) -> bool:
        return self._base is not None

    # -- NumPy and Python interop ------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (read-only if the storage is). Refused
        for a tensor that requires grad, as in PyTorch, unless ``force`` (``detach()``
        first)."""
        if not force and self.requires_grad:  # type: ignore[attr-defined]
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._numpy()

    def _numpy(self) -> np.ndarray:
        """``numpy()`` without its check (jitgrad reads the data of tensors requiring grad)."""
        buffer = self._storage.buffer
        sizes = self._sizes
        item = buffer.itemsize
        if 0 in sizes:  # no elements
            _check_numpy_size(sizes, buffer.dtype)
            out = np.empty(sizes, buffer.dtype)
            out.flags.writeable = buffer.flags.writeable
            return out
        key = (sizes, self._strides, item)
        strides = _BYTE_STRIDES.get(key)
        if strides is None:
            _check_numpy_size(sizes, buffer.dtype)  # (a cached geometry has passed it)
            strides = byte_strides(sizes, self._strides, item)
            if len(_BYTE_STRIDES) < 4096:
                _BYTE_STRIDES[key] = strides
        # (positional: NumPy parses keyword arguments of its constructor slowly)
        return np.ndarray(sizes, buffer.dtype, buffer, self._offset * item, strides)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        out = self.numpy()  # (refused for a tensor requiring grad, as PyTorch's)
        if dtype is not None and np.dtype(dtype) != out.dtype:
            if copy is False:
                raise ValueError(
                    f"__array__: converting {out.dtype} to {np.dtype(dtype)} needs a copy, "
                    "but copy=False was requested"
                )
            return out.astype(dtype)
        return out.copy() if copy else out

    def item(self) -> bool | int | float:
        if _tracing.ACTIVE is not None:  # jitgrad.compile: data-dependent control flow
            _tracing.ACTIVE.read_value(self, "item()")
        n = self.numel()
        if n != 1:
            raise RuntimeError(
                f"item(): a Tensor with {n} elements cannot be converted to Scalar; "
                "expected exactly 1 element"
            )
        return self._storage.buffer[self._offset].item()

    def tolist(self) -> Any:
        if _tracing.ACTIVE is not None:  # jitgrad.compile: data-dependent control flow
            _tracing.ACTIVE.read_value(self, "tolist()")
        return self._numpy().tolist()

    def __len__(self) -> int:
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._sizes:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self._sizes[0]))  # type: ignore[attr-defined]

    def __bool__(self) -> bool:
        if _tracing.ACTIVE is not None:  # jitgrad.compile: data-dependent control flow
            _tracing.ACTIVE.read_value(self, "bool() of a tensor (an `if` or `while` on it)")
        if self.numel() != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self.numel()} values is ambiguous; "
                "use .any() or .all(), or index one element"
            )
        return bool(self.item())

    def __float__(self) -> float:  # (autograd's version, warning about requires_grad: _bind.py)
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if (self.dtype not in dtypes.INTEGRAL and self.dtype != dtypes.bool_) or self.numel() != 1:
            raise TypeError(
                f"only integer tensors of a single element can be converted to an index, got "
                f"{self.dtype.name} tensor of shape {list(self._sizes)}"
            )
        return int(self.item())

    def _scalar(self, kind: str) -> bool | int | float:
        if _tracing.ACTIVE is not None:  # jitgrad.compile: data-dependent control flow
            _tracing.ACTIVE.read_value(self, f"{kind}() of a tensor")
        if self.numel() != 1:
            raise ValueError(
                f"only one element tensors can be converted to Python {kind}s, got shape "
                f"{list(self._sizes)}"
            )
        return self.item()

    def __dlpack__(self, **kwargs: Any) -> Any:
        """Zero-copy export (via NumPy's DLPack support) to NumPy, PyTorch and friends."""
        return self._numpy().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU, device 0

    def __repr__(self) -> str:
        dtype = self.dtype
        default = dtype in (dtypes.DEFAULT_FLOAT, dtypes.int64, dtypes.bool_)
        return format_tensor(
            self._numpy(), default_dtype=default, dtype_name=dtype.name, suffixes=self._repr_suffixes()
        )

    def __format__(self, format_spec: str) -> str:
        """A 0-dim tensor formats as its Python number (``f"{loss:.4f}"``); others as repr."""
        if self.dim() == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def _repr_suffixes(self) -> list[str]:
        """Extra ``key=value`` parts of the repr; autograd adds ``requires_grad``/``grad_fn``."""
        return []

    __hash__ = object.__hash__


# ``numpy()``'s byte strides by (sizes, strides, itemsize): arrays of the same views of a
# loop's tensors are made again and again (a stencil's shifted slices)
_BYTE_STRIDES: dict[tuple[tuple[int, ...], tuple[int, ...], int], tuple[int, ...]] = {}


def byte_strides(sizes: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """NumPy's strides (bytes) of a geometry; a size-1 dim's stride is never used and may be
    huge (NumPy's limit is int64 bytes), so it is 0."""
    return tuple([0 if n == 1 else s * itemsize for n, s in zip(sizes, strides)])


def sizes_arg(op: str, args: Sequence[Any]) -> tuple[Any, ...]:
    """Accept sizes PyTorch-style: ``f(2, 3)`` or ``f((2, 3))`` / ``f([2, 3])`` / ``f(t.shape)``
    (``f(())`` is an empty shape; ``f()`` is an error, as in PyTorch)."""
    if not args:
        raise TypeError(f'{op}() missing 1 required positional argument: "size"')
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    for a in args:
        if isinstance(a, (tuple, list)):
            raise TypeError(f"{op}(): sizes must be ints or a single sequence of ints, got {args!r}")
    return tuple(args)


_INT64_MAX = 2**63 - 1


def _check_numpy_size(sizes: Sequence[int], dtype: np.dtype) -> None:
    """NumPy refuses an array whose nonzero sizes times its itemsize exceed int64 bytes,
    even a stride-0 or an empty one (NumPy's bare "array is too big"); say so here."""
    nbytes = dtype.itemsize
    for n in sizes:
        nbytes *= n or 1
    if nbytes > _INT64_MAX:
        raise ValueError(
            f"numpy: a tensor of sizes {list(sizes)} and dtype {dtype} spans {nbytes} bytes "
            "as a NumPy array (its sizes other than 0 times the itemsize); expected at most "
            "2**63 - 1, NumPy's limit, which holds even for a stride-0 or an empty view"
        )
