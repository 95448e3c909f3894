"""The engine: runs a graph backward from its roots (PyTorch's ``Engine::execute``).

Note [Gradient buffer ownership]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The engine tracks, per input-buffer slot, whether the gradient there is a buffer nothing
else references. It is when the engine made it (the copy on a second gradient), when a
node said so (``OwnedGrads``: e.g. CopySlices returning the buffer it wrote into), when
``validate_outputs`` had to reduce or cast (a fresh tensor), or when a node passed an owned
input through unchanged to exactly one output. ``apply(grads, owned)`` learns which of its
inputs it may overwrite; that is what makes K in-place writes into slices of one buffer cost
O(buffer + slices) in backward rather than O(K x buffer). Hooks and captures may keep a
reference, so they clear ownership.

1. Count, for every node reachable from the roots, how many edges lead into it.
2. With ``inputs`` given, mark the nodes on a path to them (``exec_info``); skip the rest.
3. Run ready nodes (all their incoming gradients arrived), the most recently created first.
   Each node has an input buffer: the first gradient for a slot is kept as it is; a second
   one makes one dense copy the engine then owns and adds into in place (with a graph,
   ``create_graph``, out of place). ``apply`` is told which buffers the engine owns.
4. Leaves' ``AccumulateGrad`` updates are staged and committed only when the whole pass
   succeeded, so an exception mid-backward leaves every ``.grad`` as it was.
"""

from __future__ import annotations

import heapq
import threading
from typing import Any, Sequence

from ..tensor import Tensor
from . import anomaly_mode, grad_mode
from .graph import (
    OPS, AccumulateGrad, ScatterGrad, accumulate_grad, add_inplace, dense_copy, gradient_edge,
    is_fresh,
)
from .node import Edge, Node


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
    edges = node.next_functions
    if len(grads) != len(edges):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid number of gradients - expected "
            f"{len(edges)}, but got {len(grads)}"
        )
    return [
        None if grad is None or nxt is None else _validate(node, i, grad, nxt.input_metadata[nr])
        for i, (grad, (nxt, nr)) in enumerate(zip(grads, edges))
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
            grads = list(res)
    return grads


def _nodes_to_run(roots: Sequence[Node], targets: set[Node]) -> dict[Node, bool]:
    """Which nodes must run so that gradients reach ``targets`` (PyTorch's ``exec_info``):
    those with an edge into a target or into a node that must run."""
    run: dict[Node, bool] = {}
    stack: list[tuple[Node, int]] = [(r, 0) for r in roots]
    while stack:
        node, i = stack.pop()
        if i == 0 and node in run:
            continue
        edges = node.next_functions
        if i < len(edges):
            stack.append((node, i + 1))
            nxt = edges[i][0]
            if nxt is not None and nxt not in run:
                stack.append((nxt, 0))
            continue
        run[node] = any(
            nxt is not None and (nxt in targets or run.get(nxt, False)) for nxt, _ in edges
        )
    return run


def _count_dependencies(roots: Sequence[Edge]) -> dict[Node, int]:
    """For every node reachable from the roots, how many edges lead into it."""
    deps: dict[Node, int] = {}
    # each node once, though several roots may be outputs of one node (unbind, split)
    stack = list(dict.fromkeys(node for node, _ in roots))
    seen = set(stack)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


def execute(
    roots: Sequence[Edge],
    root_grads: Sequence[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Edge] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run the graph backward. With ``accumulate=False`` (``autograd.grad``) the gradients
    reaching ``inputs`` are returned instead of being accumulated into ``.grad``.

    Input buffers: ``buffers[node]`` is the list of gradients for the node's outputs.
    The first gradient for a slot is stored as it is; a second one makes one dense copy,
    which the engine then owns (``owned[node][k]``) and adds into in place (out of place,
    building a graph, under ``create_graph``)."""
    deps = _count_dependencies(roots)

    run: dict[Node, bool] | None = None
    captures: dict[tuple[Node, int], list[int]] = {}
    capture_nodes: set[Node] = set()
    if inputs is not None:
        for k, (node, nr) in enumerate(inputs):
            if node is not None:
                captures.setdefault((node, nr), []).append(k)
                capture_nodes.add(node)
        run = _nodes_to_run([r for r, _ in roots], capture_nodes)
    captured: list[Tensor | None] = [None] * (len(inputs) if inputs is not None else 0)

    buffers: dict[Node, list[Tensor | None]] = {}
    owned: dict[Node, list[bool]] = {}

    def add(node: Node, k: int, grad: Tensor) -> None:
        """Slow path of buffering: a second gradient for one slot."""
        buf = buffers[node]
        old = buf[k]
        flags = owned.get(node)
        if create_graph:
            buf[k] = OPS.add(old, grad)
            if flags is not None:
                flags[k] = False
            return
        if flags is None:
            flags = owned[node] = [False] * len(buf)
        if old.__class__ is ScatterGrad:
            old = buf[k] = old.materialize()  # type: ignore[union-attr]
            flags[k] = True
        elif not flags[k]:
            old = buf[k] = dense_copy(old)  # type: ignore[arg-type]
            flags[k] = True
        if grad.__class__ is ScatterGrad:
            grad.add_into(old)  # type: ignore[union-attr]  # O(slice), not O(buffer)
        else:
            add_inplace(old, grad)  # type: ignore[arg-type]

    ready: list[tuple[int, int, Node]] = []
    counter = 0
    for (node, nr), grad in zip(roots, root_grads):
        buf = buffers.get(node)  # type: ignore[arg-type]
        if buf is None:
            buffers[node] = buf = [None] * len(node.input_metadata)  # type: ignore[union-attr]
        if buf[nr] is None:
            buf[nr] = grad
        else:
            add(node, nr, grad)  # type: ignore[arg-type]
    for node in buffers:
        if node not in deps:
            heapq.heappush(ready, (-node.sequence_nr, counter, node))
            counter += 1

    staged: list[tuple[AccumulateGrad, Tensor | None, bool]] = []
    heappop, heappush = heapq.heappop, heapq.heappush
    prev_mode = grad_mode.is_grad_enabled()
    anomaly = anomaly_mode.enabled
    check_nan = anomaly and anomaly_mode.check_nan_enabled
    grad_mode._set(create_graph)
    node = None
    try:
        while ready:
            node = heappop(ready)[2]
            grads = buffers.pop(node)
            flags = owned.pop(node, None) if owned else None
            if ScatterGrad in map(type, grads):  # no node ever sees a ScatterGrad
                flags = _materialize(grads, flags)
            if node._tensor_pre_hooks or node._retains_grad_hooks:
                grads = _call_tensor_pre_hooks(node, grads)
                flags = None  # a hook may have kept a reference: nothing is owned any more
            if run is not None:
                targeted = node in capture_nodes
                if targeted:
                    for nr, g in enumerate(grads):
                        for k in captures.get((node, nr), ()):
                            captured[k] = g
                    flags = None  # returned to the caller: must not be overwritten
                # a leaf in backward(inputs=...) is a target whose AccumulateGrad must run
                if not run.get(node, False) and not (targeted and accumulate and node.__class__ is AccumulateGrad):
                    continue
            if node._pre_hooks:
                grads = _call_pre_hooks(node, grads)
                flags = None
            if node.__class__ is AccumulateGrad:
                if accumulate:
                    staged.append((node, grads[0], bool(flags and flags[0])))  # type: ignore[attr-defined]
                    del grads
                continue
            edges = node.next_functions
            if run is not None:
                node._needed = tuple(
                    nxt is not None and (run.get(nxt, False) or nxt in capture_nodes)
                    for nxt, _ in edges
                )
            try:
                if grads[0] is not None or node._run_without_grads or any(g is not None for g in grads):
                    outputs: Sequence[Tensor | None] = node.apply(grads, flags or ())
                else:
                    outputs = [None] * len(edges)
            finally:
                if run is not None:
                    node._needed = None
            if check_nan:
                anomaly_mode.check_outputs(node, outputs)
            if node._hooks:
                outputs = [
                    o.materialize() if o.__class__ is ScatterGrad else o  # type: ignore[union-attr]
                    for o in validate_outputs(node, outputs)
                ]
                for hook in list(node._hooks.values()):
                    res = hook(tuple(outputs), tuple(grads))
                    if res is not None:
                        outputs = validate_outputs(node, list(res))
            elif len(outputs) != len(edges):
                validate_outputs(node, outputs)  # raises the error
            if not keep_graph:
                node.release_variables()
            handed = _handed_over(outputs, grads, flags)
            i = 0
            for nxt, nr in edges:
                if nxt is not None:
                    grad = outputs[i]
                    if grad is not None:
                        fresh = handed is not None and handed[i]
                        meta = nxt.input_metadata[nr]
                        # validate_outputs, inlined for a gradient that already fits
                        if not (grad.__class__ is Tensor and grad._sizes == meta[0]
                                and grad._storage.buffer.dtype is meta[1]):
                            validated = _validate(node, i, grad, meta)
                            fresh = fresh or (validated is not grad and validated._base is None)
                            grad = validated
                        buf = buffers.get(nxt)
                        if buf is None:
                            n = len(nxt.input_metadata)
                            if n == 1:
                                buffers[nxt] = [grad]
                            else:
                                buffers[nxt] = buf = [None] * n
                                buf[nr] = grad
                            if fresh and not create_graph:
                                owned[nxt] = [k == nr for k in range(n)]
                        elif buf[nr] is None:
                            buf[nr] = grad
                            if fresh and not create_graph:
                                owned.setdefault(nxt, [False] * len(buf))[nr] = True
                        else:
                            add(nxt, nr, grad)
                    elif nxt not in buffers:
                        buffers[nxt] = [None] * len(nxt.input_metadata)
                    d = deps[nxt] - 1
                    deps[nxt] = d
                    if d == 0:
                        heappush(ready, (-nxt.sequence_nr, counter, nxt))
                        counter += 1
                i += 1
            del outputs, grads
        node = None  # an error from here on is no node's
        # leaves' gradients are committed only once the whole pass succeeded, one backward
        # at a time (two threads running backward through one graph add into one .grad)
        grad = validated = None  # type: ignore[assignment]  # drop this frame's references,
        # or a buffer nothing else holds would not be taken over (is_fresh counts them)
        with _COMMIT_LOCK:
            _commit(staged, create_graph)
    except Exception as exc:
        if not anomaly or node is None:
            raise
        named = anomaly_mode.wrap_error(node, exc)  # the node and its forward line
        if named is exc:
            raise
        raise named from exc
    finally:
        grad_mode._set(prev_mode)
    return captured


def _commit(staged: list[tuple[AccumulateGrad, Tensor | None, bool]], create_graph: bool) -> None:
    """Run the staged AccumulateGrad updates (taking over buffers nothing else holds)."""
    for node, grad, steal in staged:
        if grad is None:
            continue
        steal = steal or (not create_graph and is_fresh(grad, extra_refs=1))
        accumulate_grad(node.variable, grad, steal, create_graph)
        if node._hooks:
            for hook in list(node._hooks.values()):
                hook((), (grad,))


def _materialize(grads: list[Any], flags: list[bool] | None) -> list[bool]:
    """Turn the ScatterGrads in ``grads`` into dense tensors the engine owns."""
    flags = [False] * len(grads) if flags is None else flags
    for k in range(len(grads)):
        if grads[k].__class__ is ScatterGrad:
            grads[k] = grads[k].materialize()
            flags[k] = True
    return flags


def _handed_over(
    outputs: Sequence[Tensor | None], grads: Sequence[Tensor | None], flags: list[bool] | None
) -> list[bool] | None:
    """Which outputs the next nodes may overwrite (Note [Gradient buffer ownership]): those
    the node declared owned, and owned inputs passed through to exactly one output."""
    declared = getattr(outputs, "owned", None)
    if declared is None and not flags:
        return None
    handed = list(declared) if declared is not None else None
    if flags:
        for k, g in enumerate(grads):
            if flags[k] and g is not None:
                hits = [i for i, o in enumerate(outputs) if o is g]
                if len(hits) == 1:
                    if handed is None:
                        handed = [False] * len(outputs)
                    handed[hits[0]] = True
    if handed is not None:  # one buffer reaching two outputs is nobody's alone
        for i, o in enumerate(outputs):
            if handed[i] and sum(1 for x in outputs if x is o) > 1:
                handed[i] = False
    return handed


def _root_grads(
    op: str, outputs: Sequence[Tensor], grad_outputs: Sequence[Any] | None
) -> tuple[list[Edge], list[Tensor]]:
    from ..copying import to_dtype_copy

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
            if out.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (output {i} has "
                    f"shape {list(out._sizes)}); pass a gradient of that shape"
                )
            from ..creation import ones

            g = ones(out._sizes, dtype=out.dtype)
        elif not isinstance(g, Tensor):
            raise TypeError(f"{op}: gradients must be Tensors or None, got {type(g).__name__}")
        elif g._sizes != out._sizes:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {list(g._sizes)} and "
                f"output[{i}] has a shape of {list(out._sizes)}."
            )
        elif g.dtype != out.dtype:
            if not g.is_floating_point():
                raise RuntimeError(
                    f"{op}: grad_output[{i}] has dtype {g.dtype.name}; expected a floating "
                    f"point gradient for output of dtype {out.dtype.name}"
                )
            g = to_dtype_copy(g, out.dtype)
        edges.append(edge)
        grads.append(g)
    return edges, grads


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of
    ``inputs`` only, when given)."""
    outputs = _as_list(tensors)
    grads = None if grad_tensors is None else _as_list(grad_tensors)
    if grad_tensors is not None and isinstance(grad_tensors, Tensor):
        grads = [grad_tensors]
    edges, root = _root_grads("backward", outputs, grads)
    keep = create_graph if retain_graph is None else retain_graph
    input_list = _as_list(inputs) if inputs is not None else None
    if input_list is not None and not input_list:
        raise RuntimeError("backward: 'inputs' argument to backward() cannot be empty.")
    input_edges = None
    if input_list is not None:
        input_edges = []
        for t in input_list:
            edge = gradient_edge(t)
            if edge[0] is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            input_edges.append(edge)
    captured = execute(edges, root, keep, create_graph, input_edges, accumulate=True)
    if input_list is not None:
        # non-leaf inputs get their .grad from the captured gradient (PyTorch semantics)
        for t, g in zip(input_list, captured):
            if t._grad_fn is not None and g is not None:
                accumulate_grad(t, g, False, create_graph)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned (nothing is accumulated)."""
    out_list = _as_list(outputs)
    in_list = _as_list(inputs)
    grads = None if grad_outputs is None else _as_list(grad_outputs)
    if isinstance(grad_outputs, Tensor):
        grads = [grad_outputs]
    if allow_unused is None:
        allow_unused = materialize_grads
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

                g = zeros(t._sizes, dtype=t.dtype)
        elif g._sizes != t._sizes or g.dtype != t.dtype:
            g = OPS.to_dtype(OPS.sum_to(g, t._sizes), t.dtype)
        result.append(g)
    return tuple(result)
