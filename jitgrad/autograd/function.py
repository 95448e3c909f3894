"""Custom operations: ``jitgrad.autograd.Function``, as PyTorch's ``torch.autograd.Function``.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = jitgrad.from_numpy(np.exp(x.detach().numpy()))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)        # y.grad_fn is an ExpBackward node: the ``ctx`` forward saw

As in PyTorch the context *is* the backward node (a ``<Name>Backward`` subclass of
``BackwardCFunction`` made once per ``Function`` subclass): ``forward`` runs under
``no_grad``, and ``apply`` then wires its tensor outputs into the graph (``_wrap_outputs``):

- an output marked dirty (``ctx.mark_dirty``: modified in place) must be an input; its
  version is bumped once more and its history rebased onto this node (a view's base gets
  CopySlices; a leaf that requires grad, or a view of one, is refused as for any in-place
  write); marking a tensor made inside ``forward`` warns (a view of one is refused);
- an output that is a view (made inside ``forward``, or an input returned as-is) gets this
  node as its history, so writing into it later is refused: it would bypass ``backward``;
- an input returned unmodified comes back as a new alias (a view sharing its memory)
  whose ``grad_fn`` is this node, never as the input object itself;
- an output marked non-differentiable gets no ``grad_fn`` (an input one: a detached alias).

``backward`` receives one gradient per forward output (None for non-tensor outputs; zeros
for unused tensor outputs unless ``ctx.set_materialize_grads(False)``) and returns one per
forward argument (None for non-tensors); the engine un-broadcasts and casts them.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable

from ..tensor import Tensor
from .grad_mode import is_grad_enabled, no_grad
from .hook_results import typename
from .graph import _NO_EDGE, OPS, gradient_edge, record, requires_grad
from .node import Grads, Node, SavedTensor, _FREED
from .variable import requires_grad as requires_grad_flag

_ACCESSED_ONCE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on "
    "the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False."
)

__all__ = [
    "BackwardCFunction", "Error", "Function", "FunctionCtx", "InplaceFunction", "delayed_error",
    "once_differentiable",
]


class FunctionCtx:
    """What ``forward`` and ``backward`` can do with ``ctx`` (mixed into the backward node)."""

    _saved: tuple[SavedTensor | None, ...] | None
    _dirty: tuple[Tensor, ...]
    _non_differentiable: tuple[Tensor, ...]
    _materialize_grads: bool
    _to_save: tuple[Tensor | None, ...] | None
    _wrapped: bool
    needs_input_grad: tuple[bool, ...]

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep ``tensors`` for ``backward``; using them after an in-place change raises."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}"
                )
        self._to_save = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare inputs that ``forward`` modified in place (they must also be returned)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient (their gradient in backward is zeros)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` receives None (not zeros) for outputs that got no gradient."""
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        saved = self._saved
        if saved is None:
            if not self._wrapped:  # still inside forward: nothing to check yet
                return tuple(self._to_save or ())
            if getattr(self, "_cleared_on_access", False):
                raise RuntimeError(_ACCESSED_ONCE)
            raise RuntimeError(_FREED)
        tensors = tuple(None if s is None else s.unpack(self) for s in saved)  # type: ignore[arg-type]
        if getattr(self, "_forward_cls", Function).clear_saved_tensors_on_access:
            # PyTorch's opt-in: the first access hands the tensors over and frees them here
            self.release_variables()  # type: ignore[attr-defined]
            self._cleared_on_access = True
        return tensors

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        """PyTorch's deprecated spelling of ``saved_tensors``."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning)
        return self.saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The graph node of one ``Function.apply`` call (and that call's ``ctx``)."""

    _forward_cls: type[Function]
    _run_without_grads = True

    def __init__(self) -> None:
        super().__init__()
        self._saved = None
        self._to_save = None
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self._wrapped = False
        self._tensor_inputs: tuple[int, ...] = ()
        self._num_args = 0
        self._output_info: tuple[tuple[tuple[int, ...], Any] | None, ...] = ()
        self.needs_input_grad = ()

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        cls = self._forward_cls
        args: list[Tensor | None] = list(grads)
        if self._materialize_grads:
            from ..creation import zeros

            for k, info in enumerate(self._output_info):
                if args[k] is None and info is not None:
                    args[k] = zeros(info[0], dtype=info[1])
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        result = (vjp if vjp is not Function.vjp else backward)(self, *args)
        if not isinstance(result, tuple):
            result = (result,)
        return self._select_input_grads(result)

    def _select_input_grads(self, result: tuple[Any, ...]) -> tuple[Tensor | None, ...]:
        """One gradient per forward argument -> one per tensor input (``next_functions``)."""
        name = self.name()
        if len(result) < self._num_args:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected "
                f"{self._num_args}, got {len(result)})"
            )
        for k in range(self._num_args, len(result)):
            if result[k] is not None:
                raise RuntimeError(
                    f"function {name} returned an incorrect number of gradients (expected "
                    f"{self._num_args}, got {len(result)})"
                )
        tensor_args = set(self._tensor_inputs)
        for k in range(self._num_args):
            if k not in tensor_args and result[k] is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{k + 1}, but the corresponding forward input was not a Variable"
                )
        for k in self._tensor_inputs:
            if result[k] is not None and not isinstance(result[k], Tensor):
                raise RuntimeError(
                    f"function {name} returned an invalid gradient at index {k} - expected "
                    f"Variable or None (got {typename(result[k])})"
                )
        return tuple(result[k] for k in self._tensor_inputs)

    def release_variables(self) -> None:
        if self._saved is not None:
            for s in self._saved:
                if s is not None:
                    s.release()
        self._saved = None


class Function:
    """Base class of custom differentiable operations; call them with ``MyFn.apply(...)``."""

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch's FunctionMeta: one node class per Function, named <Name>Backward
        cls._backward_cls = type(
            f"{cls.__name__}Backward", (BackwardCFunction,), {"_forward_cls": cls}
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself. "
            "Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward  # PyTorch's other name: a Function defines one of the two

    # PyTorch's opt-in: ``ctx.saved_tensors`` frees the saved tensors on its first access
    clear_saved_tensors_on_access = False

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any) -> Any:
        if cls is Function:
            raise RuntimeError("Function.apply: call apply on a subclass that defines forward/backward")
        separate_setup = "setup_context" in _defining_dict(cls)
        if separate_setup:  # PyTorch's bind_default_args: setup_context sees every argument
            args = _with_defaults(cls.forward, args)
        ctx = cls._backward_cls()
        tensor_inputs = tuple(k for k, a in enumerate(args) if isinstance(a, Tensor))
        ctx._num_args = len(args)
        ctx._tensor_inputs = tensor_inputs
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and requires_grad_flag(a) for a in args)
        executable = is_grad_enabled() and any(ctx.needs_input_grad)
        if executable:  # (as in PyTorch, before forward: a write it makes cannot change them)
            ctx._set_edges(tuple(gradient_edge(args[k]) for k in tensor_inputs))
        with no_grad():
            if separate_setup:
                outputs = cls.forward(*args)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args)
        return _wrap_outputs(ctx, args, outputs, executable)


def _with_defaults(forward: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``args`` completed with ``forward``'s default values (``inspect.signature.bind``)."""
    bound = inspect.signature(forward).bind(*args)
    bound.apply_defaults()
    return bound.args


def _defining_dict(cls: type) -> dict[str, Any]:
    """The attributes ``cls`` and its bases define below ``Function`` (for ``setup_context``)."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is not Function and issubclass(klass, Function):
            found.update(vars(klass))
    return found


def _wrap_outputs(ctx: BackwardCFunction, args: tuple[Any, ...], outputs: Any, executable: bool) -> Any:
    """PyTorch's ``_wrap_outputs``: give the outputs their history (see the module doc)."""
    single = not isinstance(outputs, tuple)
    outs = [outputs] if single else list(outputs)
    input_ids = {id(args[k]) for k in ctx._tensor_inputs}
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    for t in ctx._dirty:
        if not any(o is t for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                "The inputs that are modified inplace must all be outputs of the Function."
            )
    info: list[tuple[tuple[int, ...], Any] | None] = []
    meta: list[tuple[tuple[int, ...], Any]] = []
    views: list[Tensor] = []  # outputs that are views, now with this node as their history
    rebased = None  # a view marked dirty: its base's history now holds this node
    name = f"{ctx._forward_cls.__name__}.apply"
    for nr, out in enumerate(outs):
        if not isinstance(out, Tensor):
            info.append(None)
            meta.append(((), None))
            continue
        info.append((out._sizes, out.dtype))
        meta.append((out._sizes, out.dtype))
        is_input = id(out) in input_ids
        if id(out) in dirty:
            out._storage.bump(name)
        if not executable:
            if is_input and id(out) not in dirty:
                outs[nr] = _alias(out)
            elif out._view_meta is not None and id(out) not in dirty:
                views.append(out)  # no history, but writing into it is refused all the same
            continue
        if id(out) in non_diff:
            if is_input:
                outs[nr] = _alias(out)  # a detached alias, the input keeps its history
            else:
                out._grad_fn = None
                out._requires_grad = False
            continue
        if id(out) in dirty:
            if out._grad_fn is None and _leaf_requires_grad(out):
                raise RuntimeError(
                    f"{name}: a leaf Variable that requires grad has been used in an in-place "
                    "operation (marked dirty)."
                )
            if not is_input:
                _check_dirty_non_input(name, out)
            elif out._view_meta is not None and OPS.rebase_history is not None:
                if len(outs) > 1:
                    raise RuntimeError(
                        f"{name}: if your Function modifies inplace an input that is a view of "
                        "another Tensor, your Function cannot return more than one Tensor "
                        f"(got {len(outs)} outputs). Clone the input first, or split the Function "
                        "in two: one doing the in-place write and returning only that tensor."
                    )
                # CopySlices on the base, as for any in-place write through a view; like
                # PyTorch's, it takes the node's first edge to be the modified view's
                if not (ctx._tensor_inputs and args[ctx._tensor_inputs[0]] is out):
                    k = next(i for i, a in enumerate(args) if a is out)
                    raise RuntimeError(
                        f"{name}: the input modified in place (marked dirty) is a view, so its "
                        "base's history is rewritten around this Function, which supports only "
                        f"the Function's first tensor input there; got argument {k}. Pass the "
                        "view first, or clone it before the call (PyTorch accepts this and "
                        "computes wrong gradients)."
                    )
                OPS.rebase_history(out, ctx, gradient_edge(out._view_meta.base), name)
                rebased = out
                continue
            _move_retains_grad_hook(out, ctx, nr)
        elif is_input:
            alias = _alias(out)
            if OPS.custom_function_view is not None:
                OPS.custom_function_view(out, alias)
            out = outs[nr] = alias
        if out._view_meta is not None:
            views.append(out)
        out._grad_fn = ctx
        out._output_nr = nr
    if OPS.custom_function_output_view is not None:
        multi = (sum(isinstance(o, Tensor) and o._grad_fn is ctx for o in outs) if executable
                 else len(views)) > 1
        for v in views:  # a write into them would override this Function's backward
            OPS.custom_function_output_view(v, multi)
    ctx._output_info = tuple(info)
    if executable:
        ctx.input_metadata = tuple(meta)
        if ctx._to_save is not None:
            ctx._saved = tuple(_save(ctx, t, outs, rebased) for t in ctx._to_save)
    else:
        ctx._saved = None
    ctx._to_save = None if executable else ctx._to_save
    # done with them: kept, the dirty outputs would make a reference cycle through this node
    ctx._dirty = ctx._non_differentiable = ()
    ctx._wrapped = True
    return outs[0] if single else tuple(outs)


def _leaf_requires_grad(t: Tensor) -> bool:
    """Whether ``t`` (with no ``grad_fn``) is a leaf that requires grad, or a view of one made
    under no_grad (a leaf too, as PyTorch sees it); its stale history is not regenerated."""
    return t._requires_grad or (t._view_meta is not None and requires_grad(t._view_meta.base))


def _check_dirty_non_input(name: str, t: Tensor) -> None:
    """``ctx.mark_dirty`` is for inputs: PyTorch warns about any other tensor, and refuses a
    view (it would rewrite the history of a tensor the Function made itself)."""
    msg = (
        f"{name}: ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
        "that have been modified in place should be passed to ctx.mark_dirty()"
    )
    if t._view_meta is not None:
        raise RuntimeError(msg + "; this one is a view of a tensor made inside forward.")
    warnings.warn(msg + " (a tensor made inside forward needs no marking).", UserWarning, stacklevel=4)


def _move_retains_grad_hook(t: Tensor, node: Node, nr: int) -> None:
    """``retain_grad`` follows a tensor modified in place to its new history."""
    old = t._grad_fn
    hooks = None if old is None else old._retains_grad_hooks
    if hooks and t._output_nr in hooks:
        if node._retains_grad_hooks is None:
            node._retains_grad_hooks = {}
        node._retains_grad_hooks[nr] = hooks.pop(t._output_nr)


def _alias(t: Tensor) -> Tensor:
    """A new tensor on ``t``'s memory (a view of it), outside any graph."""
    root = t if t._base is None else t._base
    return Tensor._make(t._storage, t._sizes, t._strides, t._offset, root)


def _save(
    ctx: BackwardCFunction, t: Tensor | None, outs: list[Any], rebased: Tensor | None
) -> SavedTensor | None:
    """``t`` saved for ``ctx``'s backward: as an output of ``ctx`` when it is one (its
    history ``ctx``, or a view marked dirty whose base's history now holds ``ctx``: either
    way kept without a reference back to ``ctx``), else as an input."""
    if t is None:
        return None
    for nr, o in enumerate(outs):
        if o is t and (t._grad_fn is ctx or t is rebased):
            return SavedTensor(t, ctx, nr)  # an output: no reference cycle through ctx
    return SavedTensor(t)


class InplaceFunction(Function):
    """PyTorch's backward-compatibility base class: a ``Function`` with an ``inplace`` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Error(Node):
    """Stands in for a ``once_differentiable`` backward: differentiating it again raises.
    PyTorch's ``DelayedError`` makes this node, named ``Error``, with one edge per output of
    the backward (none for an output that is not a tensor)."""

    def __init__(self, msg: str, num_outputs: int) -> None:
        super().__init__()
        self.msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"  # PyTorch's name for this C++ node

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        raise RuntimeError(self.msg)


def delayed_error(msg: str, t: Tensor) -> Tensor:
    """PyTorch's ``DelayedError`` node applied to ``t``: ``t`` unchanged when no graph is
    being recorded, else an alias whose backward raises ``msg`` (a gradient formula that
    has no derivative of its own, met only when differentiating it)."""
    if not is_grad_enabled() or not requires_grad(t):
        return t
    out = Tensor._make(t._storage, t._sizes, t._strides, t._offset)
    record(Error(msg, 1), (t,), (out,))
    return out


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``backward`` without recording a graph; a double backward through it then raises."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        if not any(isinstance(a, Tensor) and requires_grad(a) for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = Error(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            len(outs),
        )
        wrapped: list[Any] = []
        inputs: list[Tensor | None] = []
        for o in outs:
            if isinstance(o, Tensor):
                alias = Tensor._make(o._storage, o._sizes, o._strides, o._offset)
                alias._requires_grad = True
                inputs.append(alias)
                out = Tensor._make(o._storage, o._sizes, o._strides, o._offset)
                out._grad_fn = err
                out._output_nr = len(wrapped)
                wrapped.append(out)
            else:
                inputs.append(None)
                wrapped.append(o)
        err._set_edges(tuple(_NO_EDGE if a is None else gradient_edge(a) for a in inputs))
        err.input_metadata = tuple((o._sizes, o.dtype) if isinstance(o, Tensor) else ((), None) for o in outs)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
