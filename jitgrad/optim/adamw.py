"""``AdamW``: Adam with decoupled weight decay, as ``torch.optim.AdamW``."""

from __future__ import annotations

from .adam import Adam
from .optimizer import ParamsT


class AdamW(Adam):
    """Adam whose ``weight_decay`` shrinks the parameter directly, ``p *= 1 - lr * wd``,
    before the Adam step, instead of adding ``wd * p`` to the gradient (PyTorch's AdamW:
    Adam with ``decoupled_weight_decay=True``)."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
