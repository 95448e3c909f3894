"""``autograd.grad(..., is_grads_batched=True)``: the first dim of every ``grad_output`` is a
batch of cotangents, and each input's gradient gains that leading dim.

PyTorch vmaps one backward over the batch; here the backward runs once per batch index
(the graph kept until the last, which frees it unless ``retain_graph``/``create_graph`` say
otherwise) and the gradients are stacked, with ``stack`` so that ``create_graph`` keeps
them differentiable. Each row is the gradient a plain ``grad`` call with that row as
``grad_outputs`` returns."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..tensor import Tensor


def batched_grad(grad: Callable[..., Any], outputs: Tensor | Sequence[Tensor], inputs: Any,
                 grad_outputs: Tensor | Sequence[Tensor | None] | None, retain_graph: bool | None,
                 create_graph: bool, allow_unused: bool | None, materialize_grads: bool) -> Any:
    from ..ops.stacking import stack

    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    cotangents = [grad_outputs] if isinstance(grad_outputs, Tensor) or grad_outputs is None else list(grad_outputs)
    if grad_outputs is None or len(cotangents) != len(outs):
        cotangents = cotangents + [None] * (len(outs) - len(cotangents))
    batch = None
    for i, (out, g) in enumerate(zip(outs, cotangents)):
        if g is None:
            continue
        if g.dim() == 0 or tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                f"shape of corresponding output, but a mismatch was detected: grad_output[{i}] has a "
                f"shape of {tuple(g.shape[1:])} and output[{i}] has a shape of {tuple(out.shape)}. If "
                "you only want some tensors in `grad_output` to be considered batched, consider using vmap."
            )
        if batch is not None and g.shape[0] != batch:
            raise ValueError(f"grad(is_grads_batched=True): every grad_output must have the same batch "
                             f"size (got {batch} and {g.shape[0]})")
        batch = g.shape[0]
    if batch is None:
        raise RuntimeError("grad(is_grads_batched=True): expected at least one batched grad_output, got none")
    keep_last = create_graph if retain_graph is None else retain_graph
    rows = [grad(outs, inputs, [None if g is None else g[b] for g in cotangents],
                 retain_graph=True if b < batch - 1 else keep_last, create_graph=create_graph,
                 allow_unused=allow_unused, materialize_grads=materialize_grads) for b in range(batch)]
    keys = list(rows[0]) if isinstance(rows[0], dict) else range(len(rows[0]))
    stacked = {k: None if rows[0][k] is None else stack([row[k] for row in rows]) for k in keys}
    return stacked if isinstance(rows[0], dict) else tuple(stacked[k] for k in keys)
