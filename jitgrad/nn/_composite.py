"""One node for an op composed from jitgrad ops, under the name PyTorch's single kernel has
(``ConvolutionBackward0``, ``MultiMarginLossBackward0``, ...).

The composition (e.g. conv: an ``as_strided`` window view contracted by ``einsum``; see
``_conv.py``) is recorded as usual, its graph reaching the op's inputs; the result the caller
gets is a copy whose only node is a ``CompositeBackward``, with the op's inputs as its next
functions, as in PyTorch. Its ``apply`` runs the composition's backward (``autograd.grad``,
keeping that graph until this node is released), with ``create_graph`` when the outer
backward has it, so gradients of gradients follow. The node also saves the inputs PyTorch's
saves, for the same version checks.

The composition reads each input that needs a gradient through its own *boundary*: an alias
on the same memory (not a view) whose one node passes the gradient through to the input.
The node's backward asks ``grad`` for the gradients of the boundaries, which nothing else
can reach or change: a partial derivative per input, as a kernel's backward gives. Asked of
the inputs themselves, ``grad`` would return total derivatives (an input that is also an
ancestor of another, ``grid_sample(x, grid_from(x))``, would get the other's path twice),
and would look for an input by its history at backward time: an input written in place
after the op (``interpolate(x)`` then ``x.mul_(2)``, allowed when the op saved nothing of
it) has a new one there, which the composition does not reach (no gradient at all)."""

from __future__ import annotations

from typing import Callable

from ..autograd.engine import grad
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import needs_grad, record
from ..autograd.node import _FREED, Grads, Node, SavingNode
from ..ops.operands import array_of, from_result
from ..tensor import Tensor


class CompositeBackward(SavingNode):
    """Holds the composition's output, whose graph computes the gradients."""

    def __init__(self, inner: Tensor, inputs: tuple[Tensor | None, ...], batched: bool = True) -> None:
        super().__init__()
        self.inner: Tensor | None = inner
        self.inputs = inputs
        self.batched = batched  # (else the node's input is ``inputs[0].unsqueeze(0)``: see ``convolution``)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        self.unpack()  # (the version checks)
        if self.inner is None:
            raise RuntimeError(_FREED)
        wanted = [i for i, t in enumerate(self.inputs) if t is not None and self.needs_input_grad(i)]
        g = grads[0] if self.batched else grads[0].squeeze(0)  # type: ignore[union-attr]
        # (an input the composition does not reach, as the grid of a nearest grid_sample,
        # gets zeros: a kernel's backward returns them)
        got = grad(self.inner, [self.inputs[i] for i in wanted], g, retain_graph=True,  # type: ignore[misc]
                   create_graph=is_grad_enabled(), allow_unused=True, materialize_grads=True)
        out: list[Tensor | None] = [None] * len(self.inputs)
        for i, gi in zip(wanted, got):
            out[i] = gi.unsqueeze(0) if i == 0 and gi is not None and not self.batched else gi  # type: ignore[attr-defined]
        return tuple(out)

    def release_variables(self) -> None:
        super().release_variables()
        self.inner = None
        self.inputs = (None,) * len(self.inputs)


class ConvolutionBackward0(CompositeBackward):
    pass


class MultiMarginLossBackward0(CompositeBackward):
    pass


class MultilabelMarginLossBackward0(CompositeBackward):
    pass


class BoundaryBackward(Node):
    """The identity between an input and the alias a composition reads (see above)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (grads[0],)


def _boundaries(inputs: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
    """The inputs the composition reads: a fresh alias for each one that needs a gradient."""
    out: list[Tensor | None] = []
    for t in inputs:
        if t is not None and needs_grad(t):
            alias = Tensor._make(t._storage, t._sizes, t._strides, t._offset)
            record(BoundaryBackward(), (t,), (alias,))
            t = alias
        out.append(t)
    return tuple(out)


def one_node(node_type: type[CompositeBackward], compute: Callable[..., Tensor], inputs: tuple[Tensor | None, ...],
             saved: tuple[Tensor | None, ...] = ()) -> Tensor:
    """``compute(*inputs)``, recorded as one ``node_type`` over ``inputs`` when a gradient is
    needed."""
    if not needs_grad(*inputs):
        return compute(*inputs)
    boundaries = _boundaries(inputs)
    inner = compute(*boundaries)
    out = from_result(array_of(inner), inner.dtype)
    node = node_type(inner, boundaries)
    record(node, inputs, (out,))
    node.save(*saved)
    return out


def convolution(compute: Callable[[Tensor, Tensor, Tensor | None], Tensor], input: Tensor, weight: Tensor,
                bias: Tensor | None) -> Tensor:
    """``compute(input, weight, bias)``, recorded as one ``ConvolutionBackward0`` when a
    gradient is needed (an unbatched input is computed as a batch of one, then squeezed, as
    PyTorch)."""
    if not needs_grad(input, weight, bias):
        return compute(input, weight, bias)
    boundaries = _boundaries((input, weight, bias))
    inner = compute(*boundaries)  # type: ignore[arg-type]  # (its checks see the caller's shapes)
    batched = input.ndim != weight.ndim - 1
    x = input if batched else input.unsqueeze(0)  # type: ignore[attr-defined]
    out = from_result(array_of(inner) if batched else array_of(inner)[None], inner.dtype)
    node = ConvolutionBackward0(inner, boundaries, batched)
    record(node, (x, weight, bias), (out,))
    node.save(x, weight)
    return out if batched else out.squeeze(0)  # type: ignore[attr-defined,no-any-return]
