"""``affine_grid`` (2-d: the sampling grid of an affine map, ``AffineGridGeneratorBackward0``)
and ``grid_sample`` (4-d input; ``bilinear`` or ``nearest``; ``zeros`` or ``border``
padding; one ``GridSampler2DBackward0``): composed from jitgrad ops, so the gradients to the
input and to the grid follow, with PyTorch's coordinate arithmetic (``align_corners``) and
its argument checks. (``bicubic`` and ``reflection`` are not implemented.)"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from ..ops.gather_scatter import gather
from ..ops.operands import from_result
from ..tensor import Tensor
from ._composite import CompositeBackward, one_node


class AffineGridGeneratorBackward0(CompositeBackward):
    pass


class GridSampler2DBackward0(CompositeBackward):
    pass


def _linspace(steps: int, align_corners: bool) -> np.ndarray:
    if steps <= 1:
        return np.zeros(max(steps, 0))
    points = np.linspace(-1.0, 1.0, steps)
    return points if align_corners else points * (steps - 1) / steps


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The ``(N, H, W, 2)`` grid ``theta @ (x, y, 1)`` over the normalised pixel centres."""
    if align_corners is None:
        align_corners = False
    size = tuple(int(s) for s in size)
    if len(size) != 4:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}." if len(size) != 5 else
                                  "affine_grid: 3-d (5-d size) affine grids are not supported by jitgrad")
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                         f"{theta.shape}.")
    n, _, h, w = size
    if align_corners and min(h, w) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    if theta.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, 3] but got: "
                           f"[{theta.shape[0]}, 3].")
    xs, ys = _linspace(w, align_corners), _linspace(h, align_corners)
    base = np.stack([np.broadcast_to(xs, (h, w)), np.broadcast_to(ys[:, None], (h, w)), np.ones((h, w))], -1)
    base_t = from_result(base.reshape(1, h * w, 3).astype(theta.dtype))

    def compute(theta: Tensor) -> Tensor:
        return base_t.matmul(theta.transpose(1, 2)).reshape(n, h, w, 2)  # type: ignore[attr-defined,no-any-return]

    return one_node(AffineGridGeneratorBackward0, compute, (theta,))


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord: Tensor, limit: int) -> Tensor:
    from ..ops.compare import where

    inside = (coord > 0) & (coord < limit)  # type: ignore[operator]
    return where(inside, coord, coord.detach().clamp(0, max(limit, 0)))  # type: ignore[attr-defined,no-any-return]


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` ``(N, C, H, W)`` read at ``grid`` ``(N, Ho, Wo, 2)`` (x, y in [-1, 1])."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if mode == "bicubic" or padding_mode == "reflection" or input.ndim == 5:
        raise NotImplementedError(f"grid_sample: mode {mode!r} with padding_mode {padding_mode!r} on a "
                                  f"{input.ndim}-d input is not supported by jitgrad")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
                           f"{list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]

    def read(input: Tensor, x: np.ndarray, y: np.ndarray) -> tuple[Tensor, np.ndarray]:
        """``input`` at integer (x, y) ``(N, Ho * Wo)``, and where they are inside."""
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        flat = np.where(inside, np.clip(y, 0, h - 1) * w + np.clip(x, 0, w - 1), 0)
        index = from_result(np.broadcast_to(flat[:, None, :], (n, c, ho * wo)).copy())
        values = gather(input.reshape(n, c, h * w), 2, index)  # type: ignore[attr-defined]
        return values, inside[:, None, :]

    def compute(input: Tensor, grid: Tensor) -> Tensor:
        gx = _unnormalize(grid[..., 0].reshape(n, ho * wo), w, align_corners)  # type: ignore[index,attr-defined]
        gy = _unnormalize(grid[..., 1].reshape(n, ho * wo), h, align_corners)  # type: ignore[index,attr-defined]
        if padding_mode == "border":  # (PyTorch's clip: no gradient on the border itself, nor past it)
            gx, gy = _clip(gx, w - 1), _clip(gy, h - 1)
        x, y = gx.detach().numpy(), gy.detach().numpy()  # type: ignore[attr-defined]
        if mode == "nearest":
            values, inside = read(input, np.rint(x).astype(np.int64), np.rint(y).astype(np.int64))
            out = values * from_result(inside.astype(input.dtype))
            return out.reshape(n, c, ho, wo)  # type: ignore[attr-defined,no-any-return]
        x0, y0 = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
        fx = (gx - from_result(x0.astype(input.dtype))).unsqueeze(1)  # type: ignore[attr-defined]
        fy = (gy - from_result(y0.astype(input.dtype))).unsqueeze(1)  # type: ignore[attr-defined]
        total: Any = 0
        for dx, dy, wgt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            values, inside = read(input, x0 + dx, y0 + dy)
            total = total + values * wgt * from_result(inside.astype(input.dtype))
        return total.reshape(n, c, ho, wo)  # type: ignore[no-any-return]

    return one_node(GridSampler2DBackward0, compute, (input, grid), (input, grid))
