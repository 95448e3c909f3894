"""``local_response_norm`` (PyTorch's composition: the squares averaged over neighbouring
channels with ``avg_pool``), ``pdist`` (the distances between every pair of rows ``i < j``;
one ``PdistBackward0`` over the composition) and ``rrelu`` (leaky ReLU whose negative slope
is drawn per element from ``U(lower, upper)`` in training — jitgrad's generator — and is
their mean otherwise; ``RreluWithNoiseBackward0``) and ``gumbel_softmax`` (its noise also
from jitgrad's generator)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import creation, randomness
from ..ops import activations_more as _more
from ..ops.compare import where
from ..ops.norms import vector_norm
from ..ops.operands import array_of, from_result
from ..tensor import Tensor
from ._activations import _inplace
from ._composite import CompositeBackward, one_node
from ._padding import pad
from ._pool3d import avg_pool3d
from ._pool_functional import avg_pool2d


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``x / (k + alpha * mean of x^2 over the ``size`` channels around each one)^beta``."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)  # type: ignore[attr-defined]
    if input.ndim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)  # type: ignore[attr-defined]
    else:
        sizes = tuple(input.shape)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)  # type: ignore[attr-defined]
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)  # type: ignore[attr-defined]
        div = div.reshape(sizes)  # type: ignore[attr-defined]
    return input / (div * alpha + k) ** beta  # type: ignore[no-any-return]


class PdistBackward0(CompositeBackward):
    pass


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``||x_i - x_j||_p`` for every pair of rows ``i < j``, in row-major order of the pairs."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows_i, rows_j = np.triu_indices(input.shape[0], 1)
    return one_node(PdistBackward0, lambda input: vector_norm(input[from_result(rows_i)] - input[from_result(rows_j)],
                                                        float(p), -1), (input,), (input,))


class RreluWithNoiseBackward0(CompositeBackward):
    pass


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with slopes drawn from ``[lower, upper]`` in training, else their mean
    (``ops/activations_more.py``'s declared ``rrelu``: PyTorch's nodes, in place too). In
    training the in-place form writes with ``copy_`` (``CopyBackwards``, where PyTorch
    records ``RreluWithNoiseBackward1``)."""
    if not training:
        fn = _more.rrelu_ if inplace else _more.rrelu
        return fn(input, lower=lower, upper=upper)
    slopes = randomness.default_rng().uniform(lower, upper, tuple(input.shape)).astype(input.dtype)
    slope = creation.from_numpy(slopes)
    source = input.clone() if inplace else input  # type: ignore[attr-defined]  # (saved: not the written one)
    out = one_node(RreluWithNoiseBackward0, lambda source: where(source > 0, source, source * slope), (source,),
                   (source,))
    return _inplace(input, out, inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """``softmax((logits + g) / tau)`` with Gumbel(0, 1) noise ``g`` (jitgrad's generator);
    ``hard``: the one-hot of its argmax, with the soft sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = -np.log(randomness.default_rng().exponential(1.0, tuple(logits.shape)))
    soft = ((logits + creation.from_numpy(noise.astype(logits.dtype))) / tau).softmax(dim)  # type: ignore[attr-defined]
    if not hard:
        return soft
    values = array_of(soft)
    one_hot = np.zeros_like(values)
    np.put_along_axis(one_hot, np.expand_dims(values.argmax(dim), dim), 1.0, axis=dim)
    return from_result(one_hot) - soft.detach() + soft  # type: ignore[attr-defined,no-any-return]
