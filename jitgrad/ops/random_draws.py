"""Random tensors drawn from parameters: ``normal`` (each of PyTorch's four forms),
``poisson`` and ``multinomial``, from jitgrad's generator (the numbers are not PyTorch's).
The draws are piecewise constant in their parameters, so the parameters get zero
gradients, through PyTorch's node names (``NormalBackward1``..``3``, ``PoissonBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation, dtypes, randomness
from ..autograd.graph import needs_grad, record
from ..autograd.node import Node
from ..geometry.broadcast import broadcast_shapes
from ..tensor import Tensor


class _ZeroGradients(Node):
    """Every tensor parameter gets zeros of its shape."""

    def __init__(self, inputs: tuple[Tensor, ...]) -> None:
        super().__init__()
        self._shapes = [(t._sizes, t.dtype) for t in inputs]

    def apply(self, grads: Any) -> tuple[Tensor | None, ...]:
        return tuple(creation.zeros(*shape, dtype=dtype) for shape, dtype in self._shapes)


class NormalBackward1(_ZeroGradients):
    """``normal(mean_tensor, std_number)``."""


class NormalBackward2(_ZeroGradients):
    """``normal(mean_number, std_tensor)``."""


class NormalBackward3(_ZeroGradients):
    """``normal(mean_tensor, std_tensor)``."""


class PoissonBackward0(_ZeroGradients):
    pass


def _finish(values: np.ndarray, dtype: Any, inputs: tuple[Tensor, ...], node: type[_ZeroGradients]) -> Tensor:
    out = Tensor._from_buffer(np.ascontiguousarray(values, dtype=dtype).reshape(-1), tuple(values.shape))
    if any(needs_grad(t) for t in inputs):
        record(node(inputs), inputs, (out,))
    return out


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           out: Any = None, **kwargs: Any) -> Tensor:
    """Draws from N(mean, std^2): ``mean`` and/or ``std`` tensors (broadcast together), or
    two numbers and a ``size`` (then ``dtype`` and the factory keywords apply)."""
    if out is not None:
        raise TypeError("normal(): out= is not supported by jitgrad")
    rng = randomness._rng("normal", generator)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mean_t or std_t):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: two numbers need a size")
        _check_std(std)
        target = dtypes.DEFAULT_FLOAT if dtype is None else dtypes.to_dtype(dtype, "normal")
        shape = tuple(size) if not isinstance(size, int) else (size,)
        return creation.tensor(rng.normal(float(mean), float(std), shape), dtype=target, **kwargs)
    if std_t:
        s = std._numpy()
        if s.size and np.min(s) < 0:
            raise RuntimeError(f"normal expects all elements of std >= 0.0, found {np.min(s)}")
    else:
        _check_std(std)
    m = mean._numpy() if mean_t else np.asarray(mean)
    s = std._numpy() if std_t else np.asarray(std)
    shape = broadcast_shapes(m.shape, s.shape)
    dtype_out = mean.dtype if mean_t else std.dtype
    values = m + s * rng.standard_normal(shape)
    if mean_t and std_t:
        return _finish(values, dtype_out, (mean, std), NormalBackward3)
    return _finish(values, dtype_out, (mean,) if mean_t else (std,), NormalBackward1 if mean_t else NormalBackward2)


def _check_std(std: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Poisson draws with the rates in ``input`` (same shape and dtype)."""
    rates = input._numpy()
    if rates.size and np.min(rates) < 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    values = randomness._rng("poisson", generator).poisson(rates).astype(input.dtype)
    return _finish(values, input.dtype, (input,), PoissonBackward0)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``num_samples`` category indices per row of non-negative weights ``input`` (1-D or
    2-D), with or without replacement; int64, no gradient."""
    w = input._numpy().astype(np.float64)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got {input.ndim}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = w.reshape(-1, w.shape[-1])
    if np.any(rows.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = randomness._rng("multinomial", generator)
    picks = [rng.choice(row.size, num_samples, replace=replacement, p=row / row.sum()) for row in rows]
    values = np.stack(picks).reshape(w.shape[:-1] + (num_samples,)).astype(np.int64)
    return Tensor._from_buffer(np.ascontiguousarray(values).reshape(-1), tuple(values.shape))
