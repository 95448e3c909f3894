"""Pointwise ops as declarations: one ``Pointwise`` entry names the forward (a NumPy ufunc or
a function with a ufunc's ``out=``/``dtype=`` calling convention), the derivative for each
input written in jitgrad ops (so ``create_graph`` double backward comes free), what the
formula reads (``SELF``: the inputs, ``RESULT``: the output) and the dtype rule. From it come
the backward node (``<Name>Backward0``, PyTorch's name), the function, the in-place variant
(the out-of-place formula, with a copy of the old ``self`` when the formula reads it, as
PyTorch's ``derivatives.yaml``), the Tensor method and export (generated into ``_bind.py``
and ``__init__.py`` by ``python -m jitgrad.tools.gen_bindings``) and the test rows
(``tests/test_ops_declared.py`` iterates ``DECLARED``).

Every declared op's forward, in place or not, goes through ``call_pointwise``: the one place a
tracer or compiler hooks in.
"""

from __future__ import annotations

import copy
import inspect
import sys
from typing import Any, Callable, Sequence

import numpy as np

from .. import _tracing, dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavedTensor, SavingNode
from ..tensor import Tensor
from ..geometry import broadcast_shapes
from .._quiet import QUIET_RUN, quiet_call
from .operands import (
    IGNORE_ALL, QUIET, array_of, as_array, broadcast_shape, fresh_result, lean_data, new_output, result_type,
    shape_of, wrapped_operand,
)
from .inplace import apply_inplace, check_inplace_operands, original
from . import fused
from .fused_binary import fused_binary
from .fused_unary import fused_unary
from .out_arg import into_out

# what the derivative formulas read (bit flags)
NOTHING, SELF, RESULT = 0, 1, 2
BOTH = SELF | RESULT

# what a fused unary op's node saves (``fused.fused_unary``), by what its formula reads
_FUSED_SAVES = {NOTHING: fused.NOTHING, SELF: fused.INPUT, RESULT: fused.RESULT}

# dtype rules: FLOATING computes integer and bool inputs in the default float dtype;
# SAME keeps the promoted dtype; BOOL returns a bool tensor (never differentiable)
FLOATING, SAME, BOOL = "floating", "same", "bool"

# which input dtypes an op refuses (PyTorch's kernels are not defined for them)
NO_BOOL, FLOAT_ONLY = "bool", "float_only"

Formula = Callable[..., "Tensor | None"]

DECLARED: list[Pointwise] = []  # every declaration, in declaration order (the test table)


class PointwiseNode(SavingNode):
    """The backward of a declared op: input ``i`` gets ``decl.grads[i](grad, *inputs,
    result, **params)``. Saved: the inputs (when the formula reads them) and the result."""

    decl: Pointwise
    params: dict[str, Any] = {}  # the op's parameters (the declared defaults, else set per node)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        decl = self.decl
        params = self.params
        if decl.arity == 1:  # (the node exists because its one input needs a gradient)
            x = r = None
            saves = decl.saves
            if saves == RESULT:
                r = self.unpack()[0]
            elif saves == BOTH:
                x, r = self.unpack()
            elif saves:  # (a unary op's one input is a tensor)
                x = self.unpack()[0]
            formula = decl.grads[0]
            return (formula(g, x, r, **params) if params else formula(g, x, r),)
        saved = self.unpack()
        saves = decl.saves  # saved: the inputs if SELF, then the result if RESULT
        values = saved if saves == BOTH else (
            saved + (None,) if saves == SELF else decl.nones[: len(decl.nones) - len(saved)] + saved)
        if decl.joint:  # one formula for every input, told which are needed
            needs = tuple([self.needs_input_grad(i) for i in range(decl.arity)])
            return tuple(decl.grads[0](g, *values, needs=needs, **params))
        out: list[Tensor | None] = []
        for i, formula in enumerate(decl.grads):
            out.append(formula(g, *values, **params) if self.needs_input_grad(i) else None)
        return tuple(out)


class Pointwise:
    """One declared pointwise op (see the module docstring).

    ``forward(*arrays, out=, dtype=, casting=, **params)`` computes into ``out`` (a NumPy ufunc
    fits). ``grads``: one formula per input, ``formula(grad, *inputs, result, **params)`` in
    jitgrad ops (``None``: not differentiable); ``saves``: what the formulas read (``SELF``,
    ``RESULT``, ``BOTH``, ``NOTHING``; the others arrive as ``None``). ``dtype``: ``FLOATING``,
    ``SAME`` or ``BOOL``; ``refuse`` (``NO_BOOL``, ``FLOAT_ONLY``) the input dtypes PyTorch's
    kernel lacks, raising ``refuse_error``; ``check(op, *args, **params)`` any other check
    (``check_dtype_only``: it reads only the dtype, so its verdict is memoised per dtype).
    ``arity`` inputs named ``names`` (``tensors_only``: numbers refused); ``params``: keyword
    parameters with their defaults, stored on the node. ``node_name``/``variant``: PyTorch's
    node name when it is not the title-cased op name, or is numbered by overload. ``joint``:
    ``grads`` is one formula ``(grad, *inputs, result, needs=, **params)`` returning every
    input's gradient, for formulas that share work (``maximum``).
    ``inplace``/``method``/``export``: make ``<name>_``, bind ``Tensor.<name>``, export
    ``jitgrad.<name>``. ``domain``/``reference``: test hints (where inputs are sampled; the
    PyTorch function, ``torch.`` implied). ``numbers_are_operands``: PyTorch wraps a number
    argument as a 0-d operand of its TensorIterator (``fmod(a, 2.0)``), which decides the
    result's strides (``output_strides``); False where it is a kernel argument (``lerp``'s
    weight). ``layout_order``: the arguments in the order PyTorch's TensorIterator takes
    them, where it differs (``threshold_backward`` adds ``self`` before ``grad_output``): the
    first operand with a layout of its own decides the result's. ``reads``: for each input's
    formula, the inputs it reads; then (with ``saves=SELF``) only the tensors a needed
    formula reads are saved, as PyTorch's nodes save them (``fmod(x, 2)`` saves nothing, so
    a second backward or a write to ``x`` is no error), numbers always.
    ``keyword_params``: the parameters are keyword-only (``round(x, decimals=2)``; always
    for ops of several inputs). ``inplace_grads``/``inplace_saves``/``inplace_number``: where PyTorch's in-place variant
    records a node of its own (``elu_``: ``EluBackward1``, reading the result; ``threshold_``:
    ``ThresholdBackward1``, the same formula), its formula, what it reads and its number.
    """

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        grads: Formula | Sequence[Formula] | None,
        saves: int = NOTHING,
        *,
        dtype: str = FLOATING,
        refuse: str | None = None,
        refuse_error: type[Exception] = NotImplementedError,
        arity: int = 1,
        tensors_only: bool = False,
        params: dict[str, Any] | None = None,
        inplace: bool = True,
        node_name: str | None = None,
        check: Callable[..., None] | None = None,
        check_dtype_only: bool = False,
        names: tuple[str, ...] = ("input", "other"),
        variant: Callable[..., int] | None = None,
        joint: bool = False,
        method: bool = True,
        export: bool = True,
        domain: str = "real",
        reference: str | None = None,
        numbers_are_operands: bool = True,
        layout_order: tuple[int, ...] | None = None,
        reads: tuple[tuple[int, ...], ...] | None = None,
        inplace_grads: Formula | None = None,
        inplace_saves: int | None = None,
        inplace_number: int = 0,
        keyword_params: bool = False,
    ) -> None:
        self.name = name
        self.keyword_params = keyword_params or arity > 1  # (the parameters are keyword-only)
        self.numbers_are_operands = numbers_are_operands
        self.layout_order = layout_order
        self.reads = reads
        self.forward = forward
        self.grads: tuple[Formula, ...] = () if grads is None else (
            tuple(grads) if isinstance(grads, (tuple, list)) else (grads,))  # type: ignore[arg-type]
        self.saves = saves
        self.dtype_rule = dtype
        self.refuse = refuse
        self.refuse_error = refuse_error
        self.arity = arity
        self.tensors_only = tensors_only
        self.params = dict(params or {})
        self.check = check
        self.check_dtype_only = check_dtype_only  # the check reads only the dtype (memoisable)
        self.ufunc = isinstance(forward, np.ufunc)
        self.differentiable = bool(self.grads) and dtype != BOOL
        self.names = names[: arity] if len(names) >= arity else names + ("weight",)
        self.method = method  # bound as ``Tensor.<name>`` (and ``<name>_``) by ``_bind.py``
        self.export = export  # exported as ``jitgrad.<name>`` by ``__init__.py``
        self.module: str = sys._getframe(1).f_globals["__name__"]  # where it is declared
        self.domain = domain  # test hint: where inputs are sampled (tests/test_ops_declared.py)
        self.reference = reference or name  # test hint: the PyTorch function, "torch." implied
        # PyTorch's node name: the title-cased op name (``Log1PBackward0``), numbered by overload
        self.stem = node_name or name.title().replace("_", "") + "Backward"
        self.variant = variant  # ``variant(*args, **params)``: the overload's number, if several
        self.joint = joint  # ``grads`` is one formula returning every input's gradient
        self._nodes: dict[int, type[PointwiseNode]] = {}
        self._unary_dtypes: dict[np.dtype, tuple[np.dtype | None, np.dtype]] = {}
        self._binary_dtypes: dict[tuple[np.dtype, np.dtype], tuple[np.dtype | None, np.dtype]] = {}
        self.nones: tuple[None, ...] = (None,) * (arity + 1)
        self.node = self.node_class(0 if variant is None else variant())
        self.fn = self._function()
        self.fn_ = self._inplace_function() if inplace else None
        self.inplace_decl: Pointwise = self  # what the in-place variant records
        if inplace_grads is not None or inplace_number:
            self.inplace_decl = self._inplace_declaration(inplace_grads, inplace_saves, inplace_number)
        DECLARED.append(self)

    def __repr__(self) -> str:
        return f"<Pointwise {self.name}>"

    def _inplace_declaration(self, grads: Formula | None, saves: int | None, number: int) -> Pointwise:
        """The twin the in-place variant records, where PyTorch's ``derivatives.yaml`` has an
        entry of its own for it: a formula reading the result (``elu_``'s ``EluBackward1``)
        or only another number (``threshold_``'s ``ThresholdBackward1``). Not in ``DECLARED``."""
        twin = copy.copy(self)
        if grads is not None:
            twin.grads = (grads,)
            twin.reads = None
        if saves is not None:
            twin.saves = saves
        twin.variant = None
        twin._nodes = {}
        twin.node = twin.node_class(number)
        twin.inplace_decl = twin
        return twin

    def node_class(self, number: int) -> type[PointwiseNode]:
        """The node class ``<Name>Backward<number>``, made once."""
        node = self._nodes.get(number)
        if node is None:
            attrs = {"decl": self, "params": self.params, "__module__": __name__,
                     "__doc__": f"Backward of ``{self.name}``."}
            node = self._nodes[number] = type(f"{self.stem}{number}", (PointwiseNode,), attrs)
        return node

    def new_node(self, args: Sequence[Any], params: dict[str, Any]) -> PointwiseNode:
        cls = self.node if self.variant is None else self.node_class(self.variant(*args, **params))
        node = cls()
        if params is not self.params:
            node.params = params
        return node

    # -- dtype rule and input checks ------------------------------------------------------
    def dtypes(self, op: str, args: Sequence[Any], params: dict[str, Any]) -> tuple[np.dtype | None, np.dtype]:
        """``(compute dtype, result dtype)`` of the op on ``args`` (compute dtype None: in the
        inputs' own); refuses what PyTorch refuses."""
        if self.tensors_only:
            for x in args:
                if not isinstance(x, Tensor):
                    k = next(i for i, a in enumerate(args) if a is x)
                    raise TypeError(
                        f"{op}(): argument '{self.names[k]}' (position "
                        f"{k + 1}) must be Tensor, not {type(x).__name__}")
        elif not isinstance(args[0], Tensor) and not any(isinstance(x, Tensor) for x in args):
            raise TypeError(f"{op}(): expected a Tensor argument, got {type(args[0]).__name__}")
        d = args[0].dtype if len(args) == 1 else result_type(*args, op=op)
        if self.refuse is not None and (d == dtypes.bool_ or (self.refuse == FLOAT_ONLY and d not in dtypes.FLOATING)):
            raise self.refuse_error(
                f"{op}: not implemented for {d.name} tensors (got {d.name}; expected "
                f"{'a floating-point' if self.refuse == FLOAT_ONLY else 'a numeric'} dtype)")
        if self.check is not None:
            self.check(op, *args, **params)
        if self.dtype_rule is FLOATING and d not in dtypes.FLOATING:
            return dtypes.DEFAULT_FLOAT, dtypes.DEFAULT_FLOAT
        if self.dtype_rule is BOOL:
            return None, dtypes.bool_  # (computed in the input's dtype)
        return d, d

    # -- the public function and in-place variant -----------------------------------------
    def _signature(self, inplace: bool) -> inspect.Signature:
        names = (("self",) if inplace else self.names[:1]) + self.names[1:]
        P = inspect.Parameter
        kinds = [P(n, P.POSITIONAL_OR_KEYWORD, annotation="Tensor" if (i == 0 or self.tensors_only) else "Any")
                 for i, n in enumerate(names)]
        kinds += [P(k, P.KEYWORD_ONLY if self.keyword_params else P.POSITIONAL_OR_KEYWORD, default=v,
                    annotation=type(v).__name__ if v is not None else "Any")
                  for k, v in self.params.items()]
        return inspect.Signature(kinds, return_annotation="Tensor")

    def _function(self) -> Callable[..., Tensor]:
        decl = self

        if self.arity == 1 and not self.params:  # (no argument packing: per-op overhead)
            def function(input: Tensor, *, out: Any = None) -> Tensor:
                if out is not None:  # (``jitgrad.exp(x, out=y)``: out_arg.py)
                    return into_out(decl.name, out, call_pointwise, (decl, (input,)))
                return call_pointwise(decl, (input,))
            if self.saves != BOTH:
                # the fused per-op path (fused.py), else ``call_pointwise`` (named as the
                # op, for its errors)
                function.__name__ = function.__qualname__ = self.name
                function = fused_unary(self.forward, self.node if self.differentiable else None,
                                       _FUSED_SAVES[self.saves], self._unary_dtypes, otherwise=function)
                function.__signature__ = self._signature(False)  # type: ignore[attr-defined]
        elif self.arity == 2 and not self.params:
            if self.ufunc and self.tensors_only and self.saves == SELF and self.reads is None and \
                    self.check is None and self.dtype_rule in (SAME, FLOATING) and self.differentiable:
                def general(input: Any, other: Any, lean: bool = True) -> Tensor:
                    return call_pointwise(decl, (input, other))
                # the fused per-op path (fused.py) (two tensors of one float dtype: that
                # dtype), else ``call_pointwise`` (named as the op, for its errors)
                general.__name__ = general.__qualname__ = self.name
                function = fused_binary(self.forward, self.node, fused.INPUTS, otherwise=general,
                                        tensors_only=True)
            else:
                def function(input: Any, other: Any, *, out: Any = None) -> Tensor:  # type: ignore[misc]
                    if out is not None:  # (out_arg.py)
                        return into_out(decl.name, out, call_pointwise, (decl, (input, other)))
                    return call_pointwise(decl, (input, other))
            function.__signature__ = self._signature(False)  # type: ignore[attr-defined]
        else:
            def function(*args: Any, **params: Any) -> Tensor:
                if "out" in params:  # (out_arg.py)
                    out = params.pop("out")
                    if out is not None:
                        return into_out(decl.name, out, call_pointwise, (decl, args, params))
                return call_pointwise(decl, args, params)
            function.__signature__ = self._signature(False)  # type: ignore[attr-defined]
        function.__name__ = function.__qualname__ = self.name
        function.__module__ = self.module
        function.__doc__ = f"``{self.name}`` (a declared pointwise op; backward: ``{self.node.__name__}``)."
        return function

    def _inplace_function(self) -> Callable[..., Tensor]:
        decl = self

        def function_(self: Tensor, *args: Any, **params: Any) -> Tensor:
            return call_pointwise(decl, (self, *args), params, inplace=True)
        function_.__signature__ = self._signature(True)  # type: ignore[attr-defined]
        function_.__name__ = function_.__qualname__ = self.name + "_"
        function_.__module__ = self.module
        function_.__doc__ = f"In-place ``{self.name}``."
        return function_

    def bind_params(self, op: str, args: tuple[Any, ...], params: dict[str, Any] | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Split positional extras into the declared parameters; refuse unknown ones."""
        if params is None:
            params = {}
        if len(args) == self.arity and not params:
            return args, self.params
        if len(args) > self.arity and self.keyword_params and self.arity == 1:
            raise TypeError(f"{op}() takes 1 positional argument but {len(args)} were given (its parameters "
                            f"{', '.join(self.params)} are keyword-only)")
        if len(args) > self.arity:
            extra, args = args[self.arity:], args[: self.arity]
            if len(extra) > len(self.params):
                raise TypeError(f"{op}() takes at most {self.arity + len(self.params)} positional "
                                f"arguments ({self.arity + len(extra)} given)")
            params = {**dict(zip(self.params, extra)), **params}
        elif len(args) < self.arity:
            raise TypeError(f"{op}() missing {self.arity - len(args)} required positional argument(s)")
        unknown = set(params) - set(self.params)
        if unknown:
            raise TypeError(f"{op}() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        return args, {**self.params, **params}


def _tensor_or_none(x: Any) -> Tensor | None:
    return x if isinstance(x, Tensor) else None


def _read(decl: Pointwise, args: Sequence[Any], needed: Sequence[bool]) -> tuple[Any, ...]:
    """``args`` with None for each tensor no needed formula reads (``decl.reads``)."""
    kept: set[int] = set()
    for i, reads in enumerate(decl.reads):  # type: ignore[arg-type]
        if needed[i]:
            kept.update(reads)
    return tuple([a if j in kept or not isinstance(a, Tensor) else None for j, a in enumerate(args)])


def call_pointwise(decl: Pointwise, args: tuple[Any, ...], params: dict[str, Any] | None = None,
                   inplace: bool = False) -> Tensor:
    """The forward of every declared op (``inplace``: of its in-place variant, written into
    ``args[0]``): check, allocate, compute, record. The one place a tracer hooks in.

    Per-op overhead on small tensors is Python's: the unary case without parameters is
    kept to one dtype-rule lookup (memoised per input dtype), one allocation, one ufunc call."""
    if inplace:
        return _call_inplace(decl, args, params or {})
    if params is None and len(args) == 1 and decl.arity == 1 and not decl.params:
        x = args[0]
        cache = decl._unary_dtypes  # floating inputs only: the others depend on the default dtype
        cached = cache.get(x._storage.buffer.dtype) if isinstance(x, Tensor) else None
        if cached is None:
            cached = decl.dtypes(decl.name, args, decl.params)
            if (decl.check is None or decl.check_dtype_only) and x._storage.buffer.dtype in dtypes.FLOATING:
                cache[x._storage.buffer.dtype] = cached
        compute_dtype, dtype = cached
        data = lean_data(x) if compute_dtype is not None else None
        if data is not None:  # Note [Lean paths] in operands.py: flat buffers
            forward = decl.forward
            if decl.ufunc and compute_dtype is data.dtype and dtype is compute_dtype:
                try:  # (the loop ``dtype=`` would choose)
                    values = QUIET_RUN(forward, data)
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    values = quiet_call(forward, data)
            else:
                values = np.empty(data.shape[0], dtype)
                try:
                    QUIET_RUN(forward, data, out=values, dtype=compute_dtype, casting="unsafe")
                except RuntimeError:  # (another thread is in QUIET_RUN's context: see ``_quiet``)
                    quiet_call(forward, data, out=values, dtype=compute_dtype, casting="unsafe")
            out = fresh_result(values, x._sizes, x._strides)
        else:
            out, view = new_output(x._sizes, dtype, args)
            token = QUIET.set(IGNORE_ALL)
            try:
                if compute_dtype is None:  # (a bool-valued predicate)
                    decl.forward(array_of(x), out=view)
                else:
                    decl.forward(array_of(x), out=view, dtype=compute_dtype, casting="unsafe")
            finally:
                QUIET.reset(token)
        if decl.differentiable and needs_grad(x):
            node = decl.node()
            record(node, args, (out,))
            saves = decl.saves
            if saves == RESULT:
                node.save_result(out)  # (a fresh result)
            elif saves == SELF:
                node.save(x)
            elif saves:
                node.save_input_result(x, out)
        if _tracing.ACTIVE is not None:  # jitgrad.compile records it
            _tracing.ACTIVE.op(decl.name, out, x)
        return out
    n = len(args)
    if params or n != decl.arity:
        args, params = decl.bind_params(decl.name, args, params)
        n = len(args)
    else:
        params = decl.params
    cached = None
    if n == 2 and decl.check is None:  # two tensors with dimensions: memoised by their dtypes
        a, b = args
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a._sizes and b._sizes:
            key = (a._storage.buffer.dtype, b._storage.buffer.dtype)
            cached = decl._binary_dtypes.get(key)
            if cached is None:
                cached = decl.dtypes(decl.name, args, params)
                if cached[1] in dtypes.FLOATING:  # (else it may follow the default dtype)
                    decl._binary_dtypes[key] = cached
    compute_dtype, dtype = cached or decl.dtypes(decl.name, args, params)
    if n <= 2:
        shape = args[0]._sizes if n == 1 else broadcast_shape(args[0], args[1])
    else:
        shape = broadcast_shapes(*(shape_of(a) for a in args))
    operands = args if decl.layout_order is None else tuple([args[i] for i in decl.layout_order])
    out, view = new_output(shape, dtype, operands if decl.numbers_are_operands else
                           tuple(a for a in operands if isinstance(a, Tensor)))
    token = QUIET.set(IGNORE_ALL)
    try:
        arrays = (as_array(args[0]), as_array(args[1])) if n == 2 else [as_array(a) for a in args]
        if compute_dtype is None:
            decl.forward(*arrays, out=view, **params)
        elif params:
            decl.forward(*arrays, out=view, dtype=compute_dtype, casting="unsafe", **params)
        else:
            decl.forward(*arrays, out=view, dtype=compute_dtype, casting="unsafe")
    except OverflowError:  # a Python int outside an integer dtype's range: PyTorch wraps it
        if compute_dtype is None:
            raise
        decl.forward(*(wrapped_operand(a, compute_dtype, decl.name) for a in args), out=view,
                     dtype=compute_dtype, casting="unsafe", **params)
    finally:
        QUIET.reset(token)
    if decl.differentiable and needs_grad(*args):
        edges = args if decl.tensors_only else [_tensor_or_none(a) for a in args]
        node = record(decl.node() if decl.variant is None and params is decl.params
                      else decl.new_node(args, params), edges, (out,))
        saves = decl.saves  # the inputs, then the result: only what the formulas read (``apply``)
        if saves == SELF:
            if decl.reads is None:
                node.save(*args)  # type: ignore[attr-defined]
            else:
                node.save(*_read(decl, args, [fn is not None for fn in node._next]))  # type: ignore[attr-defined]
        elif saves == RESULT:
            node.save_result(out)  # type: ignore[attr-defined]  # (a fresh result)
        elif saves == BOTH:
            node.save(*args, out, outputs=(out,))  # type: ignore[attr-defined]
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op(decl.name, out, *args, **params)
    return out


def call_pointwise_(decl: Pointwise, self: Tensor, *args: Any, **params: Any) -> Tensor:
    """``self.<op>_(...)``: the out-of-place formula, through ``apply_inplace``."""
    return call_pointwise(decl, (self, *args), params, inplace=True)


def _call_inplace(decl: Pointwise, args: tuple[Any, ...], params: dict[str, Any]) -> Tensor:
    decl = decl.inplace_decl
    op = decl.name + "_"
    self = args[0]
    if not isinstance(self, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(self).__name__}")
    args, params = decl.bind_params(op, args, params)
    compute_dtype, dtype = decl.dtypes(op, args, params)
    others = args[1:]
    check_inplace_operands(op, self, dtype, *others)
    saves = decl.saves if decl.differentiable else NOTHING

    def make_node() -> Node:  # runs before the write: a copy of the old self, if read
        node = decl.new_node(args, params)
        if saves & SELF:
            if decl.reads is None:
                node.save(original(self), *others)
            else:
                kept = _read(decl, args, [isinstance(a, Tensor) and needs_grad(a) for a in args])
                node.save(None if kept[0] is None else original(self), *kept[1:])
        return node

    def save_result(node: Node) -> None:  # after the write: the result is self
        node.saved = node.saved + (SavedTensor(self, node, 0),)  # type: ignore[attr-defined]

    values = np.empty(self._sizes, dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        decl.forward(*(as_array(a) for a in args), out=values, dtype=compute_dtype, casting="unsafe", **params)
    except OverflowError:  # a Python int outside an integer dtype's range: PyTorch wraps it
        decl.forward(*(wrapped_operand(a, compute_dtype, op) for a in args), out=values,
                     dtype=compute_dtype, casting="unsafe", **params)
    finally:
        QUIET.reset(token)
    out = apply_inplace(
        op, self, values, dtype, [_tensor_or_none(a) for a in args],
        make_node if decl.differentiable else None, save_result if saves & RESULT else None)
    if _tracing.ACTIVE is not None:  # jitgrad.compile records it
        _tracing.ACTIVE.op(decl.name, self, *args, inplace=True, **params)
    return out
