"""``SGD``: stochastic gradient descent with optional momentum, dampening, Nesterov and
weight decay: ``torch.optim.SGD``'s single-tensor (``foreach=False``) update, step for step."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, with_flags


class SGD(Optimizer):
    """``p -= lr * d`` where ``d`` is the gradient (plus ``weight_decay * p``), or, with
    momentum, the buffer ``b = momentum * b + (1 - dampening) * g`` (``g + momentum * b``
    with Nesterov). The first step sets ``b = g`` without dampening, as PyTorch does."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize}
        super().__init__(params, with_flags(defaults, foreach=foreach, differentiable=differentiable, fused=fused))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        momentum, weight_decay = group["momentum"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            state = self.state[param]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-group["lr"])
