"""Graph nodes: ``Node`` (PyTorch's ``torch::autograd::Node``), saved tensors, hooks.

A node is the backward of one forward operation. ``next_functions[i]`` is the edge
``(node, input_nr)`` along which the gradient for the forward's i-th input flows (``None``
when that input needs no gradient); a node stores the nodes inline (``Node._next`` says
how) and the input numbers as a tuple shared between nodes (``_nrs``), and builds
``next_functions`` when asked (see ``Node.next_functions``). ``input_metadata[k]`` is the
shape and dtype of the forward's k-th output: the engine checks, reduces (un-broadcasts) and casts every gradient
against it in one place (``engine.validate_outputs``), so nodes return local gradients only.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ..storage import INFERENCE
from ..tensor import Tensor
from . import anomaly_mode

Edge = tuple["Node | None", int]
Grads = Sequence["Tensor | None"]

# the next ``sequence_nr`` (bound once: every node of every op takes one)
_next_sequence_nr = itertools.count().__next__

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


# The ``_nrs`` of nodes whose edges all lead to input 0 of the next node (nearly every
# node), by number of edges: shared, so that storing them costs no object.
ZERO_NRS = tuple((0,) * k for k in range(9))


def edge_numbers(nrs: tuple[int, ...]) -> tuple[int, ...]:
    """``nrs`` as a ``_nrs``: the shared tuple when every number is 0."""
    return ZERO_NRS[len(nrs)] if len(nrs) < len(ZERO_NRS) and not any(nrs) else nrs


def split_edges(edges: Sequence[Edge]) -> tuple[tuple[Node | None, ...], tuple[int, ...]]:
    """``(nodes, input numbers)`` of ``edges``: a node's ``_next`` and ``_nrs``."""
    return tuple([fn for fn, _ in edges]), edge_numbers(tuple([nr for _, nr in edges]))


def set_next(node: Node, nodes: Sequence[Node | None]) -> None:
    """Store ``nodes`` as ``node``'s edges' nodes (``Node._next``'s setter; the node's
    ``_nrs`` must be, or become, of their length). Every slot is written, so edges replaced
    keep nothing alive."""
    n = len(nodes)
    if n > 2:
        node._n0 = node._n1 = None
        node._nx = nodes if nodes.__class__ is tuple else tuple(nodes)
    else:
        node._n0 = nodes[0] if n else None
        node._n1 = nodes[1] if n == 2 else None
        node._nx = None


class Node:
    """The backward of one forward operation; subclasses implement ``apply``."""

    # Every node has these four; what only some nodes ever get (hooks, the engine's
    # ``_needed``, a subclass's own fields) is a class-level default written into the
    # instance only when set: constructing a node is one of the costs of every op.
    # The edges: the nodes they lead to inline, in ``_n0`` and ``_n1`` for a node of one or
    # two inputs (``_nx`` then None or unset) and as one tuple in ``_nx`` for more (``_n0``
    # and ``_n1`` then None), and the input numbers as a tuple ``_nrs``, usually one shared
    # by many nodes (``ZERO_NRS``), whose length is the number of edges; ``_next`` gives
    # the nodes as a tuple. Not a tuple of ``(node, nr)`` pairs, nor a tuple of nodes per
    # node: a graph kept alive (a DP table, a time stepper's history) is what Python's
    # collector walks on every collection, and every object it holds counts towards the
    # next one; a tuple per node was a third of a stepper statement's objects, and with the
    # saved values' tuples (``SavingNode``) most of its collector time (2.2 -> 0.75 us a
    # statement, in the bench's form).
    __slots__ = ("_n0", "_n1", "_nx", "_nrs", "input_metadata", "sequence_nr", "__weakref__", "__dict__")

    _hooks: dict[int, Callable[..., Any]] | None = None
    _pre_hooks: dict[int, Callable[..., Any]] | None = None
    # gradient hooks of the tensors this node produced, by output number
    _tensor_pre_hooks: dict[int, dict[int, Callable[..., Any]]] | None = None
    _retains_grad_hooks: dict[int, Callable[[Tensor], None]] | None = None
    _needed: tuple[bool, ...] | None = None  # needs_input_grad while the engine calls apply

    # Whether ``apply`` runs even when every incoming gradient is None (custom Functions do:
    # their backward sees zeros, or None with ``set_materialize_grads(False)``).
    _run_without_grads = False

    # What CopySlices asks of the node of an in-place write into a view (Note [CopySlices
    # rebasing] in ``ops/copy_slices.py``). ``overwrites_view``: the write replaced every
    # element of the view, so their old values get zero gradient and CopySlices fills the
    # slice itself instead of calling the node for it (``copy_``, ``fill_``).
    # ``zero_overwritten(region)``: zero, in the gradient ``region`` (the view's geometry in
    # the base's gradient), the elements the write overwrote; only nodes of
    # order-independent writes, which may go through a self-overlapping view, define it.
    overwrites_view: bool = False
    zero_overwritten: Callable[[Tensor], None] | None = None
    # ``writes_strided``: when only its first input needs a gradient, ``apply_owned`` also
    # takes, as its owned gradient, the view's region of the base's gradient itself (any
    # strides, aliasing CopySlices's buffer): it writes nothing outside that region's
    # elements, returns that tensor or a fresh one, and its values do not depend on the
    # layout (CopySlices then skips a dense copy in and out of the region).
    writes_strided: bool = False

    def __init__(self) -> None:
        self._nrs: tuple[int, ...] = ()  # (no edges: the node slots stay unset)
        self.input_metadata: tuple[tuple[tuple[int, ...], np.dtype], ...] = ()
        self.sequence_nr = _next_sequence_nr()
        if anomaly_mode.enabled:  # where the user's code created this node (debugging only)
            anomaly_mode.record_creation(self.metadata)

    @property
    def _next(self) -> tuple[Node | None, ...]:
        """The nodes the edges lead to, one per forward input (None where no gradient flows),
        from the inline slots (see the class comment; the engine reads those itself)."""
        n = len(self._nrs)
        if n == 2:
            return (self._n0, self._n1)
        if n == 1:
            return (self._n0,)
        return self._nx if n else ()

    @_next.setter
    def _next(self, nodes: tuple[Node | None, ...]) -> None:
        set_next(self, nodes)

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        """``(node, input_nr)`` per forward input, PyTorch's ``next_functions`` (a new tuple
        on each access, as PyTorch's)."""
        return tuple(zip(self._next, self._nrs))

    @next_functions.setter
    def next_functions(self, edges: Any) -> None:
        raise AttributeError(f"attribute 'next_functions' of '{type(self).__name__}' objects is not writable")

    def _set_edges(self, edges: Sequence[Edge]) -> None:
        """Give the node these edges (``(node, input_nr)`` per forward input)."""
        self._next, self._nrs = split_edges(edges)

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self.sequence_nr

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # Whether the node can reuse a gradient buffer the engine hands over (Note [Gradient
    # buffer ownership] in ``input_buffer.py``): such nodes implement ``apply_owned``.
    takes_owned: bool = False

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        """Gradients w.r.t. the forward's inputs, given those w.r.t. its outputs."""
        raise NotImplementedError(f"{self.name()}.apply is not implemented")

    def apply_owned(self, grads: Grads, owned: Sequence[bool]) -> tuple[Tensor | None, ...]:
        """``apply``, where ``owned[k]`` says ``grads[k]`` is a buffer the engine owns
        (contiguous, no other reference) that the node may overwrite instead of allocating.
        Called by the engine only on nodes with ``takes_owned``."""
        return self.apply(grads)

    def __call__(self, *grads: Tensor | None) -> Tensor | None | tuple[Tensor | None, ...]:
        """``node(*grad_outputs)``, as PyTorch's C++ nodes called from Python: one gradient per
        forward output; a one-input forward's gradient comes back alone, others as a tuple."""
        if len(grads) != len(self.input_metadata):
            raise TypeError(f"expected {len(self.input_metadata)} arguments, got {len(grads)} instead")
        for k, g in enumerate(grads):
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"argument {k} is not a Variable (got {type(g).__name__})")
        if all(g is None for g in grads) and not self._run_without_grads:
            out: Sequence[Tensor | None] = [None] * len(self._nrs)  # as the engine
        else:
            out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def needs_input_grad(self, i: int) -> bool:
        """Whether the gradient for forward input ``i`` is wanted by this backward pass."""
        if self._needed is not None:
            return self._needed[i]
        n = len(self._nrs)
        return (self._nx[i] if n > 2 else self._n0 if i == 0 else self._n1 if n == 2 and i == 1
                else self._next[i]) is not None  # (out of range: the tuple's IndexError)

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


class _SavedHooks(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Callable[[Tensor], Any], Callable[[Any], Any]]] = []
        self.disabled: str | None = None  # why they are disabled, if they are


SAVED_HOOKS = _SavedHooks()  # the default pack/unpack hooks (autograd.graph.saved_tensors_hooks)


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    An output of the node itself is kept as a data-only alias plus a weak reference to the
    node (no reference cycle); unpacking rebuilds it with its ``grad_fn``. An input is kept
    as it is (unpacking returns the very tensor).

    With pack/unpack hooks (``autograd.graph.saved_tensors_hooks``, or ``register_hooks`` on
    the ``_raw_saved_<name>`` of a node), only what ``pack`` returned is kept; unpacking
    calls ``unpack`` on it and gives the result the saved tensor's place in the graph (its
    ``grad_fn``, or its leaf's gradient accumulator), as PyTorch's ``SavedVariable`` does.
    The version check is then skipped: the hooks own the data.
    """

    __slots__ = (
        "_data", "_version", "_node", "_output_nr", "_freed", "_saved_at", "_had_history",
        "_packed", "_unpack_hook", "_edge",
    )

    def __init__(self, t: Tensor, node: Node | None = None, output_nr: int = -1) -> None:
        if t._storage.inference and not INFERENCE.enabled:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. To work around you can make "
                "a clone to get a normal tensor and use it in autograd (this tensor was made "
                "under jitgrad.inference_mode())."
            )
        self._version = t._storage.version
        self._freed = False
        self._packed: Any = None
        self._unpack_hook: Callable[[Any], Any] | None = None
        self._edge: tuple[Any, int, bool] | None = None
        # where it was saved, for the version error (anomaly mode only: a frame walk)
        self._saved_at = anomaly_mode.saved_location() if anomaly_mode.enabled else None
        if node is not None:  # an output of ``node``
            # (not as a view: the base of a view marked dirty holds ``node`` in its history)
            self._data = Tensor._make(t._storage, t._sizes, t._strides, t._offset)
            self._node: weakref.ref[Node] | None = weakref.ref(node)
            self._output_nr = output_nr
        else:
            self._data = t
            self._node = None
            self._output_nr = -1
        self._had_history = node is None and t._grad_fn is not None  # see unpack's detach_ check
        hooks = SAVED_HOOKS.stack
        if hooks:
            self._pack(*hooks[-1])

    # -- hooks ---------------------------------------------------------------------------------
    @property
    def data(self) -> Any:
        """What is kept: the packed object with hooks, else the tensor (an output: detached)."""
        if self._freed:
            raise RuntimeError(_FREED)
        return self._packed if self._unpack_hook is not None else self._data

    @property
    def unpack_hook(self) -> Callable[[Any], Any] | None:
        return self._unpack_hook

    def register_hooks(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Any]) -> None:
        """Pack the saved tensor now with ``pack_hook``; ``unpack_hook`` restores it in backward."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): expected two callables, pack_hook and unpack_hook")
        if self._freed:
            raise RuntimeError(
                "Trying to register saved tensor hooks on a saved tensor after it has been freed "
                "(the backward pass that used it ran without retain_graph=True)"
            )
        if self._unpack_hook is not None:
            raise RuntimeError("register_hooks(): hooks have already been set on this saved tensor")
        self._pack(pack_hook, unpack_hook)

    def _pack(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Any]) -> None:
        from .grad_mode import no_grad

        data = self._data
        if self._node is None:
            self._edge = (data._grad_fn, data._output_nr, data._requires_grad)
            if data._grad_fn is None and data._requires_grad:
                from .graph import grad_accumulator  # the leaf's sink, kept alive while saved

                self._edge = (grad_accumulator(data), 0, True)
        before = data._storage.version
        with no_grad():
            packed = pack_hook(data)
        if data._storage.version != before:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook."
            )
        self._packed = packed
        self._unpack_hook = unpack_hook
        self._data = None  # type: ignore[assignment]  # the hooks own it now

    def _unpack_with_hook(self) -> Tensor:
        out = self._unpack_hook(self._packed)  # type: ignore[misc]
        if not isinstance(out, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(out).__name__}"
            )
        result = Tensor._make(out._storage, out._sizes, out._strides, out._offset)
        if self._node is not None:  # an output: the node that made it
            node = self._node()
            if node is not None:
                result._grad_fn = node
                result._output_nr = self._output_nr
        elif self._edge is not None:
            fn, nr, leaf_requires_grad = self._edge
            if isinstance(fn, Node) and type(fn).__name__ == "AccumulateGrad":
                result._requires_grad = True
                result._grad_accumulator = weakref.ref(fn)
            elif fn is not None:
                result._grad_fn = fn
                result._output_nr = nr
        return result

    # -- unpack / free -------------------------------------------------------------------------
    def unpack(self, owner: Node) -> Tensor:
        if self._freed:
            raise RuntimeError(_FREED)
        if self._unpack_hook is not None:
            return self._unpack_with_hook()
        data = self._data
        if self._node is None and data._view_meta is not None:
            from .graph import grad_fn_of  # (graph imports this module)

            # PyTorch reads the saved view's grad_fn first: the refusals of regenerating a
            # stale view's history come before the version check (which then fails too)
            grad_fn_of(data)
        if self._had_history and data._grad_fn is None:
            raise RuntimeError(
                f"{owner.name()}: Trying to use a saved tensor that has been detached in-place, "
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
        self._packed = None
        self._edge = None


_new = object.__new__


def _saved_input(t: Tensor, version: int, had_history: bool) -> SavedTensor:
    """``SavedTensor(t)`` for an input ``t`` (not an output of the saving node) that is not
    an inference tensor, saved outside anomaly mode and without saved tensor hooks, at
    ``version`` and with a ``grad_fn`` then if ``had_history``."""
    s = _new(SavedTensor)
    s._version = version
    s._freed = False
    s._packed = None
    s._unpack_hook = None
    s._edge = None
    s._saved_at = None
    s._data = t
    s._node = None
    s._output_nr = -1
    s._had_history = had_history
    return s


# the ``_codes`` of a node whose one saved value is its output (``save_result``)
_RESULT_CODES = ("result",)
# the last of ``_codes`` when a node saved its input and its fresh result compactly
# (``SavingNode.save_input_result``)
_INPUT_RESULT = ("input", "result")


def _saved_result(node: Node, storage: Any, sizes: tuple[int, ...], strides: tuple[int, ...]) -> SavedTensor:
    """The ``SavedTensor`` ``save(out, outputs=(out,))`` would have made for ``node``'s
    output ``out`` (``save_result``: version 0, output 0; released: freed)."""
    s = _new(SavedTensor)
    s._version = 0
    s._packed = None
    s._unpack_hook = None
    s._edge = None
    s._saved_at = None
    s._node = weakref.ref(node)
    s._output_nr = 0
    s._had_history = False
    if storage is _RELEASED:
        s._freed = True
        s._data = None
    else:
        s._freed = False
        s._data = Tensor._make(storage, sizes, strides)
    return s


def forward_op_name(node: Node) -> str:
    """The op a node is the backward of, as PyTorch's messages name it: ``name()`` without a
    ``Backward<N>`` suffix, keeping N unless it is 0 (``UnbindBackward0`` -> ``Unbind``,
    ``SelectBackward1`` -> ``Select1``, a custom ``AliasBackward`` -> ``Alias``)."""
    name = node.name()
    head, sep, number = name.rpartition("Backward")
    if not sep or (number and not number.isdigit()):
        return name
    return head if number in ("", "0") else head + number


def version_error(data: Tensor, saved: SavedTensor, owner: Node) -> str:
    """PyTorch's message, plus which in-place write moved the version and where it ran."""
    shape = list(data._sizes)
    producer = ""
    if saved._node is not None:
        producer = f", which is output {saved._output_nr} of {forward_op_name(owner)},"
    elif data._grad_fn is not None:
        # the tensor's history *now* (an in-place op rebased it), as PyTorch reports it
        producer = f", which is output {data._output_nr} of {forward_op_name(data._grad_fn)},"
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


# PyTorch's names of what each node saves, in the order the op passes them to ``save``:
# ``node._saved_<name>`` unpacks one, ``node._raw_saved_<name>`` is its ``SavedTensor``.
# "-" marks a value PyTorch does not save under any name (AddcmulBackward0's ``self``).
SAVED_NAMES: dict[str, tuple[str, ...]] = {
    "MulBackward0": ("self", "other"), "DivBackward0": ("self", "other"), "DivBackward2": ("self", "other"),
    "ClampMinBackward1": ("self", "min"), "ClampMaxBackward1": ("self", "max"),
    "EluBackward1": ("result",), "CeluBackward0": ("self",), "CeluBackward1": ("result",),
    "LeakyReluBackward0": ("self",), "LeakyReluBackward1": ("result",), "ThresholdBackward0": ("self",),
    "ThresholdBackward1": ("self",), "HardsigmoidBackward0": ("self",), "HardswishBackward0": ("self",),
    "MaximumBackward0": ("self", "other"), "MinimumBackward0": ("self", "other"),
    "ExpBackward0": ("result",), "LogBackward0": ("self",), "SqrtBackward0": ("result",),
    "SinBackward0": ("self",), "CosBackward0": ("self",), "TanhBackward0": ("result",),
    "SigmoidBackward0": ("result",), "ReluBackward0": ("result",), "AbsBackward0": ("self",),
    "ReciprocalBackward0": ("result",), "ClampBackward0": ("self", "min", "max"),
    "PowBackward0": ("self",), "PowBackward1": ("self", "exponent", "result"),
    "PowBackward2": ("exponent", "result"), "WhereBackward0": ("condition",),
    "LogsumexpBackward0": ("self", "result"), "LogSoftmaxBackward0": ("result",),
    "SoftmaxBackward0": ("result",), "TanBackward0": ("result",), "Expm1Backward0": ("result",),
    "Exp2Backward0": ("result",), "RsqrtBackward0": ("result",),
    "AsinBackward0": ("self",), "AcosBackward0": ("self",), "AtanBackward0": ("self",),
    "SinhBackward0": ("self",), "CoshBackward0": ("self",), "AsinhBackward0": ("self",),
    "AcoshBackward0": ("self",), "AtanhBackward0": ("self",), "ErfBackward0": ("self",), "ErfinvBackward0": ("self",),
    "ErfcBackward0": ("self",), "DigammaBackward0": ("self",), "LgammaBackward0": ("self",),
    "PolygammaBackward0": ("self",), "Log2Backward0": ("self",), "Log10Backward0": ("self",),
    "Log1PBackward0": ("self",), "LogitBackward0": ("self",), "ClampBackward1": ("self",),
    "SiluBackward0": ("self",), "GeluBackward0": ("self",), "EluBackward0": ("self",),
    "SoftplusBackward0": ("self",), "MishBackward0": ("self",), "HardtanhBackward0": ("self",),
    "Atan2Backward0": ("self", "other"), "XlogyBackward0": ("self", "other"),
    "LogaddexpBackward0": ("self", "other"), "FmodBackward1": ("self", "other"),
    "RemainderBackward1": ("self", "other"), "HypotBackward0": ("self", "other", "result"),
    "AddcmulBackward0": ("-", "tensor1", "tensor2"), "AddcdivBackward0": ("-", "tensor1", "tensor2"),
    "LerpBackward0": ("-", "-", "weight"), "LerpBackward1": ("self", "end", "weight"),
    "MmBackward0": ("self", "mat2"), "BmmBackward0": ("self", "mat2"), "MvBackward0": ("self", "vec"),
    "DotBackward0": ("self", "tensor"), "MaskedFillBackward0": ("mask",),
    "ProdBackward0": ("self", "result"), "ProdBackward1": ("self", "result"), "VarBackward0": ("self",),
    "StdBackward0": ("self", "result"), "AmaxBackward0": ("self", "result"),
    "AminBackward0": ("self", "result"), "MaxBackward0": ("indices",), "MinBackward0": ("indices",),
    "MaxBackward1": ("self", "result"), "MinBackward1": ("self", "result"),
    "MedianBackward0": ("self", "result"), "CummaxBackward0": ("self", "indices", "dim"),
    "CumminBackward0": ("self", "indices", "dim"), "CumprodBackward0": ("self", "result"),
    "LogcumsumexpBackward0": ("self", "result"), "LinalgVectorNormBackward0": ("self", "result"),
    "NormBackward1": ("self", "result"),
    "CdistBackward0": ("x1", "x2", "result"), "LinalgInvExBackward0": ("inverse",),
    "LinalgDetBackward0": ("A", "result"), "LinalgSlogdetBackward0": ("A", "sign"),
    "LinalgCholeskyExBackward0": ("L",), "LinalgSolveExBackward0": ("A", "result", "left"),
    "LinalgEighBackward0": ("eigenvalues", "eigenvectors"), "LinalgSvdBackward0": ("U", "S", "Vh"),
    "LinalgQrBackward0": ("Q", "R"), "LinalgPinvBackward0": ("self", "result"),
    "CholeskySolveBackward0": ("self", "input2", "result", "upper"),
    "GatherBackward0": ("self", "index", "dim", "sparse_grad"),
    "IndexSelectBackward0": ("index", "dim", "self_sym_sizes"), "TakeBackward0": ("self", "index"),
    "MaskedSelectBackward0": ("self", "mask"), "SortBackward0": ("indices", "dim", "self_sym_sizes"),
    "SortBackward1": ("indices", "dim", "self_sym_sizes"),
    "TopkBackward0": ("indices", "dim", "self_sym_sizes"),
    "SincBackward0": ("self",), "VdotBackward0": ("self", "other"),
    "LinalgMatrixExpBackward0": ("self",), "CopysignBackward0": ("self", "-", "result"),
    "CopysignBackward1": ("self", "-", "result"),
    "AddmmBackward0": ("mat1", "mat2", "alpha", "beta", "mat1_sym_sizes", "mat2_sym_sizes"),
    "AddmvBackward0": ("mat", "vec", "alpha", "beta"), "BaddbmmBackward0": ("batch1", "batch2", "alpha", "beta"),
    "AddbmmBackward0": ("batch1", "batch2", "alpha", "beta"),
    "ScatterReduceBackward0": ("self", "dim", "index", "src", "reduce", "include_self", "result"),
    "IndexReduceBackward0": ("self", "dim", "index", "source", "reduce", "include_self", "result"),
    "ScatterBackward0": ("dim", "index", "-"), "ScatterBackward1": ("dim", "index", "-"),
    "ScatterAddBackward0": ("dim", "index"), "IndexAddBackward0": ("dim", "index", "source", "source_dim", "alpha"),
    "IndexCopyBackward0": ("dim", "index", "source", "source_dim", "-"), "IndexFillBackward0": ("dim", "index", "-"),
    "IndexFillBackward1": ("dim", "index", "-"), "MaskedFillBackward1": ("mask",),
    "MaskedScatterBackward0": ("mask", "source_sym_sizes"),
    "IgammaBackward0": ("self", "other"), "IgammacBackward0": ("self", "other"),
    "MvlgammaBackward0": ("self",), "LdexpBackward0": ("other", "result"),
    "FrexpBackward0": ("exponent",),
}


class SavingNode(Node):
    """A node that saves tensors for backward in ``self.saved`` (unpacked with ``unpack``).

    Saving is part of every op that saves (a product saves both operands), so the common
    case — plain inputs, no saved tensor hooks, no anomaly mode — is kept compact: the
    values themselves (``_compact``, the very tuple ``save`` was called with; one or two
    values are kept inline instead, in ``_s0`` and ``_s1`` with ``_compact`` the marker
    ``INLINE``: no tuple for a kept graph to hold, see ``Node``'s edges) and one integer per
    tensor (``_codes``: ``2 * version + had_history``, None for a non-tensor; a shared
    tuple when small, ``codes_of``), instead of a ``SavedTensor`` per tensor. ``unpack``
    checks those directly; ``saved`` (and ``_raw_saved_<name>``) makes the ``SavedTensor``s
    on first use, exactly as ``save`` would have made them, and keeps them; anything
    irregular (a version moved, a history detached in place, backward after release) is
    handed to them, for the same errors.
    """

    __slots__ = ("_saved", "_compact", "_codes", "_s0", "_s1")

    # A Python number operand of ``mul`` / ``div`` is, in PyTorch, wrapped as a 0-dim tensor
    # and saved as one: ``grad_fn._saved_other`` is ``tensor(2)``, and it is freed by
    # backward like any saved tensor (a second backward raises). jitgrad saves the number
    # itself; these nodes free it all the same (``release_variables``).
    saves_wrapped_numbers = False

    def __getattr__(self, name: str) -> Any:
        # only called for attributes not found otherwise: the slots before ``save`` ran,
        # ``_saved_<x>`` / ``_raw_saved_<x>``
        if name in ("_saved", "_compact", "_codes", "_s0", "_s1"):
            return None
        for prefix, raw in (("_raw_saved_", True), ("_saved_", False)):
            if name.startswith(prefix):
                names = SAVED_NAMES.get(type(self).__name__, ())
                key = name[len(prefix):]
                if key in names and names.index(key) < len(self.saved):
                    value = self.saved[names.index(key)]
                    if value.__class__ is not SavedTensor:  # a number, a shape, None
                        if self.saves_wrapped_numbers and value is not None and not raw:
                            return _wrapped_number(value)
                        return _Plain(value) if raw else value
                    return value if raw else value.unpack(self)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # saved names that hold a tensor or None (one PyTorch saves only for some input's gradient)
    optional_tensors: tuple[str, ...] = ()

    def __dir__(self) -> list[str]:
        # PyTorch's nodes list what they save: ``_saved_<name>``, ``_raw_saved_<name>`` for a tensor
        names = SAVED_NAMES.get(type(self).__name__, ())
        saved = self.saved if names else ()
        extra = [f"_saved_{n}" for n in names if n != "-"]
        extra += [f"_raw_saved_{n}" for n, v in zip(names, saved)
                  if n != "-" and (v.__class__ is SavedTensor or n in self.optional_tensors)]
        return sorted(set(super().__dir__()) | set(extra))

    @property
    def saved(self) -> tuple[Any, ...]:
        """What ``save`` saved: ``SavedTensor``s, and the other values as they are."""
        saved = self._saved
        if saved is None:
            compact = self._compact
            if compact is None:
                return ()  # nothing saved (yet)
            if compact is INLINE:
                compact = _inline_values(self)
            codes = self._codes
            if codes is _RESULT_CODES:
                saved = self._saved = (_saved_result(self, *compact),)
            elif codes and codes[-1] is _INPUT_RESULT:
                input, storage, sizes, strides = compact
                saved = self._saved = (_saved_from_code(input, codes[0]), _saved_result(self, storage, sizes, strides))
            else:
                saved = self._saved = tuple([
                    value if code is None else _saved_from_code(value, code)
                    for value, code in zip(compact, self._codes)
                ])
            self._compact = self._codes = self._s0 = self._s1 = None
        return saved

    @saved.setter
    def saved(self, values: tuple[Any, ...]) -> None:
        self._saved = values
        self._compact = self._codes = self._s0 = self._s1 = None

    def save(self, *values: Any, outputs: Sequence[Tensor] = ()) -> None:
        """Save ``values`` for backward: tensors as ``SavedTensor``s, with their version
        (those among ``outputs`` without a reference cycle), anything else (scalars, shapes,
        None) as it is."""
        if not outputs and not anomaly_mode.enabled and not SAVED_HOOKS.stack:
            codes: list[int | None] = []
            for t in values:
                if t.__class__ is Tensor:
                    storage = t._storage
                    if storage.inference:
                        break  # (refused, or saved as such: SavedTensor decides)
                    counter = storage._counter  # (Storage.version, inlined)
                    codes.append((0 if counter is None else 2 * counter.value) + (t._grad_fn is not None))
                elif isinstance(t, Tensor):
                    break  # a subclass: the general path
                else:
                    codes.append(None)
            else:
                self._saved = None
                n = len(values)
                if n == 2:
                    self._compact = INLINE
                    self._s0, self._s1 = values
                elif n == 1:
                    self._compact = INLINE
                    self._s0, self._s1 = values[0], None  # (a second save keeps nothing of the first)
                else:
                    self._compact = values
                    self._s0 = self._s1 = None
                self._codes = codes_of(codes)
                return
        saved: list[Any] = []
        for t in values:
            if not isinstance(t, Tensor):
                saved.append(t)
                continue
            for nr, o in enumerate(outputs):
                if o is t:
                    saved.append(SavedTensor(t, self, nr))
                    break
            else:
                saved.append(SavedTensor(t))
        self.saved = tuple(saved)

    def save_result(self, out: Tensor) -> None:
        """``save(out, outputs=(out,))`` for the node's one output ``out``, a fresh tensor that
        owns its whole storage (offset 0, no base, version 0; a fused op's result): kept as
        its storage and geometry, which ``unpack`` makes into the output again, with this
        node as its ``grad_fn`` (no reference cycle, no ``SavedTensor``, no weak reference).
        """
        if anomaly_mode.enabled or SAVED_HOOKS.stack or out._storage.inference:
            self.save(out, outputs=(out,))
            return
        self._saved = None
        self._compact = (out._storage, out._sizes, out._strides)
        self._codes = _RESULT_CODES

    def save_input_result(self, input: Tensor, out: Tensor) -> None:
        """``save(input, out, outputs=(out,))`` for ``out``, the node's one output, a fresh
        tensor that owns its whole storage (offset 0, no base, version 0): ``input`` as
        ``save`` keeps it, ``out`` as ``save_result`` does (``_compact = (input, out's
        storage, sizes, strides)``, ``_codes = (input's code, _INPUT_RESULT)``). Any other
        ``out`` (a view, written since) is saved by ``save``."""
        if input.__class__ is not Tensor or out.__class__ is not Tensor or anomaly_mode.enabled \
                or SAVED_HOOKS.stack or input._storage.inference or out._storage.inference or out._offset \
                or out._base is not None or out._storage._counter is not None:
            self.save(input, out, outputs=(out,))
            return
        counter = input._storage._counter
        self._saved = None
        self._compact = (input, out._storage, out._sizes, out._strides)
        self._codes = ((0 if counter is None else 2 * counter.value) + (input._grad_fn is not None),
                       _INPUT_RESULT)

    def unpack(self) -> tuple[Any, ...]:
        compact = self._compact
        if compact is INLINE:  # (``_inline_values``, written out: every saving node's backward)
            compact = (self._s0, self._s1) if len(self._codes) == 2 else (self._s0,)
        if compact is None:
            pass
        elif self._codes is _RESULT_CODES:  # (``save_result``)
            storage = compact[0]
            if storage is not _RELEASED:
                counter = storage._counter
                if counter is None or counter.value == 0:  # (else ``saved`` raises the error)
                    out = Tensor._make(storage, compact[1], compact[2])
                    out._grad_fn = self
                    return (out,)
        elif self._codes and self._codes[-1] is _INPUT_RESULT:  # (``save_input_result``)
            input, storage, sizes, strides = compact
            if input is not _RELEASED and storage is not _RELEASED:
                code = self._codes[0]
                counter = input._storage._counter
                result_counter = storage._counter
                if (0 if counter is None else counter.value) == code >> 1 and not (code & 1 and input._grad_fn is None) \
                        and (result_counter is None or result_counter.value == 0):  # (else ``saved`` raises)
                    out = Tensor._make(storage, sizes, strides)
                    out._grad_fn = self
                    return (input, out)
        else:  # ``SavedTensor.unpack``'s checks, on the compact form
            for t, code in zip(compact, self._codes):
                if code is None:
                    continue
                if t is _RELEASED:
                    break
                counter = t._storage._counter
                if (0 if counter is None else counter.value) != code >> 1 or (code & 1 and t._grad_fn is None):
                    break
            else:
                return compact
        return tuple([s.unpack(self) if s.__class__ is SavedTensor else s for s in self.saved])

    def _release_numbers(self) -> None:
        """Release the numbers saved compactly as the tensors they stand for (0-dim, version 0)."""
        compact = self._compact  # (tuple form: ``release_variables`` leaves no inline values)
        self._codes = tuple([0 if code is None and v is not None else code
                             for v, code in zip(compact, self._codes)])
        self._compact = tuple([None if v is None else _RELEASED for v in compact])

    def release_variables(self) -> None:
        compact = self._compact
        if compact is INLINE:  # (released into the tuple form: shared tuples, mostly)
            compact = _inline_values(self)
            self._compact, self._s0, self._s1 = compact, None, None
        if compact is not None:
            codes = self._codes
            if codes is _RESULT_CODES:
                self._compact = (_RELEASED, *compact[1:])
            elif codes and codes[-1] is _INPUT_RESULT:
                self._compact = (_RELEASED, _RELEASED, *compact[2:])
            elif None not in codes and len(codes) < len(_ALL_RELEASED):  # (tensors only: a product's)
                self._compact = _ALL_RELEASED[len(codes)]
            elif codes.count(None) != len(codes):  # (else no tensor was saved: nothing to free)
                self._compact = tuple([
                    value if code is None else _RELEASED for value, code in zip(compact, codes)
                ])
                if self.saves_wrapped_numbers and None in codes:  # and a number: div(2, x)
                    self._release_numbers()
            elif self.saves_wrapped_numbers:
                if len(compact) == 2 and compact[0] is None and compact[1] is not None:  # x * 2
                    self._compact, self._codes = _OTHER_RELEASED
                else:
                    self._release_numbers()
            return
        for s in self.saved:
            if s.__class__ is SavedTensor:
                s.release()
        if self.saves_wrapped_numbers:
            self._saved = tuple([
                s if s is None or s.__class__ is SavedTensor else _saved_from_code(_RELEASED, 0)
                for s in self._saved
            ])


# stands for a compactly saved tensor after ``release_variables``
_RELEASED = object()


class _Inline:
    """``SavingNode._compact`` when one or two values are kept inline (``_s0``, ``_s1``)."""

    def __repr__(self) -> str:
        return "INLINE"


INLINE: Any = _Inline()


def _inline_values(node: SavingNode) -> tuple[Any, ...]:
    """The values a node keeps inline, as the tuple ``save`` was called with."""
    return (node._s0, node._s1) if len(node._codes) == 2 else (node._s0,)


# ``_codes`` of one or two small codes (each None or below 16: versions below 8), shared
_SMALL_CODES = (None,) + tuple(range(16))
CODE_TUPLES: dict[tuple[Any, ...], tuple[Any, ...]] = {
    **{(a,): (a,) for a in _SMALL_CODES},
    **{(a, b): (a, b) for a in _SMALL_CODES for b in _SMALL_CODES},
}


def codes_of(codes: Sequence[Any]) -> tuple[Any, ...]:
    """``tuple(codes)``, the shared tuple when there is one."""
    key = tuple(codes)
    return CODE_TUPLES.get(key, key)
# the ``_compact`` of a node that saved only tensors, after ``release_variables``, by count
_ALL_RELEASED = tuple((_RELEASED,) * k for k in range(5))
# (``_compact``, ``_codes``) of a node that saved ``(None, number)`` after it was released
_OTHER_RELEASED = ((None, _RELEASED), (None, 0))


def _saved_from_code(t: Any, code: int) -> SavedTensor:
    """The ``SavedTensor`` ``save`` would have made for input ``t``, saved at the version
    and with the history that ``code`` records (released: freed)."""
    if t is _RELEASED:
        s = _saved_input(None, code >> 1, bool(code & 1))  # type: ignore[arg-type]
        s._freed = True
        return s
    return _saved_input(t, code >> 1, bool(code & 1))


def _wrapped_number(value: Any) -> Tensor:
    """A Python number as PyTorch wraps it for a Tensor operand: a 0-dim tensor (bool,
    int64 or float64)."""
    dtype = np.bool_ if isinstance(value, bool) else np.int64 if isinstance(value, int) else np.float64
    return Tensor._from_buffer(np.array([value], dtype=dtype), ())


class _Plain:
    """What ``node._raw_saved_<name>`` gives for a saved non-tensor value (a scalar, a
    shape, None): no hooks can be registered on it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def unpack(self, owner: Node) -> Any:
        return self.value

    def release(self) -> None:
        pass

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        what = "None" if self.value is None else f"a {type(self.value).__name__}"
        raise RuntimeError(
            f"register_hooks(): the saved value is {what}, not a tensor; registering hooks on "
            "None is forbidden"
        )

