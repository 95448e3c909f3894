"""``Adagrad``: ``torch.optim.Adagrad``'s single-tensor (``foreach=False``) update, in the
same order of floating-point operations; state is made in the constructor, as PyTorch's."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..creation import full_like, tensor
from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, _get_scalar_dtype, with_flags


class Adagrad(Optimizer):
    """``sum += g * g``; ``p -= clr * g / (sqrt(sum) + eps)`` with
    ``clr = lr / (1 + (step - 1) * lr_decay)``; ``weight_decay`` adds ``wd * p`` to ``g``."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "maximize": maximize}
        super().__init__(params, with_flags(defaults, foreach=foreach, differentiable=differentiable, fused=fused))
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    state = self.state[p]
                    state["step"] = tensor(0.0, dtype=_get_scalar_dtype(group.get("fused")))
                    state["sum"] = full_like(p, initial_accumulator_value)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        state["step"].add_(1)
        step = state["step"].item()
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].add_(grad.mul(grad))
        std = state["sum"].sqrt().add_(group["eps"])
        # PyTorch's addcdiv_ computes self + (value * t1) / t2.
        param.add_(grad.mul(-clr).div(std))
