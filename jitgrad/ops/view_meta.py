"""View tracking: what autograd remembers about every differentiable view.

Note [Views and in-place writes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every output of a view op carries a ``ViewMeta``: its root ``base``; a ``view_fn`` that
replays the chain of view ops from the base (e.g. narrow -> transpose -> select); how it
was created (``CreationMeta``: normal, output of a multi-output view op, under no_grad,
inside a custom Function — a view of a view inherits the most restrictive kind); and the
storage version at which its ``grad_fn`` was last valid (``attr_version``).

An in-place write on a view rebases the *base's* history onto ``CopySlices`` (see
``copy_slices.py``). Any write to the storage bumps the shared version, so every view's
``grad_fn`` is then stale: it is regenerated lazily, on next read (``current_grad_fn``), as
an ``AsStridedBackward0`` from its nearest living ancestor view (or the base) in as_strided
mode, or by replaying ``view_fn`` with grad mode on in view-replay mode. Going through the
nearest living ancestor, rather than straight to the base as PyTorch does, keeps the
``retain_grad`` and hooks of intermediate views working (pytorch/pytorch#8874).

View modes: *as_strided mode* (default) recovers views from geometry; *view-replay mode*
(what a backend without ``as_strided`` must do) replays ``view_fn``. Gradients are identical.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from ..autograd.grad_mode import _state as _grad_state
from ..autograd.grad_mode import set_grad_enabled
from ..autograd.graph import ScatterGrad, gradient_edge, requires_grad, single_metadata
from ..autograd.node import forward_op_name
from ..autograd.view_mode import is_view_replay
from ..storage import INFERENCE
from ..tensor import Tensor

DEFAULT = "default"
MULTI_OUTPUT_NODE = "multi_output_node"
NO_GRAD_MODE = "no_grad_mode"
IN_CUSTOM_FUNCTION = "in_custom_function"
INFERENCE_MODE = "inference_mode"

Step = tuple[Callable[..., Any], tuple[Any, ...]]

# replay functions that address storage rather than their input's elements (``as_strided``):
# a view made through one may reach outside its parent (see ``_nearest_living_ancestor``)
ADDRESSES_STORAGE: set[Callable[..., Any]] = set()

# ``as_strided.AsStridedBackward0``, the grad_fn a view is regenerated as in as_strided mode
# (registered by ``as_strided.py``, which imports this module)
AS_STRIDED_BACKWARD: list[Any] = []

class ViewMeta:
    __slots__ = ("base", "parent", "parent_meta", "step_fn", "step_args", "_view_fn", "creation",
                 "attr_version")

    def __init__(
        self, base: Tensor, parent: Tensor | None, step: Step, creation: str,
        view_fn: tuple[Step, ...] | None = None,
    ) -> None:
        self.base = base
        # the view this one was taken from (weakly: only its hooks need it) and its meta
        if parent is None:
            self.parent = self.parent_meta = None
        else:
            self.parent = weakref.ref(parent)
            self.parent_meta = parent._view_meta
        # the op that made this view from its parent (or from the base), and its arguments
        self.step_fn, self.step_args = step
        self._view_fn = view_fn
        self.creation = creation
        counter = base._storage._counter
        self.attr_version = 0 if counter is None else counter.value

    @property
    def view_fn(self) -> tuple[Step, ...]:
        """The chain of view ops from the base to this view: the parent's chain, then this
        view's step. Made on first use (most views are never replayed nor rewritten)."""
        fns = self._view_fn
        if fns is None:
            steps = []
            meta: ViewMeta | None = self
            while meta is not None and meta._view_fn is None:  # (a loop: chains may be long)
                steps.append((meta.step_fn, meta.step_args))
                meta = meta.parent_meta
            steps.reverse()
            fns = self._view_fn = (() if meta is None else meta._view_fn) + tuple(steps)
        return fns


def make_view(self: Tensor, out: Tensor, step: Step, creation: str = DEFAULT) -> Tensor:
    """Attach view tracking to ``out``, a view of ``self`` made by ``step``. A view of an
    inference tensor is a plain alias outside autograd (no base, no history), as in PyTorch."""
    if self._storage.inference:
        out._base = None
        out._grad_fn = None
        return out
    if INFERENCE.enabled:
        creation = INFERENCE_MODE
    elif not _grad_state.enabled:
        creation = NO_GRAD_MODE
    parent_meta = self._view_meta
    if parent_meta is not None:
        if creation == DEFAULT or parent_meta.creation == INFERENCE_MODE:
            creation = parent_meta.creation  # (PyTorch's propagate_creation_meta)
        out._view_meta = ViewMeta(parent_meta.base, self, step, creation)
    else:
        out._view_meta = ViewMeta(self if self._base is None else self._base, None, step, creation)
    return out


def replay(view_fn: tuple[Step, ...], t: Tensor) -> Tensor:
    for fn, args in view_fn:
        t = fn(t, *args)
    return t


def current_grad_fn(t: Tensor) -> Any:
    """``t``'s grad_fn, regenerated first if ``t`` is a view whose storage was written."""
    vm = t._view_meta
    if vm is None:
        return t._grad_fn
    counter = t._storage._counter  # (Storage.version, inlined: every op on a view reads it)
    if vm.attr_version == (0 if counter is None else counter.value):
        return t._grad_fn
    if t._grad_fn is None and not requires_grad(vm.base):
        return None
    handle_view_on_rebase(t, indirect=True)
    regenerate(t, indirect=True)
    return t._grad_fn


def _nearest_living_ancestor(vm: ViewMeta) -> Tensor:
    """The closest view ``t`` was taken from that is still alive and covers every element of
    ``t`` — else the base. An ``as_strided`` step addresses storage and may reach outside
    its input, so only the base is sure to cover a view made through one."""
    last = None  # the index of the last as_strided step: the chain after it is safe
    meta: ViewMeta | None = vm
    while meta is not None:
        parent = meta.parent() if meta.parent is not None else None
        if parent is not None:
            if last is None:
                last = max((i for i, (fn, _) in enumerate(vm.view_fn) if fn in ADDRESSES_STORAGE),
                           default=-1)
            if len(parent._view_meta.view_fn) > last:
                return parent
        meta = meta.parent_meta
    return vm.base


def regenerate(t: Tensor, indirect: bool, geometries: tuple[Any, Any] | None = None) -> None:
    """Rebuild the grad_fn of view ``t`` from its ancestors' current history. ``geometries``:
    the base's and ``t``'s geometry, when the caller has them at hand."""
    vm = t._view_meta
    old = t._grad_fn
    ancestor = vm.base if vm.parent is None else _nearest_living_ancestor(vm)
    if is_view_replay():
        start = 0 if ancestor is vm.base else len(ancestor._view_meta.view_fn)
        with set_grad_enabled(True):
            fn = replay(vm.view_fn[start:], ancestor)._grad_fn
    else:
        if geometries is not None and ancestor is vm.base:
            ancestor_geometry, geometry = geometries
        else:
            ancestor_geometry, geometry = ancestor._geometry, t._geometry
        fn = AS_STRIDED_BACKWARD[0](ancestor_geometry, geometry)
        fn._set_edges((gradient_edge(ancestor),))
        fn.input_metadata = single_metadata(t._sizes, t._storage.buffer.dtype)
    t._grad_fn = fn
    t._output_nr = 0
    vm.attr_version = t._storage.version
    move_hooks(t, old, fn, keep_tensor_hooks=indirect)


def move_hooks(t: Tensor, old: Any, new: Any, keep_tensor_hooks: bool) -> None:
    """``retain_grad`` follows the tensor to its new grad_fn (as in PyTorch). Tensor hooks do
    too when the tensor was changed through an alias (``keep_tensor_hooks``): they stay
    registered on the old node as well, for gradients w.r.t. the earlier uses."""
    if old is None or new is None or old is new:
        return
    nr = t._output_nr
    if old._retains_grad_hooks and nr in old._retains_grad_hooks:
        hook = old._retains_grad_hooks.pop(nr)
        if new._retains_grad_hooks is None:
            new._retains_grad_hooks = {}
        new._retains_grad_hooks[0] = hook
    if keep_tensor_hooks and old._tensor_pre_hooks and nr in old._tensor_pre_hooks:
        if new._tensor_pre_hooks is None:
            new._tensor_pre_hooks = {}
        new._tensor_pre_hooks[0] = old._tensor_pre_hooks[nr]  # shared: removal works on both


def handle_view_on_rebase(t: Tensor, indirect: bool) -> None:
    """PyTorch's refusals of in-place writes that would make a view's history wrong."""
    vm = t._view_meta
    if vm is None or vm.creation == DEFAULT:
        return
    grad_fn = t._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if vm.creation in (NO_GRAD_MODE, INFERENCE_MODE) or grad_fn is None:
        prefix = (
            f"Output {t._output_nr} of {forward_op_name(grad_fn)} is a view of a view which was created in"
            if grad_fn is not None else "A view was created in"
        )
        if vm.creation == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        name = forward_op_name(grad_fn)
        msg = f"Output {t._output_nr} of {name} is a view and {modified} modified inplace."
    if vm.creation == MULTI_OUTPUT_NODE:
        msg += (
            " This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."
        )
    elif vm.creation in (NO_GRAD_MODE, INFERENCE_MODE):
        block = "no_grad" if vm.creation == NO_GRAD_MODE else "inference_mode"
        msg += (
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            f"{block} block (if you don't want the inplace to be tracked) or both outside (if "
            "you want the inplace to be tracked)."
        )
    elif vm.creation == IN_CUSTOM_FUNCTION:
        msg += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. "
            "This behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function."
        )
    raise RuntimeError(msg)


def dense_call(node: Any, grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """``node(*grads)`` called by the user rather than the engine: a view's backward may
    return a ``ScatterGrad`` (a gradient the engine adds in O(slice)), which only the engine
    may see; the caller gets it as a dense tensor."""
    return tuple(g.materialize() if g.__class__ is ScatterGrad else g for g in node.apply(list(grads)))
