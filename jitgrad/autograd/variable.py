"""The autograd side of ``Tensor``: ``requires_grad``, ``grad``, ``grad_fn``, hooks,
``backward``. Attached to ``Tensor`` in ``jitgrad/_bind.py``."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from .. import dtypes
from .._warn_once import warn_once
from ..tensor import Tensor
from . import _dual_tangents, engine, post_accumulate
from .hook_results import typename
from .grad_mode import is_grad_enabled
from .graph import grad_accumulator, grad_fn_of
from .node import Node, RemovableHandle, add_hook


def requires_grad(self: Tensor) -> bool:
    """PyTorch's ``requires_grad``: reading it never regenerates a stale view's history (so
    it cannot raise that history's errors; ``grad_fn`` and every op do)."""
    t: Tensor | None = self
    while t is not None:
        if t._requires_grad or t._grad_fn is not None:
            return True
        t = t._view_meta.base if t._view_meta is not None else None
    return False


def to_float(self: Tensor) -> float:
    """``float(t)``: PyTorch's warning (once per process) when ``t`` requires grad while
    grad mode is on; under ``no_grad`` (as in LBFGS's step) there is nothing to warn about."""
    if is_grad_enabled() and requires_grad(self):
        warn_once("Converting a tensor with requires_grad=True to a scalar may lead to "
                  "unexpected behavior.\nConsider using tensor.detach() first.")
    return float(self._scalar("float"))


def set_requires_grad(self: Tensor, flag: bool) -> None:
    if flag.__class__ is not bool:  # (PyTorch's setter: no truthiness, not even numpy.bool)
        raise RuntimeError("requires_grad must be a bool")
    requires_grad_(self, flag)


def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    if requires_grad.__class__ is not bool:
        raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                        f"{typename(requires_grad)}")
    flag = requires_grad
    if self._grad_fn is not None:
        if not flag:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        return self
    if flag and self.dtype not in dtypes.FLOATING:
        raise RuntimeError(
            f"only Tensors of floating point dtype can require gradients, got {self.dtype.name} "
            "(convert first, e.g. t.double())"
        )
    self._requires_grad = flag
    return self


def is_leaf(self: Tensor) -> bool:
    return grad_fn_of(self) is None


def grad_fn(self: Tensor) -> Node | None:
    return grad_fn_of(self)


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


def get_grad(self: Tensor) -> Tensor | None:
    g = self._grad
    if g is None and not self._retains_grad and grad_fn_of(self) is not None:
        warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)  # PyTorch's TensorBase::grad
    return g


def set_grad(self: Tensor, value: Tensor | None) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(  # PyTorch's wording
                f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
        if value is self:
            raise RuntimeError("can't assign Variable as its own grad")  # PyTorch's
        if value._sizes != self._sizes:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value._sizes)}' to a tensor of "
                f"size '{list(self._sizes)}'. Please ensure that the gradient and the tensor are "
                "the same size"
            )
        if value.dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{value.dtype.name}' to a tensor "
                f"with dtype '{self.dtype.name}'. Please ensure that the gradient and the tensor "
                "have the same dtype"
            )
    self._grad = value


def output_nr(self: Tensor) -> int:
    return self._output_nr


def delete_grad(self: Tensor) -> None:
    """``del t.grad``: the same as ``t.grad = None``, as in PyTorch."""
    set_grad(self, None)


def delete_requires_grad(self: Tensor) -> None:
    raise RuntimeError("requires_grad must be a bool")  # PyTorch's (its setter given nothing)


def retains_grad(self: Tensor) -> bool:
    return self._retains_grad


def retain_grad(self: Tensor) -> None:
    """Keep ``.grad`` for a non-leaf tensor (a no-op on leaves). A leaf here is a tensor
    without a history of its own, as PyTorch's C++ ``is_leaf`` sees it: a view made under
    no_grad or in inference mode is one, even after a write into its base (no regeneration,
    so none of a stale view's refusals)."""
    if self._grad_fn is None:
        if not requires_grad(self):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        return
    if self._retains_grad:
        return
    grad_fn_of(self)  # (a stale view's history brought up to date: the hook goes on it)
    self._retains_grad = True
    _install_retains_grad_hook(self)


def _install_retains_grad_hook(self: Tensor) -> None:
    import weakref

    ref = weakref.ref(self)

    def hook(grad: Tensor) -> None:
        t = ref()
        if t is None:
            return
        from .graph import dense_copy

        if t._grad is None:
            t._grad = dense_copy(grad) if grad._grad_fn is None else grad.clone()  # type: ignore[attr-defined]
        else:
            t._grad = t._grad + grad  # type: ignore[operator]

    node = self._grad_fn
    if node._retains_grad_hooks is None:
        node._retains_grad_hooks = {}
    node._retains_grad_hooks[self._output_nr] = hook


def register_hook(self: Tensor, hook: Callable[[Tensor], Any]) -> RemovableHandle:
    """``hook(grad)`` runs when the gradient w.r.t. this tensor is computed; it may return a
    replacement gradient."""
    if not requires_grad(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if grad_fn_of(self) is None:
        if self._hooks is None:
            self._hooks = {}
        # a leaf's hooks run as tensor pre-hooks of its AccumulateGrad (see grad_accumulator)
        grad_accumulator(self)._tensor_pre_hooks = {0: self._hooks}
        return add_hook(self._hooks, hook)
    return self._grad_fn._add_tensor_pre_hook(self._output_nr, hook)


def register_post_accumulate_grad_hook(self: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
    """``hook(tensor)`` runs after a backward pass accumulated into this leaf's ``.grad``
    (not for ``autograd.grad``); it must return None. Kept by the tensor, as in PyTorch
    (jitgrad commits leaf gradients when the pass succeeded: the hooks run then)."""
    if not requires_grad(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if grad_fn_of(self) is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return add_hook(post_accumulate.hooks_of(self), hook)


def backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    engine.backward(self, None if gradient is None else [gradient], retain_graph, create_graph, inputs)


def detach_(self: Tensor) -> Tensor:
    """Make this tensor a leaf that does not require grad (refused on every view, as in
    PyTorch, whether or not its base requires grad)."""
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead: it returns a new tensor that "
            "shares memory but not history."
        )
    self._grad_fn = None
    self._requires_grad = False
    self._output_nr = 0
    return self


def repr_suffixes(self: Tensor) -> list[str]:
    """``grad_fn=<...>`` or ``requires_grad=True``, then a dual tensor's ``tangent=...``."""
    tangent = _dual_tangents.tangent_of(self) if _dual_tangents.TANGENTS else None
    dual = [f"tangent={tangent!r}"] if isinstance(tangent, Tensor) else []
    try:
        fn = grad_fn_of(self)  # a stale view's regenerated grad_fn, as PyTorch prints it
    except RuntimeError:  # e.g. a no_grad view whose base was then written in place
        return ["grad_fn=<Invalid>", *dual]
    if fn is not None:
        return [f"grad_fn=<{type(fn).__name__}>", *dual]  # (PyTorch prints the class name)
    if self._requires_grad:
        return ["requires_grad=True", *dual]
    return dual
