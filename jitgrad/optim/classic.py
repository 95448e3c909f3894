"""``Adadelta``, ``Rprop`` and ``ASGD``: ``torch.optim``'s single-tensor (``foreach=False``)
updates, in the same order of floating-point operations (scalar state in PyTorch's scalar
dtype, see ``adam_variants.scalar_dtype``: ASGD's ``eta`` and ``mu`` are read back from it)."""

from __future__ import annotations

from typing import Any

from ..creation import full_like, tensor, zeros_like
from ..tensor import Tensor
from .adam_variants import begin_step, scalar_dtype
from .optimizer import Optimizer, ParamsT, with_flags


class Adadelta(Optimizer):
    """``v = rho v + (1 - rho) g^2``; ``d = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho u + (1 - rho) d^2``; ``p -= lr * d``."""

    def __init__(self, params: ParamsT, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, with_flags(
            {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize},
            foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        state, grad, _ = begin_step(self, param, grad, group, {}, ("square_avg", "acc_delta"))
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        # PyTorch's addcmul_ computes self + (value * t1) * t2.
        square_avg.mul_(rho).add_(grad.mul(1 - rho).mul(grad))
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).add_(delta.mul(1 - rho).mul(delta))
        param.add_(delta, alpha=-group["lr"])


class Rprop(Optimizer):
    """Resilient backpropagation: each weight's step size grows by ``etas[1]`` while its
    gradient keeps its sign and shrinks by ``etas[0]`` (skipping that update) when it flips."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, with_flags(
            {"lr": lr, "etas": tuple(etas), "step_sizes": tuple(step_sizes), "maximize": maximize},
            foreach=foreach, capturable=capturable, differentiable=differentiable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        state = self.state[param]
        if not state:
            state["step"] = tensor(0.0, dtype=scalar_dtype())
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, group["lr"])
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        sign = grad.mul(state["prev"]).sign()
        up, down, flat = sign.gt(0), sign.lt(0), sign.eq(0)
        sign[up] = etaplus
        sign[down] = etaminus
        sign[flat] = 1
        state["step_size"].mul_(sign).clamp_(low, high)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        # PyTorch's addcmul_ computes self + (value * t1) * t2.
        param.add_(grad.sign().mul(-1).mul(state["step_size"]))
        state["prev"].copy_(grad)


class ASGD(Optimizer):
    """Averaged SGD: ``p = p (1 - lambd eta) - eta g``, the average ``ax`` of the iterates
    after ``t0`` steps, ``eta = lr / (1 + lambd lr t) ** alpha``."""

    _captured = "params, mus, etas, and state_steps"

    def __init__(self, params: ParamsT, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, with_flags(
            {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "maximize": maximize},
            foreach=foreach, differentiable=differentiable, capturable=capturable))

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        lr, lambd = group["lr"], group["lambd"]
        state, grad, step = begin_step(self, param, grad, group, {"eta": lr, "mu": 1.0}, ("ax",))
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta = state["eta"].item()
        param.mul_(1 - lambd * eta)
        param.add_(grad, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        state["eta"].copy_(tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        mu.copy_(tensor(1 / max(1, step - group["t0"])))
