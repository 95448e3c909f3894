"""``Adam`` (optionally AMSGrad): ``torch.optim.Adam``'s single-tensor (``foreach=False``)
update, in the same order of floating-point operations."""

from __future__ import annotations

from typing import Any

from ..creation import tensor, zeros_like
from ..ops.elementwise import maximum
from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, _get_scalar_dtype, with_flags


class Adam(Optimizer):
    """Moments ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``; update
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``, with ``v``
    replaced by its running maximum under AMSGrad. ``weight_decay`` adds ``wd * p`` to ``g``
    (L2), or with ``decoupled_weight_decay`` shrinks ``p *= 1 - lr * wd`` first (AdamW)."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = with_flags(
            {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
             "maximize": maximize}, foreach=foreach, capturable=capturable, differentiable=differentiable,
            fused=fused)
        defaults["decoupled_weight_decay"] = decoupled_weight_decay
        super().__init__(params, defaults)

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = self.state[param]
        if not state:
            # a 0-d tensor of PyTorch's scalar dtype (state_dict parity)
            state["step"] = tensor(0.0, dtype=_get_scalar_dtype(group.get("fused")))
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        return state

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        state = self._init_state(param, group)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            if group.get("decoupled_weight_decay"):
                param.mul_(1 - group["lr"] * group["weight_decay"])  # type: ignore[attr-defined]
            else:
                grad = grad.add(param, alpha=group["weight_decay"])

        _lerp_(exp_avg, grad, 1 - beta1)
        # PyTorch's addcmul_ computes self + (value * t1) * t2.
        exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad))

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = group["lr"] / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(maximum(state["max_exp_avg_sq"], exp_avg_sq))
            second = state["max_exp_avg_sq"]
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / bias_correction2_sqrt).add_(group["eps"])
        # PyTorch's addcdiv_ computes self + (value * t1) / t2.
        param.add_(exp_avg.mul(-step_size).div(denom))


def _lerp_(start: Tensor, end: Tensor, weight: float) -> None:
    """``start.lerp_(end, weight)`` with PyTorch's two formulas (exact at both ends)."""
    if abs(weight) < 0.5:
        start.add_((end - start).mul(weight))
    else:
        start.copy_(end - (end - start).mul(1 - weight))


def check_adam_args(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    """The Adam family's argument checks (PyTorch's messages)."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
