"""``interpolate`` for the modes ``nearest``, ``nearest-exact``, ``linear``, ``bilinear``,
``trilinear``, ``bicubic`` and ``area``: separable along each spatial dim, a gather of source
indices (nearest) or of two (linear) or four (bicubic: Keys' cubic convolution, a = -0.75,
border taps clamped) neighbours mixed by their weights, with ATen's index arithmetic (the
scale in the input's float type); gradients through ``index_select``, under one node named
as PyTorch's (``_composite.py``). Bicubic mixes the last dim first, then the one before, each
sum of taps left to right, as ATen's CPU kernel nests the width's sum inside the height's;
the values agree with its to a few ulps (its compiled kernel contracts some of the
products and sums into fused multiply-adds). ``area`` is adaptive average pooling, as in
PyTorch."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import creation, dtypes
from ..tensor import Tensor
from ._composite import CompositeBackward, one_node

_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}
_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")


def _scale(in_size: int, out_size: int, align_corners: bool, scale: float | None, ftype: Any) -> Any:
    """ATen's ``area_pixel_compute_scale`` (``compute_scales_value`` for nearest)."""
    if align_corners:
        return ftype((in_size - 1) / (out_size - 1)) if out_size > 1 else ftype(0)
    return ftype(1.0 / scale) if scale is not None and scale > 0 else ftype(in_size) / ftype(out_size)


def _nearest(in_size: int, out_size: int, scale: float | None, exact: bool, ftype: Any) -> np.ndarray:
    dst = np.arange(out_size)
    if out_size == in_size and not exact:
        return dst
    if out_size == 2 * in_size and not exact:
        return dst >> 1
    s = _scale(in_size, out_size, False, scale, ftype)
    src = np.floor((dst.astype(ftype) + ftype(0.5 if exact else 0)) * s).astype(np.int64)
    return np.minimum(src, in_size - 1)


def _linear(in_size: int, out_size: int, scale: float | None, align_corners: bool, ftype: Any
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = _scale(in_size, out_size, align_corners, scale, ftype)
    dst = np.arange(out_size).astype(ftype)
    src = s * dst if align_corners else np.maximum(s * (dst + ftype(0.5)) - ftype(0.5), ftype(0))
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, in_size - 1)
    i1 = np.where(i0 < in_size - 1, i0 + 1, i0)
    lam1 = (src - i0).astype(ftype)
    return i0, i1, lam1


class UpsampleNearest1DBackward0(CompositeBackward):
    pass


class UpsampleNearest2DBackward0(CompositeBackward):
    pass


class UpsampleNearest3DBackward0(CompositeBackward):
    pass


class UpsampleNearestExact1DBackward0(CompositeBackward):
    pass


class UpsampleNearestExact2DBackward0(CompositeBackward):
    pass


class UpsampleNearestExact3DBackward0(CompositeBackward):
    pass


class UpsampleLinear1DBackward0(CompositeBackward):
    pass


class UpsampleBilinear2DBackward0(CompositeBackward):
    pass


class UpsampleTrilinear3DBackward0(CompositeBackward):
    pass


class UpsampleBicubic2DBackward0(CompositeBackward):
    pass


def _cubic(in_size: int, out_size: int, scale: float | None, align_corners: bool, ftype: Any
           ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The four source indices and weights of each output position (ATen's
    ``HelperInterpCubic``: the source position is not clamped below 0, its floor is clamped
    to the last index, the fraction to [0, 1], the taps to [0, in_size - 1])."""
    s = _scale(in_size, out_size, align_corners, scale, ftype)
    dst = np.arange(out_size).astype(ftype)
    src = s * dst if align_corners else s * (dst + ftype(0.5)) - ftype(0.5)
    base = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), in_size - 1)
    t = np.minimum(np.maximum(src - base.astype(ftype), ftype(0)), ftype(1)).astype(ftype)
    a = ftype(-0.75)

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + ftype(2)) * x - (a + ftype(3))) * x * x + ftype(1)

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - ftype(5) * a) * x + ftype(8) * a) * x - ftype(4) * a

    weights = [far(t + ftype(1)), near(t), near(ftype(1) - t), far(ftype(1) - t + ftype(1))]
    taps = [np.clip(base - 1 + j, 0, in_size - 1) for j in range(4)]
    return taps, [w.astype(ftype) for w in weights]


_NODES: dict[tuple[str, int], type[CompositeBackward]] = {
    ("nearest", 1): UpsampleNearest1DBackward0, ("nearest", 2): UpsampleNearest2DBackward0,
    ("nearest", 3): UpsampleNearest3DBackward0, ("nearest-exact", 1): UpsampleNearestExact1DBackward0,
    ("nearest-exact", 2): UpsampleNearestExact2DBackward0, ("nearest-exact", 3): UpsampleNearestExact3DBackward0,
    ("linear", 1): UpsampleLinear1DBackward0, ("bilinear", 2): UpsampleBilinear2DBackward0,
    ("trilinear", 3): UpsampleTrilinear3DBackward0, ("bicubic", 2): UpsampleBicubic2DBackward0,
}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all after the first two) to ``size``, or by ``scale_factor``;
    one node under PyTorch's name (``UpsampleBilinear2DBackward0``, ...: ``_composite.py``)."""
    def resize(input: Tensor) -> Tensor:
        return _resize(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)

    if mode == "area":  # adaptive average pooling, with its own node
        return resize(input)
    node_type = _NODES.get((mode, input.ndim - 2), CompositeBackward)  # (other modes raise in _resize)
    return one_node(node_type, resize, (input,))


def _resize(input: Tensor, size: Any, scale_factor: Any, mode: str, align_corners: bool | None,
            recompute_scale_factor: bool | None, antialias: bool) -> Tensor:
    if mode not in _MODES or (mode == "bicubic" and input.ndim != 4):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | "
            "bicubic | trilinear"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by jitgrad")
    n = input.ndim - 2
    if mode in _LINEAR_DIMS and n != _LINEAR_DIMS[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_DIMS[mode] + 2}D input")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = list(input.shape[2:])
    scales: list[float | None]
    if size is not None:
        sizes = [int(size)] * n if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(sizes) != n:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {spatial} and output size of {tuple(size)}. Please provide input "
                "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        scales = [None] * n
    elif scale_factor is not None:
        factors = [float(scale_factor)] * n if not isinstance(scale_factor, (tuple, list)) else [
            float(f) for f in scale_factor]
        if len(factors) != n:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input "
                f"with spatial dimensions of {spatial} and scale_factor of shape {tuple(scale_factor)}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, "
                "s2, ...,sK) format."
            )
        sizes = [int(math.floor(s * f)) for s, f in zip(spatial, factors)]
        scales = [None if recompute_scale_factor else f for f in factors]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode == "area":
        return _area(input, sizes)
    ftype = input.dtype.type if input.dtype in dtypes.FLOATING else np.float32
    if mode == "bicubic":
        return _bicubic(input, spatial, sizes, scales, bool(align_corners), ftype)
    out = input
    for k, (in_size, out_size, scale) in enumerate(zip(spatial, sizes, scales)):
        dim = 2 + k
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest(in_size, out_size, scale, mode == "nearest-exact", ftype)
            out = out.index_select(dim, creation.tensor(idx))  # type: ignore[attr-defined]
            continue
        i0, i1, lam1 = _linear(in_size, out_size, scale, bool(align_corners), ftype)
        shape = [1] * out.ndim
        shape[dim] = out_size
        w1 = creation.tensor(lam1.reshape(shape), dtype=out.dtype)
        w0 = creation.tensor((ftype(1) - lam1).reshape(shape), dtype=out.dtype)
        x0 = out.index_select(dim, creation.tensor(i0))  # type: ignore[attr-defined]
        x1 = out.index_select(dim, creation.tensor(i1))  # type: ignore[attr-defined]
        out = x0 * w0 + x1 * w1
    return out


def _bicubic(input: Tensor, spatial: list[int], sizes: list[int], scales: list[float | None],
             align_corners: bool, ftype: Any) -> Tensor:
    out = input
    for k in (1, 0):  # the width's taps first: ATen sums them inside the height's
        dim = 2 + k
        taps, weights = _cubic(spatial[k], sizes[k], scales[k], align_corners, ftype)
        shape = [1] * out.ndim
        shape[dim] = sizes[k]
        mixed = None
        for idx, w in zip(taps, weights):
            term = out.index_select(dim, creation.tensor(idx)) * creation.tensor(  # type: ignore[attr-defined]
                w.reshape(shape), dtype=out.dtype)
            mixed = term if mixed is None else mixed + term
        out = mixed  # type: ignore[assignment]
    return out


def _area(input: Tensor, sizes: list[int]) -> Tensor:
    """``area``: adaptive average pooling to ``sizes`` (PyTorch's own reduction)."""
    from ._pool3d import adaptive_avg_pool3d
    from ._pool_functional import adaptive_avg_pool1d, adaptive_avg_pool2d

    pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[len(sizes)]
    return pool(input, sizes[0] if len(sizes) == 1 else tuple(sizes))
