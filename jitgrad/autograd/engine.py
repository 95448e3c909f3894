"""The engine: runs a graph backward from its roots (PyTorch's ``Engine::execute``).

``execute`` makes a ``GraphTask`` and runs it:

1. Count, for every node reachable from the roots, how many edges lead into it.
2. With ``inputs`` given, mark the nodes on a path to them (``Capture``: PyTorch's
   ``exec_info`` and captures); skip the rest.
3. Run ready nodes (all their incoming gradients arrived), the most recently created first
   (``GraphTask.evaluate``): tensor hooks, capture, pre-hooks, ``apply``, post-hooks, then
   ``send`` each output gradient, checked, reduced and cast (``_validate``), into the next
   node's input buffer (``InputBuffers``: accumulation and Note [Gradient buffer ownership]
   in ``input_buffer.py``). ``apply`` is told which of its gradients the engine owns.
4. Leaves' ``AccumulateGrad`` updates are staged and committed only when the whole pass
   succeeded, so an exception mid-backward leaves every ``.grad`` as it was.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Any, Mapping, Sequence

from .. import _tracing
from .._warn_once import warn_once
from ..geometry.strided import Size, numel
from ..storage import allocate
from ..tensor import Tensor
from . import anomaly_mode, grad_mode, hook_results, post_accumulate, reentrant
from .graph import (
    OPS, AccumulateGrad, ScatterGrad, accumulate_grad, add_inplace, gradient_edge, is_fresh,
)
from .input_buffer import HandedGrads, InputBuffers, handed_over
from .node import Edge, Node, OwnedGrads


_COMMIT_LOCK = threading.Lock()


def _expandable(shape: Sequence[int], target: Sequence[int]) -> bool:
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(target)))


def validate_outputs(node: Node, grads: Sequence[Tensor | None]) -> list[Tensor | None]:
    """Check each gradient against the input it flows to; un-broadcast and cast it there.

    This is the one place where gradients of broadcast inputs are summed back to the
    input's shape and converted to its dtype. (``execute`` inlines the common case: a
    gradient that already has the right shape and dtype.)"""
    nexts = node._next
    if len(grads) != len(nexts):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid number of gradients - expected "
            f"{len(nexts)}, but got {len(grads)}"
        )
    # (a gradient for an input that needs none goes on unchecked, as PyTorch's: the node's
    # post-hooks see it, and ``send`` drops it)
    return [
        grad if grad is None or nxt is None else _validate(node, i, grad, nxt.input_metadata[nr])
        for i, (grad, nxt, nr) in enumerate(zip(grads, nexts, node._nrs))
    ]


def _validate(node: Node, i: int, grad: Any, meta: tuple[tuple[int, ...], Any]) -> Tensor:
    if grad.__class__ is ScatterGrad:
        if grad.sizes == meta[0] and grad.dtype == meta[1]:
            return grad  # type: ignore[no-any-return]
        grad = grad.materialize()
    if not isinstance(grad, Tensor):
        raise TypeError(
            f"Function {node.name()} returned an invalid gradient at index {i}: expected a "
            f"Tensor or None, got {type(grad).__name__}"
        )
    shape, dtype = meta
    if grad._sizes != shape:
        if not _expandable(shape, grad._sizes):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(grad._sizes)} but expected shape compatible with {list(shape)}"
            )
        grad = OPS.sum_to(grad, shape)
    if grad.dtype != dtype:
        grad = OPS.to_dtype(grad, dtype)
    return grad


# -- hooks ---------------------------------------------------------------------------------
def _call_tensor_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """The gradient hooks of the node's output tensors (which may replace the gradient),
    then their ``retain_grad`` hooks, which therefore see the final value (as in PyTorch).

    A hook runs whenever its node runs, with ``None`` when its tensor got no gradient (a
    sibling output of ``unbind`` did); it may not turn that ``None`` into a gradient."""
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                res = hook(grads[nr])
                if res is not None:
                    if grads[nr] is None:
                        raise RuntimeError(
                            f"hook on output {nr} of {node.name()}: got a "
                            f"{type(res).__name__} from a hook called with a None gradient "
                            "(that output received no gradient); expected None: a hook "
                            "can't replace a None gradient with a non-None value"
                        )
                    hook_results.check_tensor_result(grads[nr], res, hook)
                    grads[nr] = res
    if node._retains_grad_hooks:
        for nr, hook in list(node._retains_grad_hooks.items()):
            if grads[nr] is not None:
                hook(grads[nr])
    return grads


def _call_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    for hook in list(node._pre_hooks.values()):  # type: ignore[union-attr]
        res = hook(tuple(grads))
        if res is not None:
            grads = list(hook_results.check_tuple_result(grads, res, hook))
    return grads


def _call_post_hooks(
    node: Node, outputs: Sequence[Tensor | None], grads: Sequence[Tensor | None]
) -> list[Tensor | None]:
    """The node's hooks ``hook(grad_inputs, grad_outputs)``, which see dense gradients
    already reduced to their inputs' shapes and may replace them."""
    result = [
        o.materialize() if o.__class__ is ScatterGrad else o  # type: ignore[union-attr]
        for o in validate_outputs(node, outputs)
    ]
    for hook in list(node._hooks.values()):  # type: ignore[union-attr]
        res = hook(tuple(result), tuple(grads))
        if res is not None:
            result = validate_outputs(node, list(hook_results.check_tuple_result(result, res, hook)))
    return result


# -- the pass ------------------------------------------------------------------------------
class Capture:
    """What ``autograd.grad`` and ``backward(inputs=...)`` ask for (PyTorch's ``exec_info``
    and captures): the nodes that must run for gradients to reach the inputs, and the
    gradients caught on the way. A caught gradient is handed to the caller, so the node it
    reaches no longer owns it. A node runs (``GraphTask.evaluate``) when it is on a path to
    the inputs (``run``), or when it is the node of one of ``backward(inputs=...)``'s
    inputs (a leaf's AccumulateGrad, a non-leaf's ``grad_fn``)."""

    __slots__ = ("run", "slots", "nodes", "captured")

    def __init__(self, roots: Sequence[Edge], inputs: Sequence[Edge]) -> None:
        self.slots: dict[tuple[Node, int], list[int]] = {}
        self.nodes: set[Node] = set()
        for k, (node, nr) in enumerate(inputs):
            if node is not None:
                self.slots.setdefault((node, nr), []).append(k)
                self.nodes.add(node)
        self.run = _nodes_to_run([r for r, _ in roots], self.nodes)
        self.captured: list[Tensor | None] = [None] * len(inputs)

    def take(self, node: Node, grads: Sequence[Tensor | None]) -> None:
        for nr, g in enumerate(grads):
            for k in self.slots.get((node, nr), ()):
                self.captured[k] = g

    def needed(self, nexts: Sequence[Node | None]) -> tuple[bool, ...]:
        """``needs_input_grad`` of a node whose edges lead to ``nexts`` (its ``_next``):
        only the paths to the inputs."""
        run, nodes = self.run, self.nodes
        return tuple([nxt is not None and (run.get(nxt, False) or nxt in nodes) for nxt in nexts])


def _nodes_to_run(roots: Sequence[Node], targets: set[Node]) -> dict[Node, bool]:
    """Which nodes must run so that gradients reach ``targets`` (PyTorch's ``exec_info``):
    those with an edge into a target or into a node that must run."""
    run: dict[Node, bool] = {}
    stack: list[tuple[Node, int]] = [(r, 0) for r in roots]
    while stack:
        node, i = stack.pop()
        if i == 0 and node in run:
            continue
        nexts = node._next
        n = len(nexts)
        while i < n:  # the next edge into a node not yet known: walk it first
            nxt = nexts[i]
            i += 1
            if nxt is not None and nxt not in run:
                stack.append((node, i))
                stack.append((nxt, 0))
                break
        else:
            needed = False
            for nxt in nexts:
                if nxt is not None and (nxt in targets or run[nxt]):
                    needed = True
                    break
            run[node] = needed
    return run


def _count_dependencies(roots: Sequence[Edge]) -> dict[Node, int]:
    """For every node reachable from the roots, how many edges lead into it."""
    deps: dict[Node, int] = {}
    # each node once, though several roots may be outputs of one node (unbind, split)
    stack = list(dict.fromkeys(node for node, _ in roots))
    starts = set(stack)  # a node is walked from when first counted, unless it is a root
    get = deps.get
    while stack:
        node = stack.pop()
        n = len(node._nrs)  # (``node._next``, inlined: see ``Node``)
        for nxt in (node._n0, node._n1) if n == 2 else (node._n0,) if n == 1 else node._nx if n else ():
            if nxt is not None:
                count = get(nxt)
                if count is None:
                    deps[nxt] = 1
                    if nxt not in starts:
                        stack.append(nxt)
                else:
                    deps[nxt] = count + 1
    return deps


class GraphTask:
    """One backward pass (PyTorch's ``GraphTask``): the dependency counts, the input
    buffers, the ready queue (most recently created node first), what to capture, and the
    leaves' updates staged until the pass has succeeded."""

    __slots__ = (
        "deps", "buffers", "ready", "order", "capture", "staged", "keep_graph",
        "create_graph", "accumulate", "check_nan",
    )

    def __init__(
        self,
        roots: Sequence[Edge],
        root_grads: Sequence[Tensor],
        keep_graph: bool,
        create_graph: bool,
        inputs: Sequence[Edge] | None,
        accumulate: bool,
    ) -> None:
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.accumulate = accumulate
        self.check_nan = anomaly_mode.enabled and anomaly_mode.check_nan_enabled
        self.deps = deps = _count_dependencies(roots)
        self.capture = None if inputs is None else Capture(roots, inputs)
        self.staged: list[tuple[AccumulateGrad, Tensor | None, bool]] = []
        self.buffers = buffers = InputBuffers(create_graph)
        for (node, nr), grad in zip(roots, root_grads):
            buffers.add(node, nr, grad)  # type: ignore[arg-type]
        self.ready: list[tuple[int, int, Node]] = []
        self.order = order = itertools.count()  # ties (AccumulateGrads) in the order they got ready
        for node in buffers.grads:
            if node not in deps:
                heapq.heappush(self.ready, (-node.sequence_nr, next(order), node))

    def run(self) -> list[Tensor | None]:
        """Run every ready node, then commit the leaves' gradients; returns the captured
        gradients (``autograd.grad``)."""
        state = grad_mode._state
        depth = state.backward_depth  # backward passes running on this thread
        if depth > reentrant.MAX_DEPTH:  # nested too deep for this thread's stack
            return reentrant.run_on_new_thread(self.run)
        prev_mode, prev_capturing = state.enabled, state.capturing
        anomaly = anomaly_mode.enabled
        grad_mode._set(self.create_graph)
        state.backward_depth = depth + 1
        state.capturing = self.capture is not None  # (read by ``checkpoint``: grad_mode.is_checkpoint_valid)
        ready, heappop, evaluate = self.ready, heapq.heappop, self.evaluate
        node = following = None
        if anomaly:  # (nodes made while one runs record it as their parent)
            current = anomaly_mode.CURRENT
            outer = current.node
        try:
            while following is not None or ready:
                node = following if following is not None else heappop(ready)[2]
                if anomaly:
                    current.node = node
                following = evaluate(node)
            node = None  # an error from here on is no node's
            if self.staged:  # (none in autograd.grad)
                _commit(self.staged, self.create_graph)
        except Exception as exc:
            if not anomaly or node is None:
                raise
            named = anomaly_mode.wrap_error(node, exc)  # the node and its forward line
            if named is exc:
                raise
            raise named from exc
        finally:
            grad_mode._set(prev_mode)
            state.capturing = prev_capturing
            state.backward_depth = depth
            if anomaly:
                current.node = outer
        return self.capture.captured if self.capture is not None else []

    def evaluate(self, node: Node) -> Node | None:
        """Run one ready node and send its gradients on (PyTorch's ``evaluate_function``);
        returns the node to run next when it is the only one ready (see ``send``)."""
        buffers = self.buffers
        grads = buffers.grads.pop(node)  # (InputBuffers.pop, inlined but for ScatterGrads)
        flags = buffers.owned.pop(node, None) if buffers.owned else None
        if buffers.scattered and node in buffers.scattered:
            grads, flags = buffers.materialized(node, grads, flags)
        capture = self.capture
        if capture is not None:
            targeted = node in capture.nodes
            on_path = capture.run.get(node, False)  # (``must_run``, read once: inlined)
            if not targeted and not on_path:
                return None  # off every path to the inputs: not executed, its hooks not run
        if node._tensor_pre_hooks or node._retains_grad_hooks:
            grads = _call_tensor_pre_hooks(node, grads)
            flags = None  # a hook may have kept a reference: nothing is owned any more
        if capture is not None:
            if targeted:
                capture.take(node, grads)
                flags = None  # returned to the caller: must not be overwritten
            if not (on_path or targeted and self.accumulate):
                # ``backward(inputs=...)`` runs the node of each input (PyTorch marks it
                # needed): a non-leaf's node runs with its hooks, needing no input's gradient
                return None
        if node._pre_hooks:
            grads = _call_pre_hooks(node, grads)
            flags = None
        if node.__class__ is AccumulateGrad:
            if self.accumulate:
                self.staged.append((node, grads[0], bool(flags and flags[0])))  # type: ignore[arg-type]
            return None
        if not node._hooks:
            # call_function without what it would skip (post-hooks)
            if capture is not None:
                node._needed = capture.needed(node._next)
            try:
                if grads[0] is not None or node._run_without_grads or any(g is not None for g in grads):
                    outputs = node.apply_owned(grads, flags) if flags and node.takes_owned else node.apply(grads)
                else:
                    outputs = [None] * len(node._nrs)
            finally:
                if capture is not None:
                    node._needed = None
            if len(outputs) != len(node._nrs):
                validate_outputs(node, outputs)  # raises the error
        else:  # post-hooks see the gradients in and out and may keep them: the node writes
            flags = None  # into none, and passes none on owned (a list back)
            outputs = self.call_function(node, grads, flags)
        handed = None
        kind = outputs.__class__
        if kind is HandedGrads:
            handed = outputs.owned  # type: ignore[attr-defined]
        elif flags or kind is OwnedGrads:
            handed = handed_over(outputs, grads, flags)
        # released once its gradients passed validation (in ``send``), as in PyTorch, where
        # ``call_function`` validates: a node that returned an invalid gradient keeps what
        # it saved, so a second backward after the error can still run it; one that
        # returned NaN (anomaly mode) is released first, as in PyTorch
        following = self.send(node, outputs, handed)
        if not self.keep_graph:
            node.release_variables()
        if self.check_nan:
            anomaly_mode.check_outputs(node, outputs)
        return following

    def call_function(
        self, node: Node, grads: list[Tensor | None], flags: list[bool] | None
    ) -> Sequence[Tensor | None]:
        """``node.apply``, then its post-hooks (PyTorch's ``call_function``)."""
        nexts = node._next
        capture = self.capture
        if capture is not None:
            node._needed = capture.needed(nexts)
        try:
            if grads[0] is not None or node._run_without_grads or any(g is not None for g in grads):
                outputs: Sequence[Tensor | None] = (
                    node.apply_owned(grads, flags) if flags and node.takes_owned else node.apply(grads)
                )
            else:
                outputs = [None] * len(nexts)
        finally:
            if capture is not None:
                node._needed = None
        if node._hooks:
            return _call_post_hooks(node, outputs, grads)
        if len(outputs) != len(nexts):
            validate_outputs(node, outputs)  # raises the error
        return outputs

    def send(
        self, node: Node, outputs: Sequence[Tensor | None], handed: list[bool] | None
    ) -> Node | None:
        """Each output gradient into the input buffer of the node its edge leads to
        (checked, reduced and cast there); a node whose last gradient arrived is ready.
        The ready node the queue would give back next (a later sequence number than every
        queued one; of those readied here, the latest, ties to the first) is returned, to
        run next, rather than queued: a chain never touches the heap, and a fan-out (a
        stepper's ``a + b - 2 * c``) queues only the branches that wait. The order is the
        queue's own, node for node."""
        buffers, deps, ready = self.buffers, self.deps, self.ready
        slots, owned = buffers.grads, buffers.owned
        mine = not buffers.create_graph  # (buffers may own what they are handed)
        following = None
        nrs = node._nrs  # (read by index where a gradient goes on: ``zip`` costs ~0.1 us a node)
        n = len(nrs)  # (``node._next``, inlined: see ``Node``)
        i = 0
        for nxt in (node._n0, node._n1) if n == 2 else (node._n0,) if n == 1 else node._nx if n else ():
            if nxt is not None:
                grad = outputs[i]
                if grad is not None:
                    nr = nrs[i]
                    fresh = handed is not None and handed[i]
                    meta = nxt.input_metadata[nr]
                    # validate_outputs, inlined for a gradient that already fits
                    kind = grad.__class__
                    if not (grad._sizes == meta[0] and grad._storage.buffer.dtype is meta[1]
                            if kind is Tensor else kind is ScatterGrad and grad.sizes == meta[0]
                            and grad.values._storage.buffer.dtype is meta[1]):
                        validated = _validate(node, i, grad, meta)
                        fresh = fresh or (validated is not grad and validated._base is None)
                        grad = validated
                    buf = slots.get(nxt)
                    if buf is None and grad.__class__ is Tensor and len(nxt.input_metadata) == 1:
                        slots[nxt] = [grad]  # (InputBuffers.add's first gradient, inlined)
                        if fresh and mine:
                            buffers.owned[nxt] = [True]
                    elif buf is not None and mine and (own := owned.get(nxt)) is not None and own[nr] \
                            and (old := buf[nr]).__class__ is Tensor:
                        # into a dense buffer the engine owns (InputBuffers._accumulate's case)
                        if grad.__class__ is ScatterGrad:
                            grad.add_into(old)  # O(slice)
                        else:
                            add_inplace(old, grad)
                    else:
                        buffers.add(nxt, nr, grad, fresh)
                else:
                    buffers.touch(nxt)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    seq = nxt.sequence_nr
                    if following is None:
                        if not ready or -seq < ready[0][0]:  # the queue's next pick anyway
                            following = nxt
                        else:
                            heapq.heappush(ready, (-seq, next(self.order), nxt))
                    elif seq > following.sequence_nr:  # ahead of ``following``: it waits
                        heapq.heappush(ready, (-following.sequence_nr, next(self.order), following))
                        following = nxt
                    else:  # (a tie goes to ``following``, ready first)
                        heapq.heappush(ready, (-seq, next(self.order), nxt))
            i += 1
        return following


def execute(
    roots: Sequence[Edge],
    root_grads: Sequence[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Edge] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run the graph backward from ``roots`` (seeded with ``root_grads``). With
    ``accumulate=False`` (``autograd.grad``) the gradients reaching ``inputs`` are returned
    instead of being accumulated into ``.grad``."""
    return GraphTask(roots, root_grads, keep_graph, create_graph, inputs, accumulate).run()


def _commit(staged: list[tuple[AccumulateGrad, Tensor | None, bool]], create_graph: bool) -> None:
    """Run the staged AccumulateGrad updates (taking over buffers nothing else holds); after
    each, the leaf's post-accumulate-grad hooks, then its AccumulateGrad's post hooks (PyTorch
    runs the first inside ``AccumulateGrad::apply``, the second after it returned).

    Each update leaves ``staged`` before it runs, so one gradient sent to several leaves (a
    Function returning ``g, g``) is copied into all but the last, which takes it over, as
    PyTorch's use count lets it."""
    # one backward at a time adds into a .grad (two threads running backward through one
    # graph); the lock is let go while hooks run, free to run a backward themselves
    _COMMIT_LOCK.acquire()
    try:
        for k in range(len(staged)):
            node, grad, steal = staged[k]  # type: ignore[misc]
            staged[k] = None  # type: ignore[call-overload]
            if grad is None:
                continue
            steal = steal or (not create_graph and is_fresh(grad))
            accumulate_grad(node.variable, grad, steal, create_graph)
            if node._hooks or post_accumulate.HOOKS:
                _COMMIT_LOCK.release()
                try:
                    if post_accumulate.HOOKS:
                        post_accumulate.run(node.variable)
                    if node._hooks:
                        for hook in list(node._hooks.values()):
                            hook((), (grad,))
                finally:
                    _COMMIT_LOCK.acquire()
    finally:
        _COMMIT_LOCK.release()


# -- backward() and autograd.grad() --------------------------------------------------------
def _root_grads(
    op: str, outputs: Sequence[Tensor], grad_outputs: Sequence[Any] | None
) -> tuple[list[Edge], list[Tensor]]:
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"{op}: got {len(grad_outputs)} gradients for {len(outputs)} outputs; expected one "
            "gradient (or None) per output"
        )
    edges: list[Edge] = []
    grads: list[Tensor] = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{op}: outputs must be Tensors, got {type(out).__name__} at {i}")
        edge = gradient_edge(out)
        if edge[0] is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            g = _implicit_grad(out, i)
        elif not isinstance(g, Tensor):
            raise TypeError(f"{op}: gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g._sizes != out._sizes:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._sizes)} and "
                f"output[{i}] has a shape of {Size(out._sizes)}."
            )
        elif g.dtype != out.dtype:
            if not g.is_floating_point():
                raise RuntimeError(
                    f"{op}: grad_output[{i}] has dtype {g.dtype.name}; expected a floating "
                    f"point gradient for output of dtype {out.dtype.name}"
                )
            from ..copying import to_dtype_copy

            g = to_dtype_copy(g, out.dtype)
        edges.append(edge)
        grads.append(g)
    return edges, grads


def _implicit_grad(out: Tensor, i: int) -> Tensor:
    """The gradient of a scalar output when none is given: ``ones_like(out)``."""
    sizes = out._sizes
    if len(sizes) and numel(sizes) != 1:
        raise RuntimeError(
            f"grad can be implicitly created only for scalar outputs (output {i} has "
            f"shape {list(sizes)}); pass a gradient of that shape"
        )
    if _tracing.ACTIVE is not None:  # jitgrad.compile records the constant: the factory
        from ..creation import ones

        return ones(sizes, dtype=out.dtype)
    # ``ones(sizes, dtype=out.dtype)``'s result, made directly (once per backward): a copy
    # of a cached one-element buffer (np.full costs ~1 us more)
    dtype = out._storage.buffer.dtype
    one = _ONE.get(dtype)
    if one is None:
        one = _ONE[dtype] = allocate(1, dtype, 1)
    return Tensor._from_buffer(one.copy(), sizes)


_ONE: dict[Any, Any] = {}  # dtype -> a one-element buffer holding 1 (never handed out)


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _input_list(op: str, inputs: Any) -> list[Any]:
    """``backward``'s / ``grad``'s ``inputs`` as a list: a tensor, a sequence of them, or a
    dict of them (its values; ``grad`` then returns a dict), as PyTorch takes them."""
    if isinstance(inputs, Tensor):
        return [inputs]
    if type(inputs) is dict:
        return list(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `{op}()` must be a dict, not {type(inputs).__name__}. Other "
            "Mapping types are not supported."
        )
    return list(inputs)  # (None: TypeError, as PyTorch's)


_CYCLE_WARNING = (  # PyTorch's, once per process (``_warn_once``)
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of
    ``inputs`` only, when given)."""
    if grad_tensors is None and inputs is None and tensors.__class__ is Tensor:
        # ``tensor.backward()``: the checks below have nothing to check
        edges, root = _root_grads("backward", (tensors,), None)
        keep = create_graph if retain_graph is None else retain_graph
        if create_graph:
            warn_once(_CYCLE_WARNING)
        GraphTask(edges, root, keep, create_graph, None, True).run()
        return
    outputs = _as_list(tensors)
    grads = None if grad_tensors is None else _as_list(grad_tensors)
    if grad_tensors is not None and isinstance(grad_tensors, Tensor):
        grads = [grad_tensors]
    edges, root = _root_grads("backward", outputs, grads)
    keep = create_graph if retain_graph is None else retain_graph
    input_list = _input_list("backward", inputs) if inputs is not None else None
    if input_list is not None and not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")  # PyTorch's
    input_edges = None
    if input_list is not None:
        input_edges = []
        for t in input_list:
            # as PyTorch's: a non-leaf input retains its grad (from now on); its .grad is
            # filled by that hook (a leaf's by its AccumulateGrad)
            t.retain_grad()  # (refuses a tensor that does not require grad)
            input_edges.append(gradient_edge(t))
    if create_graph:
        warn_once(_CYCLE_WARNING)
    execute(edges, root, keep, create_graph, input_edges, accumulate=True)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...] | dict[Any, Tensor | None]:
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned (nothing is accumulated): a
    tuple, or a dict by the same keys when ``inputs`` is a dict; ``is_grads_batched``:
    ``batched_grad.py``."""
    if is_grads_batched:
        from .batched_grad import batched_grad

        return batched_grad(grad, outputs, inputs, grad_outputs, retain_graph, create_graph,
                            allow_unused, materialize_grads)
    out_list = _as_list(outputs)
    in_list = _input_list("grad", inputs)
    grads = None if grad_outputs is None else _as_list(grad_outputs)
    if isinstance(grad_outputs, Tensor):
        grads = [grad_outputs]
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if not in_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")  # PyTorch's
    edges, root = _root_grads("grad", out_list, grads)
    keep = create_graph if retain_graph is None else retain_graph
    input_edges = []
    for t in in_list:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad: inputs must be Tensors, got {type(t).__name__}")
        edge = gradient_edge(t)
        if edge[0] is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        input_edges.append(edge)
    captured = execute(edges, root, keep, create_graph, input_edges, accumulate=False)
    result: list[Tensor | None] = []
    for i, (t, g) in enumerate(zip(in_list, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                from ..creation import zeros

                # differentiable under create_graph, as PyTorch's ``zeros_like(input,
                # requires_grad=create_graph)``
                g = zeros(t._sizes, dtype=t.dtype, requires_grad=create_graph)
        elif g._sizes != t._sizes or g.dtype != t.dtype:
            g = OPS.to_dtype(OPS.sum_to(g, t._sizes), t.dtype)
        result.append(g)
    return dict(zip(inputs, result)) if type(inputs) is dict else tuple(result)
