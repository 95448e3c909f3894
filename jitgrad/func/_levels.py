"""One level of a function transform (``grad``, ``vjp``, ``jacrev``...), built on jitgrad's
autograd: the differentiated arguments enter as fresh tensors requiring grad (``enter``),
everything is computed with ``create_graph=True`` so that transforms nest and results stay
differentiable for an outer ``backward``, and results leave the level (``leave``) detached
unless they depend on something outside it — an outer transform's variable, or a tensor
requiring grad the function captured — as PyTorch's ``torch.func`` results do."""

from __future__ import annotations

from typing import Any, Sequence

from .. import autograd
from ..autograd import node as _node
from ..autograd.graph import AccumulateGrad
from ..creation import zeros_like
from ..tensor import Tensor
from . import _pytree


class Level:
    """The tensors one transform made and the point in the graph where it started."""

    def __init__(self) -> None:
        self.start = _node._next_sequence_nr()
        self.private: set[int] = set()

    def enter(self, x: Any, fn_name: str) -> Tensor:
        """``x`` as this level's variable: an alias (a view) of ``x`` when ``x`` already
        requires grad (an outer level's variable: its graph continues), else a detached
        alias made to require grad (private to this level)."""
        if not isinstance(x, Tensor):
            raise TypeError(
                f"{fn_name}: expected the arguments being differentiated to be Tensors, "
                f"got {type(x).__name__}"
            )
        if not (x.dtype.kind == "f"):
            raise RuntimeError(
                f"{fn_name}: only Tensors of floating point dtype can be differentiated, got {x.dtype}"
            )
        if x.requires_grad:
            return x.view_as(x)  # type: ignore[attr-defined,no-any-return]
        inner = x.detach().requires_grad_()  # type: ignore[attr-defined]
        self.private.add(id(inner))
        return inner  # type: ignore[no-any-return]

    def leave(self, tree: Any) -> Any:
        """``tree`` with each tensor detached unless its graph reaches outside this level."""
        return _pytree.tree_map(lambda t: t if not isinstance(t, Tensor) or self.reaches_outside(t)
                                else t.detach(), tree)

    def reaches_outside(self, t: Tensor) -> bool:
        fn = t.grad_fn
        if fn is None:
            return t.requires_grad and id(t) not in self.private  # (an outer leaf itself)
        seen: set[int] = set()
        stack = [fn]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in self.private:
                    return True
                continue
            if node.sequence_nr < self.start:
                return True
            stack.extend(node._next)
        return False


def grads_of(outputs: Sequence[Tensor], inputs: Sequence[Tensor], cotangents: Sequence[Any] | None
             ) -> list[Tensor]:
    """``autograd.grad`` with ``create_graph=True`` (the graph kept: an outer level may
    differentiate through it); inputs the outputs do not depend on get zeros (``torch.func``
    never returns None)."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs)) if o.requires_grad]
    if not pairs:
        return [zeros_like(x) for x in inputs]
    got = autograd.grad([o for o, _ in pairs], list(inputs),
                        grad_outputs=None if cotangents is None else [c for _, c in pairs],
                        retain_graph=True, create_graph=True, allow_unused=True)
    return [zeros_like(x) if g is None else g for g, x in zip(got, inputs)]
