"""``jitgrad.compile``: trace a function's tensor ops once per input geometry, replay them as
a tape interpreted by compiled Numba loops, forward and backward.

Note [Compiled tapes]
~~~~~~~~~~~~~~~~~~~~~
*Tracing.* The first call for a given geometry (shapes, strides, offsets, dtypes,
``requires_grad`` flags, which inputs share memory, the other arguments by value, grad mode)
runs the function eagerly with ``jitgrad._tracing.ACTIVE`` set, so every check and error of
the eager path happens then, on the real inputs. Hooked sites (declared pointwise ops,
arithmetic, ``pow``, ``sum``/``mean``/``logsumexp``, ``cat``/``stack``/``clone``, ``copy_``/
``fill_``/``__setitem__``, in-place variants, constant creation) report each op to the tracer,
which records it over *storage regions* (``trace.py``): a tensor is (slot, offset, strides),
so views cost nothing and a write into a view is a record whose output region is the view.
Python control flow runs at trace time; reading a traced value (``item``, ``bool``) raises,
naming the user's line. Anything not lowered — an op without a hook (its result reaches a
hooked op or the output from an unknown storage), an unrecorded in-place write (its version
bump has no record), another dtype, a write into an input, detach/no_grad inside — makes that
geometry run eagerly, with one warning naming the reason. Tensors the function reads from
outside its arguments (closures, globals) are baked into the tape; an in-place write to one
(its version counter moves) makes the next call retrace, but rebinding the name to another
tensor does not: pass data that changes as an argument. The tracer ignores other threads.

*Lowering.* A record is an opcode, an iteration shape (rank <= 4), and arena positions and
strides for the output and up to three operands (broadcast operands and reduced output dims
have stride 0), its dimensions collapsed at trace time (size-1 dims dropped, neighbours every
region walks as one merged: the heat step's records are all rank 1). One interpreter
(``_interp_jit.py``: ``interpret``, both directions), compiled once per machine and cached on
disk, runs any tape: there is no per-program Numba compile, so the first call costs the
eager trace plus Python-side lowering, and later calls no Python per op. Generated Numba
source per program was rejected by measurement: a Numba compile per program (seconds for the
heat problem's ~640 records, minutes for a 48x60 soft-DTW's ~20,000 unless loops are re-rolled).

*Compile time.* Numba's first compile costs time in proportion to the code it types and lowers,
not to LLVM's optimisation level (``NUMBA_OPT=1`` saved 13%), so the interpreter is small: one
function for both directions, elementwise ops through one ``_eval``/``_grad`` switch per
element, a table of positions (``_offsets``) instead of a loop nest per op, and the reductions'
forwards as elementwise records followed by one record that is only the op's backward
(``trace.py``: sum is a zero fill and a running sum in point order; logsumexp nine records:
running max, shifted exp, running sum, log). Measured (CPU seconds, empty cache, ``python -m
jitgrad bench --compile``): 2.5 s with a forward and a backward interpreter, a loop per op and
first-point flags for reductions; 1.45 s with the one-switch interpreter; 1.2 s with logsumexp
out of it (its five loops cost 0.24 s; soft-DTW's compiled call went from 2.1 to 3.4 ms, 0.009x
PyTorch's); 1.35 s now, with sum out of it too and the forward's own loops for ADD/SUB/MUL/COPY
(+0.17 s, the forward kernel on the heat tape 0.38 -> 0.19 ms: the switch per element is the
interpreter's main cost). The same loops in the backward would take it from 0.50 to 0.35 ms for
another +0.1-0.15 s. From the disk cache: 0.16 s, most of it Numba's own first-use setup. An
unreadable cache file is a miss and is rewritten (``kernels/_policy._harden_cache``).

*Fusion* of elementwise chains into one loop is not done, by measurement on the heat tape
(forward / backward kernel, ms): 0.37 / 0.51 with one switch per element; 0.19 / 0.35 with a
loop of its own for each of ADD/SUB/MUL/COPY; 0.29 / - with rank-1 records walked by
``base + k * stride`` instead of the position table, which is what a loop fused over the
recorded strides and offsets saves per record. A fused loop in an interpreter still switches
on each record's op per element, so it can win at most that last figure, while each loop
added costs ~0.05-0.1 s of first compile, the tighter target; the heat problem runs at
~0.11x PyTorch without it. Fusion proper (straight-line code per chain) needs code per
program, i.e. a Numba compile per program (above). What the tracer does instead is record
less: a copy of a view onto itself (``u[1:-1] += d`` ends with ``u[1:-1] = <that view>``) is
no record, which took 100 of the heat tape's 637 records and their saves.

*Backward* is the same tape in reverse with an adjoint arena, which is CopySlices' math
(Note [CopySlices rebasing]) applied element by element: for each record, take the adjoint of
the output region, zero it (the write replaced those values: their old values get no gradient
through them), restore the overwritten values from the save stack (the forward pushed them
before every write into a region that held live values), then add each operand's local
derivative times the taken adjoint into its region. Reading before writing is safe: an
in-place op whose operands overlap the written region other than element for element is
recorded as compute-to-temporary then copy. The walk leaves the arena as it was before the
forward, so it needs no copy; a second backward (``retain_graph=True``) replays the forward
first, and after a backward without it the node refuses as eager's ``_FREED`` error does.
Overlap refusals and version checks inside the function ran in the eager trace (a saved
tensor the function itself wrote since: the backward raises eager's error); writes into
inputs are not lowered. What eager's graph saved from the inputs and outputs (or views of
them) is recorded at trace time, with their versions at each call: a later in-place write to
one makes the compiled backward raise eager's version error instead of using stale values.

*The result* is fresh tensors whose ``grad_fn`` is one ``CompiledFunctionBackward`` node with
edges to the inputs' gradient edges: compiled and eager code mix, hooks on inputs and
``autograd.grad`` work. Outputs that are views of one another in eager (``return D[n, m], D``)
stay so: the node outputs their whole storage once, as a flat tensor, and each is an
``as_strided`` view of it with eager's geometry (so writes through one show in the other, and
their gradients flow through ``AsStridedBackward0`` into the node). An output that is an input,
or a tensor from outside the function (a closure's), or a view of one, cannot be a fresh
tensor without losing that aliasing: such a function runs eagerly, with the warning naming
the output (return a ``.clone()`` to compile it).
``create_graph=True`` through it re-runs the function eagerly on the same inputs and
differentiates that (with a warning): the tape's backward is not itself differentiable.
Numerics: one arena dtype per program, float64 or float32 (the interpreter compiles a float32
version on the first float32 program); a program mixing them runs eagerly. Reductions sum
sequentially where NumPy sums pairwise, so values and gradients agree with eager to ~1e-15
relative in float64 (bitwise where the order is the same) and to float32's rounding (~1e-6) in
float32, where the math functions (exp, pow...) may also differ from NumPy's in the last bit."""

from __future__ import annotations

import functools
import warnings
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from .. import _tracing
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import record
from ..autograd.node import _FREED, Grads, Node, SavedTensor, version_error
from ..tensor import Tensor
from . import _interp_jit as K
from .trace import DataDependentError, NotLowered, Tracer

__all__ = ["compile", "CompiledFunction", "CompileFallbackWarning", "DataDependentError"]


class CompileFallbackWarning(UserWarning):
    """``jitgrad.compile`` runs a function eagerly (the message says why)."""


def _flatten(value: Any, tensors: list[Tensor], key: list[Any], shared: dict[int, int]) -> None:
    """Collect the tensors of nested tuples/lists/dicts and a guard key of everything."""
    if isinstance(value, Tensor):
        group = shared.setdefault(id(value._storage), len(shared))
        tensors.append(value)
        key.append(("T", value.dtype.str, value._sizes, value._strides, value._offset,
                    value.requires_grad, group))
    elif isinstance(value, (tuple, list)):
        key.append((type(value).__name__, len(value)))
        for v in value:
            _flatten(v, tensors, key, shared)
    elif isinstance(value, dict):
        key.append(("dict", tuple(value)))
        for v in value.values():
            _flatten(v, tensors, key, shared)
    else:
        try:
            hash(value)
        except TypeError:
            key.append(("id", id(value)))  # (unhashable: guarded by identity)
        else:
            key.append(("V", type(value).__name__, value))


class Program:
    """A lowered trace: the tape, the arena layout, and where inputs and outputs live."""

    def __init__(self, tracer: Tracer, inputs: Sequence[Tensor], outputs: list[Tensor], structure: Any) -> None:
        self.ti = np.array(tracer.records, np.int64).reshape(len(tracer.records), K.W)
        self.tf = np.array(tracer.floats, np.float64)
        self.dtype = tracer.dtype or np.dtype(np.float64)  # the arena's (Note: one per program)
        self.arena_size = tracer.arena_size
        self.saved_size = max(tracer.saved_size, 1)
        self.max_n = tracer.max_n
        self.constants = [(s.base, s.values) for s in tracer.constants]
        self.outside = list(tracer.outside)
        self.inputs = []  # (arena base, first element in the storage, span)
        for t in inputs:
            slot = tracer.slots[id(t._storage)]
            self.inputs.append((slot.base, slot.lo, slot.size))
        # The node's outputs: (arena base, sizes, strides, requires_grad). A returned tensor is
        # one of them, or, when returned tensors share memory in eager (views of one another),
        # a view of the one output holding that whole storage (Note [Compiled tapes]):
        # ``returned[j]`` is (output k, None) or (output k, (sizes, strides, storage offset)).
        self.outputs: list[tuple[int, tuple[int, ...], tuple[int, ...], bool]] = []
        self.returned: list[tuple[int, Any]] = []
        self.rep: list[int] = []  # a returned tensor standing for each output (its storage)
        members: dict[int, list[Tensor]] = {}
        for t in outputs:
            members.setdefault(id(t._storage), []).append(t)
        whole: dict[int, int] = {}
        for j, t in enumerate(outputs):
            group = members[id(t._storage)]
            if len(group) == 1:
                base, _ = tracer.region(t, t._sizes)
                self.returned.append((len(self.outputs), None))
                self.outputs.append((base, t._sizes, t._strides, t.requires_grad))
                self.rep.append(j)
                continue
            if id(t._storage) not in whole:
                slot = tracer.slot_of(t)
                whole[id(t._storage)] = len(self.outputs)
                self.outputs.append((slot.base, (slot.size,), (1,), any(m.requires_grad for m in group)))
                self.rep.append(j)
            self.returned.append((whole[id(t._storage)], (t._sizes, t._strides, t._offset)))
        self.structure = structure
        self.diff_inputs = [i for i, t in enumerate(inputs) if t.requires_grad]
        self.stale: str | None = None  # the error eager's backward raises (a saved tensor written since)
        # inputs and outputs (their parts) eager's graph saved: ("input" | "output", index, sizes,
        # strides, offset); the backward checks their versions as eager's would
        self.watched: list[tuple[str, int, tuple[int, ...], tuple[int, ...], int]] = []

    def scratch(self) -> np.ndarray:
        """The interpreters' table of arena positions (one row per region of a record)."""
        return np.empty((K.REGIONS, self.max_n), np.int64)

    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The backward's two columns of output adjoints and values."""
        return np.empty(self.max_n, self.dtype), np.empty(self.max_n, self.dtype)

    def run(self, inputs: Sequence[Tensor]) -> tuple[np.ndarray, np.ndarray]:
        arena = np.empty(self.arena_size, self.dtype)
        for base, values in self.constants:
            arena[base: base + len(values)] = values
        for (base, lo, span), t in zip(self.inputs, inputs):
            arena[base: base + span] = t._storage.buffer[lo: lo + span]
        saved = np.empty(self.saved_size, self.dtype)
        K.forward(self.ti, self.tf, arena, saved, self.scratch())
        return arena, saved

    def region(self, array: np.ndarray, base: int, sizes: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
        item = array.itemsize
        return np.lib.stride_tricks.as_strided(array[base:], sizes, tuple(s * item for s in strides))

    def gradients(self, arena: np.ndarray, saved: np.ndarray, grads: Sequence[Tensor | None],
                  inputs: Sequence[Tensor]) -> list[np.ndarray]:
        """The inputs' gradients; ``arena`` (the forward's final state) is rewound to the
        state before the forward as the tape is walked back (a forward replays it)."""
        adj = np.zeros(self.arena_size, self.dtype)
        k = 0
        for base, sizes, strides, diff in self.outputs:
            if not diff:
                continue
            g = grads[k]
            k += 1
            if g is None:
                continue
            if all(s != 0 or n == 1 for n, s in zip(sizes, strides)):
                self.region(adj, base, sizes, strides)[...] += g._numpy()
            else:  # an output that is a broadcast view: its elements share adjoints
                index = self.region(np.arange(self.arena_size), base, sizes, strides)
                np.add.at(adj, index.ravel(), np.broadcast_to(g._numpy(), sizes).ravel())
        K.backward(self.ti, self.tf, arena, adj, saved, self.scratch(), *self.columns())
        out = []
        for i, t in enumerate(inputs):
            base, lo, _ = self.inputs[i]
            out.append(self.region(adj, base + t._offset - lo, t._sizes, t._strides).copy())
        return out


class CompiledFunctionBackward(Node):
    """The backward of a whole compiled call: the tape run in reverse."""

    def __init__(self, compiled: CompiledFunction, program: Program, arena: np.ndarray, saved: np.ndarray,
                 inputs: list[Tensor], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        super().__init__()
        self.compiled, self.program, self.arena, self.saved = compiled, program, arena, saved
        self.inputs = inputs  # the differentiable inputs (the node's edges, in order)
        self.args, self.kwargs = args, kwargs
        self.rewound = False  # a backward walked the arena back to its state before the forward
        self.versions: list[tuple[Tensor, int]] = []  # the watched tensors and their versions

    def release_variables(self) -> None:
        self.arena = self.saved = None  # type: ignore[assignment]
        self.args, self.kwargs = (), {}

    def _check_versions(self) -> None:
        """Raise eager's error if an input or output that eager's graph saved (or a view of
        it) was written in place since the call: the tape holds the old values."""
        for (where, i, sizes, strides, offset), (t, version) in zip(self.program.watched, self.versions):
            if t._storage.version != version:
                # (an output: its own geometry; an input: the part eager saved)
                whole = where == "output" or (t._sizes, t._strides, t._offset) == (sizes, strides, offset)
                data = t if whole else Tensor._make(t._storage, sizes, strides, offset)
                saved = SimpleNamespace(_node=self if where == "output" else None, _output_nr=i,
                                        _version=version, _saved_at=None)
                raise RuntimeError(version_error(data, saved, self))  # type: ignore[arg-type]

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        if self.arena is None:
            raise RuntimeError(_FREED)
        self._check_versions()
        if is_grad_enabled():  # create_graph=True: differentiate an eager re-run instead
            return self.compiled._eager_grads(self, grads)
        program = self.program
        if program.stale is not None:  # eager's backward would refuse: so does this one
            raise RuntimeError(program.stale)
        all_inputs = self.compiled._tensors_of(self.args, self.kwargs)
        if self.rewound:  # a second backward (retain_graph=True): replay the forward first
            K.forward(program.ti, program.tf, self.arena, self.saved, program.scratch())
        self.rewound = True
        result = program.gradients(self.arena, self.saved, grads, all_inputs)
        return tuple(Tensor._from_buffer(result[i].ravel().copy(), result[i].shape) if self.needs_input_grad(j)
                     else None for j, i in enumerate(program.diff_inputs))


class CompiledFunction:
    """``jitgrad.compile(fn)``: call it as ``fn``; see Note [Compiled tapes]."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.cache: dict[Any, Program | str] = {}
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    @staticmethod
    def _tensors_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Tensor]:
        tensors: list[Tensor] = []
        _flatten((args, kwargs), tensors, [], {})
        return tensors

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Tensor]]:
        tensors: list[Tensor] = []
        key: list[Any] = [is_grad_enabled()]
        _flatten((args, kwargs), tensors, key, {})
        return tuple(key), tensors

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _tracing.ACTIVE is not None:  # called inside another trace: part of that one
            return self.fn(*args, **kwargs)
        key, inputs = self._key(args, kwargs)
        entry = self.cache.get(key)
        if isinstance(entry, Program) and any(s.version != v for s, v in entry.outside):
            entry = None  # a tensor from outside the arguments was written since: retrace
        if entry is None:
            return self._trace(key, inputs, args, kwargs)
        if isinstance(entry, str):
            return self.fn(*args, **kwargs)
        return self._run(entry, inputs, args, kwargs)

    def _fall_back(self, key: Any, reason: str) -> None:
        self.cache[key] = reason
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        warnings.warn(f"jitgrad.compile: {name} runs eagerly for these inputs: {reason}",
                      CompileFallbackWarning, stacklevel=4)

    def _trace(self, key: Any, inputs: list[Tensor], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        tracer = Tracer()
        try:
            for t in inputs:
                tracer.add_input(t)
        except NotLowered as exc:
            self._fall_back(key, str(exc))
            return self.fn(*args, **kwargs)
        _tracing.ACTIVE = tracer
        try:
            result = self.fn(*args, **kwargs)
        finally:
            _tracing.ACTIVE = None
        # (the function ran once, eagerly: on any failure below its result is the answer)
        try:
            if tracer.failure is not None:
                raise NotLowered(f"an op the compiler does not lower: {tracer.failure}")
            if tracer.pending:
                raise NotLowered(f"an in-place op the compiler does not lower: {tracer.pending[0][1]}")
            outputs: list[Tensor] = []
            structure = _structure(result, outputs)
            for t in outputs:
                tracer.slot_of(t)
            _check_output_aliasing(inputs, outputs, [s for s, _ in tracer.outside])
            program = Program(tracer, inputs, outputs, structure)
            program.stale, program.watched = _saved_checks(inputs, [outputs[j] for j in program.rep])
            arena, _ = program.run(inputs)
            for (base, sizes, strides, _), j in zip(program.outputs, program.rep):
                got = program.region(arena, base, sizes, strides)
                t = outputs[j]
                want = t._numpy() if program.returned[j][1] is None else t._storage.buffer
                rtol = 1e-9 if program.dtype == np.float64 else 1e-4  # (sums run in another order)
                atol = rtol * float(np.abs(want[np.isfinite(want)]).max(initial=0.0)) + 1e-300
                if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
                    raise NotLowered("the compiled program disagrees with the eager run (a compiler bug; please report)")
        except NotLowered as exc:
            self._fall_back(key, str(exc))
            return result
        self.cache[key] = program
        return self._run(program, inputs, args, kwargs)

    def _run(self, program: Program, inputs: list[Tensor], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        arena, saved = program.run(inputs)
        outs = [Tensor._from_buffer(program.region(arena, base, sizes, strides).ravel().copy(), sizes)
                for base, sizes, strides, _ in program.outputs]
        diff = [t for t, o in zip(outs, program.outputs) if o[3]]
        if diff and is_grad_enabled():
            edges = [inputs[i] for i in program.diff_inputs]
            node = CompiledFunctionBackward(self, program, arena, saved, edges, args, kwargs)
            watched = [inputs[i] if where == "input" else outs[i] for where, i, *_ in program.watched]
            node.versions = [(t, t._storage.version) for t in watched]
            record(node, edges, diff)
        returned = [outs[k] if view is None else outs[k].as_strided(*view) for k, view in program.returned]
        return _rebuild(program.structure, iter(returned))

    def _eager_grads(self, node: CompiledFunctionBackward, grads: Grads) -> tuple[Tensor | None, ...]:
        from ..autograd import grad as autograd_grad

        warnings.warn("jitgrad.compile: create_graph=True through a compiled function: its "
                      "backward is not differentiable, so the function is re-run eagerly on the "
                      "same inputs and that graph is differentiated", CompileFallbackWarning, stacklevel=2)
        result = self.fn(*node.args, **node.kwargs)
        outputs: list[Tensor] = []
        _structure(result, outputs)
        program = node.program
        # the eager tensors standing for the node's outputs (a whole storage: a flat view of
        # the tensor owning it, which the views' gradients reach)
        eager = [outputs[j] if program.returned[j][1] is None else
                 (outputs[j] if outputs[j]._base is None else outputs[j]._base).as_strided((o[1][0],), (1,), 0)
                 for j, o in zip(program.rep, program.outputs)]
        pairs = [(t, g) for t, g in zip([t for t, o in zip(eager, program.outputs) if o[3]], grads)
                 if g is not None]
        got = autograd_grad([t for t, _ in pairs], node.inputs, [g for _, g in pairs],
                            create_graph=True, allow_unused=True)
        return tuple(g if node.needs_input_grad(j) else None for j, g in enumerate(got))


def _saved_checks(inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> tuple[str | None, list[Any]]:
    """What eager's graph saved, as the compiled backward must check it: the error eager's
    backward would raise for a tensor it saved and the function then wrote in place (Note
    [Version counter]; the tape would not notice), and the saved tensors that live in an
    input's or output's memory (a later in-place write to those must make backward refuse)."""
    where = {id(t._storage): ("input", i) for i, t in enumerate(inputs)}
    where.update({id(t._storage): ("output", j) for j, t in enumerate(outputs)})
    stale: str | None = None
    watched: dict[tuple[Any, ...], None] = {}
    seen: set[int] = set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        inner = getattr(node, "fn", None)  # (CopySlices wraps the write's node)
        if isinstance(inner, Node):
            stack.append(inner)
        for s in getattr(node, "saved", ()):
            if not isinstance(s, SavedTensor) or s._freed or s._data is None:
                continue
            data = s._data
            if stale is None and data._storage.version != s._version:
                stale = version_error(data, s, node)
            if id(data._storage) in where:
                watched[(*where[id(data._storage)], data._sizes, data._strides, data._offset)] = None
        stack.extend(fn for fn in node._next if fn is not None)
    return stale, list(watched)


def _check_output_aliasing(inputs: Sequence[Tensor], outputs: Sequence[Tensor], outside: Sequence[Any]) -> None:
    """Refuse what compiled outputs (fresh tensors) cannot reproduce: an eager output that is
    (a view of) an input, or of a tensor from outside the function (``outside``: their
    storages); writing one must show through the other."""
    owner = {id(t._storage): f"input {i}" for i, t in enumerate(inputs)}
    owner.update({id(s): "a tensor from outside the function" for s in outside})
    for j, t in enumerate(outputs):
        if id(t._storage) in owner:
            raise NotLowered(f"output {j} shares memory with {owner[id(t._storage)]} (that tensor "
                             "itself or a view of it); compiled outputs are fresh tensors (return a "
                             ".clone() to compile it)")


def _structure(result: Any, outputs: list[Tensor]) -> Any:
    """The return value's shape with tensors replaced by their position in ``outputs``."""
    if isinstance(result, Tensor):
        outputs.append(result)
        return len(outputs) - 1
    if isinstance(result, (tuple, list)):
        return (type(result), [_structure(r, outputs) for r in result])
    raise NotLowered(f"the function returns a {type(result).__name__} (tensors, tuples and lists are lowered)")


def _rebuild(structure: Any, outs: Any) -> Any:
    if isinstance(structure, int):
        return next(outs)
    kind, parts = structure
    values = [_rebuild(p, outs) for p in parts]
    return kind(values) if kind is list else tuple(values) if kind is tuple else kind(*values)


def warmup() -> None:
    """Compile (or load from the disk cache) the tape interpreters: ``python -m jitgrad
    warmup`` does it, so that no first ``jitgrad.compile`` call pays Numba's compile."""
    ti = np.zeros((1, K.W), np.int64)
    ti[0, K.SHAPE: K.SHAPE + K.R] = 1
    ti[0, K.N], ti[0, K.SAVE], ti[0, K.NF] = 1, -1, 1
    arena, saved, pos = np.zeros(1), np.zeros(1), np.zeros((K.REGIONS, 1), np.int64)
    K.forward(ti, np.zeros(1), arena, saved, pos)
    K.backward(ti, np.zeros(1), arena, np.zeros(1), saved, pos, np.zeros(1), np.zeros(1))

def compile(fn: Callable[..., Any] | None = None) -> Any:
    """Compile ``fn`` (usable as ``@jitgrad.compile``); see Note [Compiled tapes]."""
    if fn is None:
        return compile
    return CompiledFunction(fn)
