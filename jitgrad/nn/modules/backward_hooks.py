"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook``: PyTorch's
mechanism, step by step.

A module call with such hooks passes its tensor arguments through one identity Function
(``BackwardHookFunction``, PyTorch's node name ``BackwardHookFunctionBackward``) before
``forward`` and its tensor outputs through another after. In the backward, the outputs'
identity node sees the gradients of the module's outputs first: a node hook there stores
them (after the pre hooks may replace them); the inputs' identity node then sees the
gradients of the module's inputs, and a node hook there calls the user hooks with
``(module, grad_input, grad_output)``, non-tensor positions filled with ``None``; what a
hook returns replaces ``grad_input``. When no input requires grad, the hooks fire at the
outputs' node with ``grad_input`` all ``None`` (and a warning, as PyTorch).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from ...autograd import is_grad_enabled
from ...autograd.function import Function
from ...tensor import Tensor


class BackwardHookFunction(Function):
    """The identity on any number of tensors; the ones not requiring grad stay constants."""

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple[Tensor, ...]:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        return grads


def _spread(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple[Any, ...]:
    out: list[Any] = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


def _run(hooks: list[Any], call: Any, grads: tuple[Any, ...], who: str, what: str) -> tuple[Any, ...]:
    """Each hook in turn; one returning a tuple replaces the gradients (as many)."""
    for hook in hooks:
        replaced = call(hook, grads)
        if replaced is None:
            continue
        if len(replaced) != len(grads):
            raise RuntimeError(f"{who} returned an invalid number of {what}, got {len(replaced)}, "
                               f"but expected {len(grads)}")
        grads = replaced
    return grads


class BackwardHook:
    """One module call's bookkeeping between its outputs' and its inputs' identity nodes."""

    def __init__(self, module: Any, hooks: list[Any], pre_hooks: list[Any]) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = self.n_outputs = -1
        self.input_index: list[int] | None = None
        self.output_index: list[int] | None = None

    def _wrap(self, args: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[int] | None, Any]:
        """``args`` with its tensors replaced by their identity's outputs, the tensors'
        positions and the identity node (positions and node None when nothing needs grad)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None, None
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None)
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return tuple(out), index, node

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        args, self.input_index, node = self._wrap(args)
        self.n_inputs = len(args)
        if node is not None:
            node.register_hook(self._on_inputs)
        return args

    def setup_output_hook(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        outputs, self.output_index, node = self._wrap((result,) if single else result)
        self.n_outputs = len(outputs)
        if node is not None:
            node.register_hook(self._on_outputs)
        return outputs[0] if single else outputs

    def _on_outputs(self, _: Any, grad_outputs: tuple[Any, ...]) -> tuple[Any, ...] | None:
        assert self.output_index is not None
        grads = _run(self.pre_hooks, lambda hook, g: hook(self.module, g),
                     _spread(self.output_index, grad_outputs, self.n_outputs), "Backward pre hook", "grad_output")
        self.grad_outputs = grads
        if self.input_index is None:  # no input needs grad: the hooks fire here
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                          "outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.", stacklevel=5)
            nothing = (None,) * self.n_inputs
            for hook in self.hooks:
                res = hook(self.module, nothing, grads)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(grads[i] for i in self.output_index)

    def _on_inputs(self, grad_inputs: tuple[Any, ...], _: Any) -> tuple[Any, ...] | None:
        if self.grad_outputs is None:  # reached without passing through the outputs (double backward)
            return None
        assert self.input_index is not None
        grad_outputs = self.grad_outputs
        grads = _run(self.hooks, lambda hook, g: hook(self.module, g, grad_outputs),
                     _spread(self.input_index, grad_inputs, self.n_inputs), "Backward hook", "grad_input")
        self.grad_outputs = None
        return tuple(grads[i] for i in self.input_index)
