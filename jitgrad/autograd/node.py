"""Graph nodes: ``Node`` (PyTorch's ``torch::autograd::Node``), saved tensors, hooks.

A node is the backward of one forward operation. ``next_functions[i]`` is the edge
``(node, input_nr)`` along which the gradient for the forward's i-th input flows (``None``
when that input needs no gradient). ``input_metadata[k]`` is the shape and dtype of the
forward's k-th output: the engine checks, reduces (un-broadcasts) and casts every gradient
against it in one place (``engine.validate_outputs``), so nodes return local gradients only.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ..tensor import Tensor
from . import anomaly_mode

Edge = tuple["Node | None", int]
Grads = Sequence["Tensor | None"]

_sequence = itertools.count()

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Any]) -> None:
        self.id = next(self._ids)
        self._hooks = weakref.ref(hooks) if not isinstance(hooks, dict) else hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)  # type: ignore[union-attr]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def add_hook(hooks: dict[int, Any], fn: Callable[..., Any]) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"register_hook: expected a callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class OwnedGrads(tuple):
    """What ``apply`` may return instead of a plain tuple: ``owned[i]`` says that gradient
    ``i`` is a buffer the node hands over with no other reference to it (dense, not a view),
    so the engine may let the node it flows to overwrite it. Note [Gradient buffer
    ownership] in ``engine.py``."""

    owned: tuple[bool, ...]

    def __new__(cls, grads: Sequence[Any], owned: Sequence[bool]) -> OwnedGrads:
        out = super().__new__(cls, grads)
        out.owned = tuple(owned)
        return out


class Node:
    """The backward of one forward operation; subclasses implement ``apply``."""

    __slots__ = (
        "next_functions", "input_metadata", "sequence_nr", "_hooks", "_pre_hooks",
        "_tensor_pre_hooks", "_retains_grad_hooks", "_needed", "__weakref__", "__dict__",
    )

    # Whether ``apply`` runs even when every incoming gradient is None (custom Functions do:
    # their backward sees zeros, or None with ``set_materialize_grads(False)``).
    _run_without_grads = False

    def __init__(self) -> None:
        self.next_functions: tuple[Edge, ...] = ()
        self.input_metadata: tuple[tuple[tuple[int, ...], np.dtype], ...] = ()
        self.sequence_nr = next(_sequence)
        self._hooks: dict[int, Callable[..., Any]] | None = None
        self._pre_hooks: dict[int, Callable[..., Any]] | None = None
        # gradient hooks of the tensors this node produced, by output number
        self._tensor_pre_hooks: dict[int, dict[int, Callable[..., Any]]] | None = None
        self._retains_grad_hooks: dict[int, Callable[[Tensor], None]] | None = None
        self._needed: tuple[bool, ...] | None = None
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(self.metadata)

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self.sequence_nr

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def apply(self, grads: Grads, owned: Sequence[bool] = ()) -> tuple[Tensor | None, ...]:
        """Gradients w.r.t. the forward's inputs, given those w.r.t. its outputs.

        ``owned[k]`` is True when ``grads[k]`` is a buffer the engine owns (contiguous, no
        other reference): the node may overwrite it instead of allocating.
        """
        raise NotImplementedError(f"{self.name()}.apply is not implemented")

    def __call__(self, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        return self.apply(list(grads))

    def needs_input_grad(self, i: int) -> bool:
        """Whether the gradient for forward input ``i`` is wanted by this backward pass."""
        if self._needed is not None:
            return self._needed[i]
        return self.next_functions[i][0] is not None

    def release_variables(self) -> None:
        """Free what the node saved for backward (after a backward without retain_graph)."""

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after ``apply``; may return replacements."""
        if self._hooks is None:
            self._hooks = {}
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before ``apply``; may return replacement gradients."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return add_hook(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)

    @property
    def metadata(self) -> dict[str, Any]:
        d = self.__dict__.setdefault("_metadata", {})
        return d


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    An output of the node itself is kept as a data-only alias plus a weak reference to the
    node (no reference cycle); unpacking rebuilds it with its ``grad_fn``.
    """

    __slots__ = ("_data", "_version", "_node", "_output_nr", "_freed", "_saved_at", "_had_history")

    def __init__(self, t: Tensor, node: Node | None = None, output_nr: int = -1) -> None:
        self._version = t._storage.version
        self._freed = False
        # where it was saved, for the version error (anomaly mode only: a frame walk)
        self._saved_at = anomaly_mode.saved_location() if anomaly_mode.enabled else None
        if node is not None:  # an output of ``node``
            self._data = Tensor._make(t._storage, t._sizes, t._strides, t._offset, t._base)
            self._node: weakref.ref[Node] | None = weakref.ref(node)
            self._output_nr = output_nr
        else:
            self._data = t
            self._node = None
            self._output_nr = -1
        self._had_history = node is None and t._grad_fn is not None  # see unpack's detach_ check

    def unpack(self, owner: Node) -> Tensor:
        if self._freed:
            raise RuntimeError(_FREED)
        data = self._data
        if self._had_history and data._grad_fn is None:
            raise RuntimeError(
                f"{owner.name()}: trying to use a saved tensor that has been detached in-place, "
                f"i.e. with .detach_() [{data.dtype.name} {list(data._sizes)}]: its history is "
                "gone. Use the out-of-place .detach() instead."
            )
        if data._storage.version != self._version:
            raise RuntimeError(version_error(data, self, owner))
        if self._node is None:
            return data
        node = self._node()
        out = Tensor._make(data._storage, data._sizes, data._strides, data._offset, data._base)
        if node is not None:
            out._grad_fn = node
            out._output_nr = self._output_nr
        return out

    def release(self) -> None:
        self._freed = True
        self._data = None  # type: ignore[assignment]


def version_error(data: Tensor, saved: SavedTensor, owner: Node) -> str:
    """PyTorch's message, plus which in-place write moved the version and where it ran."""
    shape = list(data._sizes)
    producer = ""
    if saved._node is not None:
        producer = f", which is output {saved._output_nr} of {owner.name()},"
    elif data._grad_fn is not None:
        # the tensor's history *now* (an in-place op rebased it), as PyTorch reports it
        producer = f", which is output {data._output_nr} of {data._grad_fn.name()},"
    msg = (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{data.dtype.name} {shape}]{producer} is at version "
        f"{data._storage.version}; expected version {saved._version} instead."
    )
    last = data._storage.last_write
    if last is not None:
        msg += f" The last in-place write to its memory was {last[0]} at {last[1]}."
    if saved._saved_at is not None:
        msg += f" It was saved for backward at {saved._saved_at}."
    else:
        msg += (
            " Hint: enable anomaly detection (jitgrad.autograd.set_detect_anomaly(True)) "
            "before the forward pass to see where it was saved for backward."
        )
    return msg


class SavingNode(Node):
    """A node that saves tensors for backward in ``self.saved`` (unpacked with ``unpack``)."""

    saved: tuple[Any, ...] = ()

    def save(self, *values: Any, outputs: Sequence[Tensor] = ()) -> None:
        """Save ``values`` for backward: tensors with their version (those among ``outputs``
        without a reference cycle), anything else (scalars, shapes) as it is."""
        saved: list[Any] = []
        for t in values:
            if not isinstance(t, Tensor):
                saved.append(_SAVED_NONE if t is None else _Plain(t))
                continue
            nr = -1
            for k, o in enumerate(outputs):
                if o is t:
                    nr = k
                    break
            saved.append(SavedTensor(t, self, nr) if nr >= 0 else SavedTensor(t))
        self.saved = tuple(saved)

    def unpack(self) -> tuple[Any, ...]:
        return tuple([s.unpack(self) for s in self.saved])

    def release_variables(self) -> None:
        for s in self.saved:
            s.release()


class _Plain:
    """A saved non-tensor value (a scalar, a shape): nothing to check or free."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def unpack(self, owner: Node) -> Any:
        return self.value

    def release(self) -> None:
        pass


_SAVED_NONE = _Plain(None)  # shared: nothing to free
