"""Recording a function's tensor ops as tape records over storage regions
(Note [Compiled tapes] in ``compiled.py``).

Every tensor is a region of a *slot*: one per storage the trace met (an input's, a constant's,
an op's fresh result). A region is the slot's arena base plus the tensor's offset and
strides, so views cost no record and a write into a view is a record whose output is that
region. Slots are laid out one after another in one arena of the program's dtype (float64 or
float32: one per program).
"""

from __future__ import annotations

import math
from threading import get_ident
from typing import Any, Sequence

import numpy as np

from ..storage import user_frame
from ..tensor import Tensor
from . import _interp_jit as K

Region = tuple[int, tuple[int, ...]]  # (arena position of element 0, strides)

UNARY = {"neg": K.NEG, "exp": K.EXP, "log": K.LOG, "sigmoid": K.SIGMOID, "tanh": K.TANH,
         "sqrt": K.SQRT, "sin": K.SIN, "cos": K.COS, "log1p": K.LOG1P, "expm1": K.EXPM1,
         "abs": K.ABS, "relu": K.RELU}
BINARY = {"add": K.ADD, "sub": K.SUB, "mul": K.MUL, "div": K.DIV, "maximum": K.MAXIMUM,
          "minimum": K.MINIMUM}


def _collapse(shape: Sequence[int], strides: list[tuple[int, ...]]) -> tuple[list[int], list[tuple[int, ...]]]:
    """Drop size-1 dimensions and merge neighbours every region walks as one (dimension d
    into d + 1 when each stride[d] == stride[d + 1] * size[d + 1]): the same points in the
    same order, in fewer, longer inner loops. ``strides`` are aligned to ``shape`` at the end."""
    rank = len(shape)
    dims = [d for d in range(rank) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
    walks = [[(st[d - rank + len(st)] if d - rank + len(st) >= 0 else 0) for d in dims] for st in strides]
    i = len(sizes) - 1
    while i > 0:
        if all(w[i - 1] == w[i] * sizes[i] for w in walks):
            sizes[i - 1] *= sizes[i]
            for w in walks:
                w[i - 1] = w[i]
                del w[i]
            del sizes[i]
        i -= 1
    return sizes, [tuple(w) for w in walks]


class NotLowered(Exception):
    """The function uses something the compiler does not lower: run it eagerly (the message
    says what)."""


class DataDependentError(RuntimeError):
    """Python control flow read a traced tensor's value (``if x > 0:``, ``x.item()``)."""


def user_line() -> str:
    """``file:line: code`` of the innermost frame outside jitgrad (the user's line)."""
    frame = user_frame(1)
    if frame is None:
        return "<unknown>"
    import linecache

    code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}: {code}"


class Slot:
    __slots__ = ("base", "size", "lo", "kind", "diff", "storage", "values")

    def __init__(self, base: int, size: int, lo: int, kind: str, storage: Any, diff: bool) -> None:
        self.base, self.size, self.lo, self.kind = base, size, lo, kind
        self.storage = storage  # kept alive: slots are found by id(storage)
        self.diff = diff  # carries a gradient (the tensors viewing it require grad)
        self.values: np.ndarray | None = None  # a constant's values


class Tracer:
    """Collects records while the function runs eagerly (``_tracing.ACTIVE`` is this)."""

    def __init__(self) -> None:
        self.records: list[np.ndarray] = []
        self.floats: list[float] = []
        self.slots: dict[int, Slot] = {}
        self.arena_size = 0
        self.saved_size = 0
        self.max_n = 1
        self.created: dict[int, Any] = {}  # storages allocated during the trace, not yet known
        self.constants: list[Slot] = []  # baked values (created, or from outside the function)
        self.outside: list[tuple[Any, int]] = []  # outside storages read: (storage, version)
        self.scalars: dict[float, Slot] = {}
        self.failure: str | None = None
        self.pending: list[tuple[int, str]] = []  # writes into traced storages not yet recorded
        self.thread = get_ident()  # the hooks ignore what other threads do meanwhile
        self.dtype: np.dtype | None = None  # the arena's: the first tensor's, and every other's

    def _check_dtype(self, dtype: np.dtype, what: str) -> None:
        if dtype != np.float64 and dtype != np.float32:
            raise NotLowered(f"a {dtype.name} {what} (float64 and float32 are lowered)")
        if self.dtype is None:
            self.dtype = np.dtype(dtype)
        elif dtype != self.dtype:
            raise NotLowered(f"a {dtype.name} {what} in a {self.dtype.name} program (one dtype per "
                             "program is lowered)")

    # -- slots and regions -------------------------------------------------------------------
    def _slot(self, storage: Any, size: int, lo: int, kind: str, diff: bool) -> Slot:
        slot = Slot(self.arena_size, size, lo, kind, storage, diff)
        self.arena_size += max(size, 1)
        self.slots[id(storage)] = slot
        self.created.pop(id(storage), None)
        return slot

    def add_input(self, t: Tensor) -> None:
        if id(t._storage) in self.slots:
            raise NotLowered("two inputs share memory (views of one tensor)")
        self._check_dtype(t.dtype, "input")
        span = 1 + sum((n - 1) * s for n, s in zip(t._sizes, t._strides)) if t.numel() else 0
        self._slot(t._storage, span, t._offset, "input", t._requires_grad)

    def bumped(self, storage: Any, op: str) -> None:
        """Hook: an in-place write into ``storage``; its op's hook must record it."""
        if get_ident() != self.thread:
            return
        if id(storage) in self.slots:
            self.pending.append((id(storage), op))

    def _recorded_write(self, storage: Any) -> None:
        for i, (sid, _) in enumerate(self.pending):
            if sid == id(storage):
                del self.pending[i]
                return

    def new_storage(self, storage: Any) -> None:
        """Hook: a storage allocated during the trace (by a recorded op, or not)."""
        if get_ident() != self.thread:
            return
        self.created[id(storage)] = storage

    def constant(self, t: Tensor) -> None:
        """Hook: a tensor made from constants (``zeros``, ``full``, ``tensor``...)."""
        if get_ident() != self.thread:
            return
        if t.dtype == np.float64 or t.dtype == np.float32:  # (slot_of checks it matches, if used)
            slot = self._slot(t._storage, len(t._storage.buffer), 0, "constant", False)
            slot.values = t._storage.buffer.copy()
            self.constants.append(slot)

    def _scalar(self, v: Any) -> Region:
        v = float(v)
        slot = self.scalars.get(v)
        if slot is None:
            box = np.array([v])
            slot = self.scalars[v] = self._slot(box, 1, 0, "constant", False)
            slot.values = box
            self.constants.append(slot)
        return slot.base, ()

    def slot_of(self, t: Tensor) -> Slot:
        self._check_dtype(t.dtype, "tensor")
        slot = self.slots.get(id(t._storage))
        if slot is None:
            if id(t._storage) in self.created or t._grad_fn is not None:
                fn = t.grad_fn
                what = fn.name() if fn is not None else f"an op without gradient (result of shape {tuple(t._sizes)})"
                raise NotLowered(f"a tensor made by an op the compiler does not lower: {what}")
            # made before the call (a closure's data): baked, and guarded by its version
            slot = self._slot(t._storage, len(t._storage.buffer), 0, "constant", t._requires_grad)
            if t._requires_grad:
                raise NotLowered("a tensor that requires grad reaches the function from outside "
                                 "its arguments (pass it as an argument)")
            slot.values = t._storage.buffer.copy()
            self.constants.append(slot)
            self.outside.append((t._storage, t._storage.version))
        if slot.kind == "constant" and t._requires_grad and t._grad_fn is None and not slot.diff:
            raise NotLowered("a leaf tensor that requires grad created inside the function")
        if slot.diff and not t.requires_grad:
            raise NotLowered("a tensor cut from the graph inside the function (detach or no_grad)")
        return slot

    def region(self, t: Any, shape: Sequence[int]) -> Region:
        """``(arena base, strides broadcast to shape)`` of a tensor or number."""
        if not isinstance(t, Tensor):
            if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.floating, np.integer)):
                raise NotLowered(f"an operand of type {type(t).__name__}")
            return self._scalar(t)
        slot = self.slot_of(t)
        rel = t._offset - slot.lo
        if t.numel() and (rel < 0 or rel + sum((n - 1) * s for n, s in zip(t._sizes, t._strides)) >= slot.size):
            raise NotLowered("a view reaching outside its input's elements (as_strided)")
        pad = len(shape) - len(t._sizes)
        strides = tuple(0 if n == 1 else s for n, s in zip(t._sizes, t._strides))
        return slot.base + rel, (0,) * pad + strides

    # -- records -----------------------------------------------------------------------------
    def emit(self, op: int, shape: Sequence[int], out: Region, *operands: Region,
             value: float = 0.0, save: bool = False, grad: bool = True) -> None:
        if len(shape) > K.R:
            raise NotLowered(f"a tensor of rank {len(shape)} (at most {K.R} is lowered)")
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if n == 0:
            return
        regions = (out, *operands)
        shape, strides = _collapse(shape, [r[1] for r in regions])
        rec = np.zeros(K.W, np.int64)
        rec[K.OP] = op
        pad = K.R - len(shape)
        rec[K.SHAPE: K.SHAPE + K.R] = (1,) * pad + tuple(shape)
        for field, (base, _), st in zip((K.OUT, K.A, K.B, K.C), regions, strides):
            rec[field] = base
            rec[field + 1: field + 1 + K.R] = (0,) * pad + st
        rec[K.NF] = len(regions)
        rec[K.NOGRAD] = not grad
        rec[K.N] = n
        rec[K.SAVE] = -1
        if save:
            rec[K.SAVE] = self.saved_size
            self.saved_size += n
        self.max_n = max(self.max_n, n)
        self.records.append(rec)
        self.floats.append(float(value))

    def _fresh(self, out: Tensor, diff: bool) -> Region:
        self._check_dtype(out.dtype, "result")
        self._slot(out._storage, len(out._storage.buffer), 0, "temp", diff)
        return self.region(out, out._sizes)

    def _target(self, t: Tensor, op: str) -> tuple[Slot, Region]:
        """The region an in-place ``op`` writes: refuse inputs and self-overlapping views."""
        slot = self.slot_of(t)
        if slot.kind == "input":
            raise NotLowered(f"{op} writes into an input in place")
        if slot in self.constants and any(s is slot.storage for s, _ in self.outside):
            raise NotLowered(f"{op} writes into a tensor from outside the function")
        dims = sorted((s, n) for n, s in zip(t._sizes, t._strides) if n > 1)
        reach = 1
        for s, n in dims:
            if s < reach:
                raise NotLowered(f"{op} writes through a self-overlapping view")
            reach = s * n
        return slot, self.region(t, t._sizes)

    def _overlaps(self, slot: Slot, t: Any, region: Region, target: Region) -> bool:
        """Whether operand ``t`` reads the written slot other than element for element."""
        return isinstance(t, Tensor) and self.slots.get(id(t._storage)) is slot and region != target

    # -- the hooks ---------------------------------------------------------------------------
    def op(self, name: str, out: Tensor, *args: Any, inplace: bool = False, **params: Any) -> None:
        """Hook: ``out = name(*args, **params)`` (``inplace``: written into ``out``, which
        is ``args[0]``)."""
        if get_ident() != self.thread:
            return
        if self.failure is not None:
            return
        try:
            self._op(name, out, args, inplace, params)
        except NotLowered as exc:
            self.failure = str(exc)

    def _op(self, name: str, out: Tensor, args: tuple[Any, ...], inplace: bool, params: dict[str, Any]) -> None:
        shape = out._sizes
        if name in ("add", "sub") and params.get("alpha", 1) != 1:
            alpha = params.pop("alpha")
            if isinstance(args[1], Tensor):  # ``other * alpha`` first, as eager rounds it
                t = self._temp(shape, K.MUL, (args[1], alpha), out)
                args = (args[0], t)
            else:
                args = (args[0], args[1] * alpha)
        if name == "rsub":
            name, args = "sub", (args[1], args[0])
        if params and any(v is not None for k, v in params.items() if k != "alpha"):
            raise NotLowered(f"{name} with parameters {params}")
        if name in BINARY:
            code, operands, value = BINARY[name], args[:2], 0.0
        elif name in UNARY:
            code, operands, value = UNARY[name], args[:1], 0.0
        elif name == "pow" and isinstance(args[0], Tensor) and not isinstance(args[1], Tensor):
            code, operands, value = K.POW, args[:1], float(args[1])
        elif name == "clone" or name == "copy":
            code, operands, value = K.COPY, args[:1], 0.0
        elif name == "fill" and not isinstance(args[0], Tensor):
            code, operands, value = K.FILL, (), float(args[0])
        else:
            raise NotLowered(f"{name}")
        if not inplace:
            target = self._fresh(out, out.requires_grad)
            regions = [self.region(a, shape) for a in operands]
            self.emit(code, shape, target, *regions, value=value)
            return
        self._recorded_write(out._storage)
        slot, target = self._target(out, name + "_")
        regions = [self.region(a, shape) for a in operands]
        if code == K.COPY and regions[0] == target and self.slots.get(id(operands[0]._storage)) is slot:
            # a copy onto itself (``u[1:-1] += d`` ends with ``u[1:-1] = <that view>``): the
            # values and the adjoints go through unchanged, so no record
            slot.diff = slot.diff or out.requires_grad
            return
        if any(self._overlaps(slot, a, r, target) for a, r in zip(operands, regions)):
            tmp = self._temp(shape, code, operands, out, value)  # read everything, then write
            code, regions, value = K.COPY, [self.region(tmp, shape)], 0.0
        # (an in-place write overwrites values an earlier record may have read: saved)
        self.emit(code, shape, target, *regions, value=value, save=True)
        slot.diff = slot.diff or out.requires_grad

    def _temp(self, shape: Sequence[int], code: int, operands: Sequence[Any], like: Tensor, value: float = 0.0) -> Tensor:
        """A fresh contiguous slot holding ``code(operands)`` (a tensor standing for it)."""
        buffer = np.empty(int(np.prod(shape, dtype=np.int64)) if shape else 1, like.dtype)
        t = Tensor._from_buffer(buffer, tuple(shape))
        regions = [self.region(a, shape) for a in operands]
        slot = self._slot(t._storage, len(buffer), 0, "temp", like.requires_grad)
        self.emit(code, shape, (slot.base, t._strides), *regions, value=value)
        t._requires_grad = like.requires_grad  # (stands for a differentiable value)
        return t

    def write(self, dst: Tensor, src: Any) -> None:
        """Hook: ``dst.copy_(src)``, ``dst[...] = src``, ``dst.fill_(value)``."""
        if get_ident() != self.thread:
            return
        if self.failure is not None:
            return
        try:
            self._op("copy" if isinstance(src, Tensor) else "fill", dst, (src,), True, {})
        except NotLowered as exc:
            self.failure = str(exc)

    def reduce(self, name: str, out: Tensor, x: Tensor, dims: Sequence[int] | None, keepdim: bool) -> None:
        """Hook: ``sum``/``mean``/``logsumexp`` of ``x`` over ``dims`` (None: all)."""
        if get_ident() != self.thread:
            return
        if self.failure is not None:
            return
        try:
            shape = x._sizes
            all_dims = range(len(shape)) if dims is None else [d % max(len(shape), 1) for d in dims]
            if not dims and dims is not None:
                all_dims = range(len(shape))
            base, _ = self._fresh(out, out.requires_grad)
            strides, j = [], 0
            for d in range(len(shape)):
                if d in all_dims:
                    strides.append(0)
                    if keepdim:
                        j += 1
                else:
                    strides.append(0 if out._sizes[j] == 1 else out._strides[j])
                    j += 1
            target = (base, tuple(strides))
            src = self.region(x, shape)
            if x.numel() == 0:  # the reduction of nothing
                empty = {"sum": 0.0, "mean": float("nan"), "logsumexp": -float("inf")}[name]
                self.emit(K.FILL, out._sizes, self.region(out, out._sizes), value=empty)
                return
            if name == "logsumexp":
                self._logsumexp(shape, target, src, tuple(strides), len(out._storage.buffer))
                return
            # a running sum in point order (each output element zeroed first), then the SUM
            # record, which is only its backward
            self.emit(K.FILL, shape, target, value=0.0, grad=False)
            self.emit(K.ADD, shape, target, target, src, grad=False)
            self.emit(K.SUM, shape, target, src)
            if name == "mean":
                count = 1
                for d in all_dims:
                    count *= shape[d]
                self.emit(K.DIV, out._sizes, self.region(out, out._sizes), self.region(out, out._sizes),
                          self._scalar(count), save=True)
        except NotLowered as exc:
            self.failure = str(exc)

    def _logsumexp(self, shape: Sequence[int], target: Region, src: Region, reduced: tuple[int, ...],
                   size: int) -> None:
        """PyTorch's logsumexp, as elementwise records over ``shape`` (``reduced``: strides
        that walk the output, 0 along the reduced dims): the max ``m`` (0 where infinite),
        ``s = sum(exp(x - m))``, ``out = log(s) + m``, each step without a gradient of its
        own; then an LSE record, whose backward is the op's: ``g * exp(x - out)``."""
        m, s, lg = ((self._slot(np.empty(size), size, 0, "temp", False).base, reduced) for _ in range(3))
        n = int(np.prod(shape, dtype=np.int64))
        t = (self._slot(np.empty(n), n, 0, "temp", False).base,
             tuple(int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))))
        steps = [(K.FILL, m, (), -math.inf), (K.MAXIMUM, m, (m, src), 0.0), (K.FINITE, m, (m,), 0.0),
                 (K.FILL, s, (), 0.0), (K.SUB, t, (src, m), 0.0), (K.EXP, t, (t,), 0.0),
                 (K.ADD, s, (s, t), 0.0), (K.LOG, lg, (s,), 0.0), (K.ADD, target, (lg, m), 0.0)]
        for code, out, operands, value in steps:  # (in point order: running max, running sum)
            self.emit(code, shape, out, *operands, value=value, grad=False)
        self.emit(K.LSE, shape, target, src)

    def join(self, out: Tensor, tensors: Sequence[Tensor], dim: int, stack: bool) -> None:
        """Hook: ``cat``/``stack``: one copy per input into its part of the fresh result."""
        if get_ident() != self.thread:
            return
        if self.failure is not None:
            return
        try:
            base, strides = self._fresh(out, out.requires_grad)
            pos = 0
            for t in tensors:
                if stack:
                    part = (base + pos * out._strides[dim], tuple(s for d, s in enumerate(out._strides) if d != dim))
                    shape = t._sizes
                    pos += 1
                else:
                    part = (base + pos * out._strides[dim], out._strides)
                    shape = t._sizes
                    pos += t._sizes[dim]
                if t.numel():
                    self.emit(K.COPY, shape, (part[0], tuple(0 if n == 1 else s for n, s in zip(shape, part[1]))),
                              self.region(t, shape))
        except NotLowered as exc:
            self.failure = str(exc)

    def unsupported(self, name: str) -> None:
        """Hook: an op the compiler does not lower ran on traced tensors."""
        if self.failure is None:
            self.failure = name

    def read_value(self, t: Tensor, how: str) -> None:
        """Hook: Python read a tensor's value (``item``, ``bool``...) during the trace."""
        if get_ident() != self.thread:
            return
        if id(t._storage) in self.slots or id(t._storage) in self.created:
            raise DataDependentError(
                f"jitgrad.compile: {how} reads a traced tensor's value, so the function's control "
                f"flow depends on data, which a trace cannot record (at {user_line()}). Compute with "
                "tensor ops (jitgrad.where), pass the value as a Python number, or do not compile "
                "this function.")
