"""``AdamW``: Adam with decoupled weight decay, as ``torch.optim.AdamW``."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .adam import Adam
from .optimizer import ParamsT


class AdamW(Adam):
    """Adam whose ``weight_decay`` shrinks the parameter directly, ``p *= 1 - lr * wd``,
    before the Adam step, instead of adding ``wd * p`` to the gradient."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        if group["weight_decay"] != 0:
            param.mul_(1 - group["lr"] * group["weight_decay"])  # type: ignore[attr-defined]
        super()._update(param, grad, {**group, "weight_decay": 0})
