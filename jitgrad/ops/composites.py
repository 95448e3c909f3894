"""Functions PyTorch composes from other ops (ATen's ``CompositeImplicitAutograd``), written
the same way here so values and gradients follow: ``trapezoid``, ``cumulative_trapezoid``,
``cartesian_prod``, ``block_diag``, ``cov``, ``corrcoef``, ``dist``, ``float_power``."""

from __future__ import annotations

import warnings
from typing import Any

from .. import creation, dtypes
from ..autograd.grad_mode import no_grad
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, Node, SavingNode
from ..geometry.strided import wrap_dim
from ..tensor import Tensor


class MulBackward1(Node):
    """Backward of a tensor times a number inside a composite (PyTorch's ``mul.Scalar``, one
    edge; from Python a number is wrapped as a tensor: ``MulBackward0``)."""

    def __init__(self, other: Any) -> None:
        super().__init__()
        self._saved_other = other

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (grads[0] * self._saved_other,)  # type: ignore[operator]


class DivBackward1(Node):
    """Backward of a tensor divided by a number inside a composite (``div.Scalar``)."""

    def __init__(self, other: Any) -> None:
        super().__init__()
        self._saved_other = other

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (grads[0] / self._saved_other,)  # type: ignore[operator]


class AddBackward1(Node):
    """Backward of a tensor plus a number inside a composite (``add.Scalar``, one edge)."""

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        return (grads[0],)


_BY_NUMBER = {MulBackward1: lambda t, n: t * n, DivBackward1: lambda t, n: t / n, AddBackward1: lambda t, n: t + n}


def _by_number(node: type[Node], t: Tensor, number: Any) -> Tensor:
    with no_grad():
        out = _BY_NUMBER[node](t, number)
    if needs_grad(t):
        record(node() if node is AddBackward1 else node(number), (t,), (out,))  # type: ignore[call-arg]
    return out  # type: ignore[no-any-return]


def scaled(t: Tensor, number: Any) -> Tensor:
    """``t * number`` recorded as PyTorch's C++ composites record it (``MulBackward1``)."""
    return _by_number(MulBackward1, t, number)


def divided(t: Tensor, number: Any) -> Tensor:
    """``t / number`` recorded as PyTorch's C++ composites record it (``DivBackward1``)."""
    return _by_number(DivBackward1, t, number)


def shifted(t: Tensor, number: Any) -> Tensor:
    """``t + number`` recorded as PyTorch's C++ composites record it (``AddBackward1``)."""
    return _by_number(AddBackward1, t, number)


def _number(value: Any) -> Any:
    """A spacing given as a number (a 0-d tensor read as one, as PyTorch's Scalar)."""
    return value.item() if isinstance(value, Tensor) else value  # type: ignore[attr-defined]


def _sample_points(op: str, x: Tensor, y: Tensor, dim: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``dim``, ``x`` seen with ``y``'s dims (a 1-D ``x`` along
    ``dim``, a shorter one with leading dims of size 1), as PyTorch's."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = x.view(shape)  # type: ignore[attr-defined]
    elif x.ndim < y.ndim:
        x = x.view([1] * (y.ndim - x.ndim) + list(x.shape))  # type: ignore[attr-defined]
    left, right = _halves(x, dim)
    return right - left


def _halves(y: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    n = y.shape[dim]  # (y[:-1] and y[1:]: both empty when y is)
    return y.narrow(dim, 0, max(n - 1, 0)), y.narrow(dim, min(n, 1), max(n - 1, 0))  # type: ignore[attr-defined]


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: with sample points ``x``, or a spacing ``dx``
    (default 1); recorded as PyTorch's (``MulBackward1``/``DivBackward1`` for the numbers)."""
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"trapezoid(): argument 'x' must be a Tensor (a spacing goes in dx=), got {type(x).__name__}")
    d = wrap_dim(dim, y.ndim, wrap_scalar=False)
    if y.shape[d] == 0:  # (PyTorch: zeros, no history)
        with no_grad():
            return creation.zeros_like(y.sum(d))  # type: ignore[attr-defined]
    if isinstance(x, Tensor):
        left, right = _halves(y, d)
        return _by_number(DivBackward1, ((left + right) * _sample_points("trapezoid", x, y, d)).sum(d), 2.0)  # type: ignore[attr-defined]
    ends = _by_number(MulBackward1, y.select(d, 0) + y.select(d, -1), 0.5)  # type: ignore[attr-defined]
    return _by_number(MulBackward1, y.sum(d) - ends, 1.0 if dx is None else _number(dx))  # type: ignore[attr-defined]


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y``)."""
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(
            f"cumulative_trapezoid(): argument 'x' must be a Tensor (a spacing goes in dx=), got {type(x).__name__}")
    d = wrap_dim(dim, y.ndim, wrap_scalar=False)
    left, right = _halves(y, d)
    if isinstance(x, Tensor):
        spacing = _sample_points("cumulative_trapezoid", x, y, d)
        return _by_number(DivBackward1, ((left + right) * spacing).cumsum(d), 2.0)  # type: ignore[attr-defined]
    step = 1.0 if dx is None else _number(dx)
    return _by_number(MulBackward1, left + right, step / 2.0).cumsum(d)  # type: ignore[no-any-return]


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """All tuples of one element of each 1-D tensor, as rows (``meshgrid`` + ``stack``)."""
    from .meshgrid import meshgrid

    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    from .stacking import stack

    return stack([g.flatten() for g in grids], 1)  # type: ignore[attr-defined]


class BlockDiagBackward0(Node):
    """Backward of ``block_diag``: each input's block of the gradient, in its shape."""

    def __init__(self, places: list[tuple[int, int, int, int, tuple[int, ...]]]) -> None:
        super().__init__()
        self.places = places  # per input: row, column, rows, columns, its sizes

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        g = grads[0]
        return tuple(g[r:r + n, c:c + m].reshape(sizes) if self.needs_input_grad(i) else None  # type: ignore[index]
                     for i, (r, c, n, m, sizes) in enumerate(self.places))


def block_diag(*tensors: Tensor) -> Tensor:
    """The blocks (0-d and 1-D ones as one row) along the diagonal of a zero matrix
    (``BlockDiagBackward0``, as PyTorch; the result is new memory, at version 0)."""
    with no_grad():
        blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]  # type: ignore[attr-defined]
    for i, t in enumerate(blocks):
        if t.ndim != 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
    from .operands import array_of, result_type

    dtype = result_type(*blocks) if blocks else dtypes.DEFAULT_FLOAT
    rows, cols = sum(t.shape[0] for t in blocks), sum(t.shape[1] for t in blocks)
    out = creation.zeros(rows, cols, dtype=dtype)
    values = array_of(out)
    places = []
    r = c = 0
    for t, block in zip(tensors, blocks):
        n, m = block._sizes
        values[r:r + n, c:c + m] = block._numpy()
        places.append((r, c, n, m, t._sizes))
        r, c = r + n, c + m
    if needs_grad(*tensors):
        record(BlockDiagBackward0(places), tensors, (out,))
    return out


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance of the rows (variables) over the columns (observations), ATen's
    formula with frequency and observation weights."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input  # type: ignore[attr-defined]
    n = x.shape[1]
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else creation.tensor(float(n), dtype=x.dtype)  # type: ignore[attr-defined]
    avg = (x * w if w is not None else x).sum(1) / w_sum  # type: ignore[attr-defined]
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum  # type: ignore[attr-defined]
    else:
        norm = w_sum - correction
    if (norm.item() if isinstance(norm, Tensor) else norm) <= 0:  # (float() would warn: grad)
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "number of observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    x = x - avg.unsqueeze(1)  # type: ignore[attr-defined]
    c = x.matmul((x * w if w is not None else x).t())  # type: ignore[attr-defined]
    return (c / norm).squeeze()  # type: ignore[no-any-return]


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c  # type: ignore[no-any-return]
    stddev = c.diagonal().sqrt()  # type: ignore[attr-defined]
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return c.clip(-1, 1)  # type: ignore[attr-defined,no-any-return]


class DistBackward0(SavingNode):
    """Backward of ``dist``: the ``p``-norm's gradient at ``input - other``, to ``input``
    and negated to ``other`` (the engine sums it back over broadcast dims)."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        from .elementwise import neg, sub
        from .norms import vector_norm_backward

        x, y, result = self.unpack()
        d = sub(x, y)
        g = vector_norm_backward(grads[0], d, result, self.p, tuple(range(d.ndim)), False)  # type: ignore[arg-type]
        if g is None:
            return (None, None)
        return (g if self.needs_input_grad(0) else None, neg(g) if self.needs_input_grad(1) else None)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), recorded as ``DistBackward0``."""
    from .norms import as_ord, vector_norm

    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    with no_grad():
        out = vector_norm(input - other, p)
    if needs_grad(input, other):
        node = DistBackward0(as_ord("dist", p))
        record(node, (input, other), (out,))
        node.save(input, other, out, outputs=(out,))
    return out


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``float_power``: ``pow_`` of a float64 ``self`` (any other dtype is refused,
    the result being float64), the exponent taken in float64."""
    from .power import pow_

    dtype = self._storage.buffer.dtype
    if dtype != dtypes.float64:
        names = {"float32": "Float", "float16": "Half"}
        raise RuntimeError(f"the base given to float_power_ has dtype {names.get(dtype.name, dtype.name)} "
                           "but the operation's result requires dtype Double")
    return pow_(self, exponent.to(dtypes.float64) if isinstance(exponent, Tensor) else float(exponent))  # type: ignore[attr-defined]


def float_power(input: Any, exponent: Any) -> Tensor:
    """``pow`` in float64 (both sides converted first)."""
    from .power import pow as _pow

    base = input.to(dtypes.float64) if isinstance(input, Tensor) else float(input)
    exp = exponent.to(dtypes.float64) if isinstance(exponent, Tensor) else float(exponent)
    return _pow(base, exp)  # type: ignore[no-any-return]
