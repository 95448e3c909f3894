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

import inspect
import sys
from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavedTensor, SavingNode
from ..tensor import Tensor
from ..geometry import broadcast_shapes
from ._common import IGNORE_ALL, QUIET, array_of, as_array, broadcast_shape, new_output, result_type, shape_of
from .inplace import apply_inplace, check_inplace_operands, original

# what the derivative formulas read (bit flags)
NOTHING, SELF, RESULT = 0, 1, 2
BOTH = SELF | RESULT

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

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        g = grads[0]
        values = self.unpack() if self.saved else (None,) * (self.decl.arity + 1)  # (saved nothing)
        out: list[Tensor | None] = []
        for i, formula in enumerate(self.decl.grads):
            out.append(formula(g, *values, **self.params) if self.needs_input_grad(i) else None)
        return tuple(out)


class Pointwise:
    """One declared pointwise op (see the module docstring).

    ``forward(*arrays, out=, dtype=, casting=, **params)`` computes into ``out`` (a NumPy ufunc
    fits). ``grads``: one formula per input, ``formula(grad, *inputs, result, **params)`` in
    jitgrad ops (``None``: not differentiable); ``saves``: what the formulas read (``SELF``,
    ``RESULT``, ``BOTH``, ``NOTHING``; the others arrive as ``None``). ``dtype``: ``FLOATING``,
    ``SAME`` or ``BOOL``; ``refuse`` (``NO_BOOL``, ``FLOAT_ONLY``) the input dtypes PyTorch's
    kernel lacks, raising ``refuse_error``; ``check(op, *args, **params)`` any other check.
    ``arity`` inputs named ``names`` (``tensors_only``: numbers refused); ``params``: keyword
    parameters with their defaults, stored on the node. ``node_name``/``variant``: PyTorch's
    node name when it is not the title-cased op name, or is numbered by overload.
    ``inplace``/``method``/``export``: make ``<name>_``, bind ``Tensor.<name>``, export
    ``jitgrad.<name>``. ``domain``/``reference``: test hints (where inputs are sampled; the
    PyTorch function, ``torch.`` implied).
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
        names: tuple[str, ...] = ("input", "other"),
        variant: Callable[..., int] | None = None,
        method: bool = True,
        export: bool = True,
        domain: str = "real",
        reference: str | None = None,
    ) -> None:
        self.name = name
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
        self._nodes: dict[int, type[PointwiseNode]] = {}
        self._unary_dtypes: dict[tuple[np.dtype, np.dtype], tuple[np.dtype, np.dtype]] = {}
        self.node = self.node_class(0 if variant is None else variant())
        self.fn = self._function()
        self.fn_ = self._inplace_function() if inplace else None
        DECLARED.append(self)

    def __repr__(self) -> str:
        return f"<Pointwise {self.name}>"

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
    def dtypes(self, op: str, args: Sequence[Any], params: dict[str, Any]) -> tuple[np.dtype, np.dtype]:
        """``(compute dtype, result dtype)`` of the op on ``args``; refuses what PyTorch
        refuses."""
        if self.tensors_only:
            for k, x in enumerate(args):
                if not isinstance(x, Tensor):
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
            return d, dtypes.bool_
        return d, d

    # -- the public function and in-place variant -----------------------------------------
    def _signature(self, inplace: bool) -> inspect.Signature:
        names = (("self",) if inplace else self.names[:1]) + self.names[1:]
        P = inspect.Parameter
        kinds = [P(n, P.POSITIONAL_OR_KEYWORD, annotation="Tensor" if (i == 0 or self.tensors_only) else "Any")
                 for i, n in enumerate(names)]
        kinds += [P(k, P.KEYWORD_ONLY if self.arity > 1 else P.POSITIONAL_OR_KEYWORD, default=v,
                    annotation=type(v).__name__ if v is not None else "Any")
                  for k, v in self.params.items()]
        return inspect.Signature(kinds, return_annotation="Tensor")

    def _function(self) -> Callable[..., Tensor]:
        decl = self

        if self.arity == 1 and not self.params:
            def function(input: Tensor) -> Tensor:
                return call_pointwise(decl, input)
        else:
            def function(*args: Any, **params: Any) -> Tensor:
                return call_pointwise(decl, *args, **params)
            function.__signature__ = self._signature(False)  # type: ignore[attr-defined]
        function.__name__ = function.__qualname__ = self.name
        function.__module__ = self.module
        function.__doc__ = f"``{self.name}`` (a declared pointwise op; backward: ``{self.node.__name__}``)."
        return function

    def _inplace_function(self) -> Callable[..., Tensor]:
        decl = self

        def function_(self: Tensor, *args: Any, **params: Any) -> Tensor:
            return call_pointwise_(decl, self, *args, **params)
        function_.__signature__ = self._signature(True)  # type: ignore[attr-defined]
        function_.__name__ = function_.__qualname__ = self.name + "_"
        function_.__module__ = self.module
        function_.__doc__ = f"In-place ``{self.name}``."
        return function_

    def bind_params(self, op: str, args: tuple[Any, ...], params: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Split positional extras into the declared parameters; refuse unknown ones."""
        if len(args) == self.arity and not params:
            return args, self.params
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


def call_pointwise(decl: Pointwise, *args: Any, _inplace: bool = False, **params: Any) -> Tensor:
    """The forward of every declared op (``_inplace``: of its in-place variant, written into
    ``args[0]``): check, allocate, compute, record. The one place a tracer hooks in."""
    n = len(args)
    if n == 1 and not params and decl.arity == 1 and not _inplace:  # the common case, kept short
        x = args[0]
        # the dtype rule, memoised by input dtype for ops without a value check
        key = (x._storage.buffer.dtype if isinstance(x, Tensor) else None, dtypes.DEFAULT_FLOAT)
        cached = decl._unary_dtypes.get(key)
        if cached is None:
            cached = decl.dtypes(decl.name, args, decl.params)
            if decl.check is None:
                decl._unary_dtypes[key] = cached
        compute_dtype, dtype = cached
        out, view = new_output(x._sizes, dtype, args)
        token = QUIET.set(IGNORE_ALL)
        try:
            if decl.dtype_rule is BOOL:
                decl.forward(array_of(x), out=view, **decl.params)
            else:
                decl.forward(array_of(x), out=view, dtype=compute_dtype, casting="unsafe", **decl.params)
        finally:
            QUIET.reset(token)
        if decl.differentiable and needs_grad(x):
            node = decl.node()
            record(node, args, (out,))
            saves = decl.saves
            if saves:
                node.save(x if saves & SELF else None, out if saves & RESULT else None, outputs=(out,))
        return out
    if _inplace:
        return _call_inplace(decl, *args, **params)
    args, params = decl.bind_params(decl.name, args, params)
    compute_dtype, dtype = decl.dtypes(decl.name, args, params)
    n = len(args)
    if n <= 2:
        shape = args[0]._sizes if n == 1 else broadcast_shape(args[0], args[1])
    else:
        shape = broadcast_shapes(*(shape_of(a) for a in args))
    out, view = new_output(shape, dtype, args)
    token = QUIET.set(IGNORE_ALL)
    try:
        arrays = (as_array(args[0]), as_array(args[1])) if n == 2 else [as_array(a) for a in args]
        if decl.dtype_rule is BOOL:
            decl.forward(*arrays, out=view, **params)
        else:
            decl.forward(*arrays, out=view, dtype=compute_dtype, casting="unsafe", **params)
    finally:
        QUIET.reset(token)
    if decl.differentiable and needs_grad(*args):
        edges = args if decl.tensors_only else [_tensor_or_none(a) for a in args]
        node = record(decl.new_node(args, params), edges, (out,))
        if decl.saves:  # (a node that saves nothing unpacks Nones)
            _save(node, decl.saves, args, out)  # type: ignore[arg-type]
    return out


def _save(node: SavingNode, saves: int, inputs: Sequence[Any], result: Tensor | None) -> None:
    """Save ``(*inputs, result)``, ``None`` in place of what the formulas do not read."""
    if len(inputs) == 2 and result is not None:
        a, b = inputs if saves & SELF else (None, None)
        node.save(a, b, result if saves & RESULT else None, outputs=(result,))
        return
    values: list[Any] = list(inputs) if saves & SELF else [None] * len(inputs)
    values.append(result if saves & RESULT else None)
    node.save(*values, outputs=(result,) if result is not None else ())


def call_pointwise_(decl: Pointwise, self: Tensor, *args: Any, **params: Any) -> Tensor:
    """``self.<op>_(...)``: the out-of-place formula, through ``apply_inplace``."""
    return call_pointwise(decl, self, *args, _inplace=True, **params)


def _call_inplace(decl: Pointwise, self: Tensor, *args: Any, **params: Any) -> Tensor:
    op = decl.name + "_"
    if not isinstance(self, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(self).__name__}")
    args, params = decl.bind_params(op, (self, *args), params)
    compute_dtype, dtype = decl.dtypes(op, args, params)
    others = args[1:]
    check_inplace_operands(op, self, dtype, *others)
    saves = decl.saves if decl.differentiable else NOTHING

    def make_node() -> Node:  # runs before the write: a copy of the old self, if read
        node = decl.new_node(args, params)
        inputs = (original(self), *others) if saves & SELF else args
        _save(node, saves & SELF, inputs, None)
        return node

    def save_result(node: Node) -> None:
        saved = node.saved  # type: ignore[attr-defined]
        node.saved = saved[:-1] + (SavedTensor(self, node, 0),)  # type: ignore[attr-defined]

    values = np.empty(self._sizes, dtype)
    token = QUIET.set(IGNORE_ALL)
    try:
        decl.forward(*(as_array(a) for a in args), out=values, dtype=compute_dtype, casting="unsafe", **params)
    finally:
        QUIET.reset(token)
    return apply_inplace(
        op, self, values, dtype, [_tensor_or_none(a) for a in args],
        make_node if decl.differentiable else None, save_result if saves & RESULT else None)
