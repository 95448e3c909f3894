"""``Adamax``, ``NAdam`` and ``RAdam``: ``torch.optim``'s single-tensor (``foreach=False``)
updates, in the same order of floating-point operations. Their scalar state (``step``,
NAdam's ``mu_product``) is a 0-d tensor of PyTorch's scalar dtype: float64 when the default
dtype is float64, else float32 (``mu_product``'s rounding enters the update)."""

from __future__ import annotations

from typing import Any

from ..creation import tensor, zeros_like
from ..ops.elementwise import maximum
from ..tensor import Tensor
from .adam import _lerp_, check_adam_args
from .optimizer import Optimizer, ParamsT, _get_scalar_dtype, with_flags


def scalar_dtype() -> Any:
    """PyTorch's ``_get_scalar_dtype()``."""
    return _get_scalar_dtype()


def _moments(state: dict[str, Any], grad: Tensor, beta1: float, beta2: float) -> None:
    """``m = lerp(m, g, 1 - beta1)``; ``v = beta2 * v + (1 - beta2) * g * g``."""
    _lerp_(state["exp_avg"], grad, 1 - beta1)
    # PyTorch's addcmul_ computes self + (value * t1) * t2.
    state["exp_avg_sq"].mul_(beta2).add_(grad.mul(1 - beta2).mul(grad))


def begin_step(optimizer: Optimizer, param: Tensor, grad: Tensor, group: dict[str, Any],
           scalars: dict[str, float], buffers: tuple[str, ...]) -> tuple[dict[str, Any], Tensor, float]:
    """The parameter's state (made on first use: ``step`` and ``scalars`` as 0-d tensors of
    the scalar dtype, ``buffers`` as zeros like ``param``), the gradient (negated under
    ``maximize``) and the step number after counting this one."""
    state = optimizer.state[param]
    if not state:
        state["step"] = tensor(0.0, dtype=scalar_dtype())
        for name, value in scalars.items():
            state[name] = tensor(value, dtype=scalar_dtype())
        for name in buffers:
            state[name] = zeros_like(param)
    if group["maximize"]:
        grad = -grad
    state["step"].add_(1)
    return state, grad, state["step"].item()


def _decay(param: Tensor, grad: Tensor, group: dict[str, Any]) -> Tensor:
    """L2 decay added to the gradient, or (``decoupled_weight_decay``) applied to the weights."""
    wd = group["weight_decay"]
    if wd == 0:
        return grad
    if group.get("decoupled_weight_decay"):
        param.mul_(1 - group["lr"] * wd)
        return grad
    return grad.add(param, alpha=wd)


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(beta2 * u, |g| + eps)``;
    ``p -= lr / (1 - beta1**t) * m / u``."""

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, with_flags(
            {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "maximize": maximize},
            foreach=foreach, differentiable=differentiable, capturable=capturable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        state, grad, step = begin_step(self, param, grad, group, {}, ("exp_avg", "exp_inf"))
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        _lerp_(state["exp_avg"], grad, 1 - beta1)
        exp_inf = state["exp_inf"]
        exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        clr = group["lr"] / (1 - beta1**step)
        # PyTorch's addcdiv_ computes self + (value * t1) / t2.
        param.add_(state["exp_avg"].mul(-clr).div(exp_inf))


class NAdam(Optimizer):
    """Adam with Nesterov momentum and the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``."""

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, with_flags(
            {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
             "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize},
            foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        state, grad, step = begin_step(self, param, grad, group, {"mu_product": 1.0}, ("exp_avg", "exp_avg_sq"))
        bias_correction2 = 1 - beta2**step
        grad = _decay(param, grad, group)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        state["mu_product"].mul_(mu)
        _moments(state, grad, beta1, beta2)
        denom = state["exp_avg_sq"].div(bias_correction2).sqrt()
        mu_product = state["mu_product"].item()
        mu_product_next = mu_product * mu_next
        denom.add_(group["eps"])
        param.add_(grad.mul(-lr * (1.0 - mu) / (1.0 - mu_product)).div(denom))
        param.add_(state["exp_avg"].mul((-lr * mu_next) / (1.0 - mu_product_next)).div(denom))


class RAdam(Optimizer):
    """Adam with the variance of the adaptive learning rate rectified (plain momentum SGD
    while ``rho_t <= 5``)."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, with_flags(
            {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
             "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize},
            foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        state, grad, step = begin_step(self, param, grad, group, {}, ("exp_avg", "exp_avg_sq"))
        grad = _decay(param, grad, group)
        _moments(state, grad, beta1, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = state["exp_avg"] / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2**0.5) / state["exp_avg_sq"].sqrt().add_(group["eps"])
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)
