"""In-place random fills: ``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_`` and
``random_``, drawn from jitgrad's generator (``jitgrad.manual_seed`` seeds it; the numbers
are not PyTorch's).

Each is an in-place write like ``fill_``: it bumps the version counter, is refused on a leaf
that requires grad (outside ``no_grad``), rebases a view's base onto ``CopySlices``, and its
node gives the old values a zero gradient (PyTorch's ``UniformBackward0`` and friends).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import copying, dtypes, randomness
from ..tensor import Tensor
from .inplace import inplace_write
from .assignment import FillBackward2


class UniformBackward0(FillBackward2):
    pass


class NormalBackward0(FillBackward2):
    pass


class BernoulliBackward1(FillBackward2):
    """``bernoulli_(p_tensor)`` (``p`` gets no gradient: it is not an input of the node)."""


class BernoulliBackward2(FillBackward2):
    pass


class ExponentialBackward0(FillBackward2):
    pass


class RandomBackward0(FillBackward2):
    """``random_(from, to)``."""


class RandomBackward1(FillBackward2):
    """``random_(to)``."""


class RandomBackward2(FillBackward2):
    """``random_()``."""


def _write(op: str, self: Tensor, draw: Callable[[np.random.Generator, int], np.ndarray],
           node: type[FillBackward2], generator: Any) -> Tensor:
    rng = randomness._rng(op, generator)

    def write() -> None:
        values = np.asarray(draw(rng, self.numel())).astype(self.dtype)  # type: ignore[attr-defined]
        copying.copy_into(self, Tensor._from_buffer(values, self._sizes), op)

    return inplace_write(op, self, (self,), write, node, order_dependent=True, write_bumps=True)


def _floating(op: str, self: Tensor, kernel: str) -> None:
    if self.dtype not in dtypes.FLOATING:
        raise NotImplementedError(f'{op}(): "{kernel}" not implemented for {self.dtype.name} '
                                  "(a floating dtype is needed)")


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None,
             **kwargs: Any) -> Tensor:
    """Fill with draws from U[from, to) (PyTorch's keyword ``from`` is accepted too)."""
    from_ = kwargs.pop("from", from_)
    _no_extra("uniform_", kwargs)
    _floating("uniform_", self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return _write("uniform_", self, lambda rng, n: rng.uniform(from_, to, n), UniformBackward0, generator)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with draws from N(mean, std^2)."""
    _floating("normal_", self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal_ expects std >= 0.0, but found std {std}")
    return _write("normal_", self, lambda rng, n: rng.normal(mean, std, n), NormalBackward0, generator)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 1 (probability ``p``, a number or a tensor broadcastable to ``self``) or 0."""
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._numpy(), tuple(self.shape)).reshape(-1)
        if probs.size and (np.any(probs < 0) or np.any(probs > 1) or np.any(np.isnan(probs))):
            raise RuntimeError("bernoulli_ expects all elements of p to be in [0, 1]")
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        probs = p
    node = BernoulliBackward1 if isinstance(p, Tensor) else BernoulliBackward2
    return _write("bernoulli_", self, lambda rng, n: rng.random(n) < probs, node, generator)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with draws from the exponential distribution of rate ``lambd``."""
    if self.dtype not in dtypes.FLOATING:
        raise RuntimeError("exponential_(): Exponential distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified {self.dtype.name}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _write("exponential_", self, lambda rng, n: rng.exponential(1.0 / lambd, n),
                  ExponentialBackward0, generator)


_RANDOM_TOP = {dtypes.float16: 2**11, dtypes.float32: 2**24, dtypes.float64: 2**53, dtypes.bool_: 2}


def random_(self: Tensor, from_: int | None = None, to: int | None = None, *,
            generator: Any = None, **kwargs: Any) -> Tensor:
    """Fill with integers: ``random_(to)`` in ``[0, to)``, ``random_(from, to)`` in
    ``[from, to)``, ``random_()`` in ``[0, 2^mantissa]`` for floats (``[0, max]`` for ints)."""
    from_ = kwargs.pop("from", from_)
    _no_extra("random_", kwargs)
    node: type[FillBackward2] = RandomBackward0
    if to is None and from_ is not None:  # random_(to)
        low, high, node = 0, int(from_), RandomBackward1
    elif to is None:
        node = RandomBackward2
        top = _RANDOM_TOP.get(self.dtype)
        low, high = 0, (top if self.dtype == dtypes.bool_ else top + 1) if top is not None \
            else int(np.iinfo(self.dtype).max) + 1
    else:
        low, high = int(from_ or 0), int(to)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _write("random_", self, lambda rng, n: rng.integers(low, high, n), node, generator)


def _no_extra(op: str, kwargs: dict[str, Any]) -> None:
    if kwargs:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")


class BernoulliBackward0(FillBackward2):
    """``bernoulli(input)``: the draws are piecewise constant in ``input``: zero gradient."""


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """A new tensor of ``input``'s shape and dtype: 1 with probability ``input`` (elementwise)
    or ``p``, else 0. ``bernoulli(input)`` gives ``input`` a zero gradient (PyTorch's
    ``BernoulliBackward0``); with ``p`` the derivative is not implemented, as in PyTorch."""
    from ..autograd.grad_mode import no_grad
    from ..autograd.graph import needs_grad, record
    from ..creation import empty
    from .gather_scatter import NotImplementedBackward

    if p is None and input.dtype not in dtypes.FLOATING:
        raise RuntimeError(f'bernoulli(): "bernoulli_tensor_cpu_p_" not implemented for '
                           f"{input.dtype.name} (probabilities need a floating dtype)")
    with no_grad():
        out = empty(*input._sizes, dtype=input.dtype)
        bernoulli_(out, input if p is None else p, generator=generator)
    if needs_grad(input):
        record(BernoulliBackward0() if p is None else NotImplementedBackward("bernoulli"),
               (input,), (out,))
    return out


class LogNormalBackward0(FillBackward2):
    pass


class CauchyBackward0(FillBackward2):
    pass


class GeometricBackward0(FillBackward2):
    pass


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fill with ``exp`` of draws from N(mean, std^2)."""
    _floating("log_normal_", self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _write("log_normal_", self, lambda rng, n: rng.lognormal(mean, std, n), LogNormalBackward0, generator)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with draws from the Cauchy distribution (location ``median``, scale ``sigma``)."""
    _floating("cauchy_", self, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _write("cauchy_", self, lambda rng, n: median + sigma * rng.standard_cauchy(n), CauchyBackward0, generator)


def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _write("geometric_", self, lambda rng, n: rng.geometric(p, n), GeometricBackward0, generator)
