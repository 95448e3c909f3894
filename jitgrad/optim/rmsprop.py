"""``RMSprop`` (optionally centered, with momentum): ``torch.optim.RMSprop``'s single-tensor
(``foreach=False``) update, in the same order of floating-point operations."""

from __future__ import annotations

from typing import Any

from ..creation import tensor, zeros_like
from ..tensor import Tensor
from .adam import _lerp_
from .optimizer import Optimizer, ParamsT, _get_scalar_dtype, with_flags


class RMSprop(Optimizer):
    """``v = alpha * v + (1 - alpha) * g * g``; centered: ``v - lerp-average(g)^2``; update
    ``p -= lr * g / (sqrt(v) + eps)``, through a momentum buffer when ``momentum > 0``.
    ``weight_decay`` adds ``wd * p`` to ``g``."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
                    "momentum": momentum, "centered": centered, "maximize": maximize}
        super().__init__(params, with_flags(defaults, capturable=capturable, foreach=foreach,
                                            differentiable=differentiable))

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = self.state[param]
        if not state:
            state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
            state["square_avg"] = zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        return state

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self._init_state(param, group)
        alpha, lr = group["alpha"], group["lr"]
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        # PyTorch's addcmul_ computes self + (value * t1) * t2.
        square_avg.mul_(alpha).add_(grad.mul(1 - alpha).mul(grad))
        if group["centered"]:
            grad_avg = state["grad_avg"]
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = square_avg.add(grad_avg.mul(-1).mul(grad_avg)).sqrt()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).add_(grad.div(avg))
            param.add_(buf, alpha=-lr)
        else:
            # PyTorch's addcdiv_ computes self + (value * t1) / t2.
            param.add_(grad.mul(-lr).div(avg))
