"""The new ops' grad_fn names are PyTorch's (what a PyTorch user sees in the graph)."""

from __future__ import annotations

import pytest
import torch

import jitgrad


def _index(x, value):
    return torch.tensor(value) if isinstance(x, torch.Tensor) else jitgrad.tensor(value)


OPS = {
    "flip": lambda x: x.flip(0),
    "roll": lambda x: x.roll(1, 0),
    "tril": lambda x: x.tril(),
    "triu": lambda x: x.triu(),
    "cumsum": lambda x: x.cumsum(0),
    "cumprod": lambda x: x.cumprod(0),
    "cummax": lambda x: x.cummax(0).values,
    "cummin": lambda x: x.cummin(0).values,
    "logcumsumexp": lambda x: x.logcumsumexp(0),
    "prod": lambda x: x.prod(),
    "prod_dim": lambda x: x.prod(0),
    "var": lambda x: x.var(),
    "std": lambda x: x.std(1),
    "median": lambda x: x.median(),
    "median_dim": lambda x: x.median(0).values,
    "nanmedian": lambda x: x.nanmedian(),
    "nanmedian_dim": lambda x: x.nanmedian(0).values,
    "kthvalue": lambda x: x.kthvalue(1).values,
    "gather": lambda x: x.gather(0, _index(x, [[0, 1, 0]])),
    "index_select": lambda x: x.index_select(0, _index(x, [1])),
    "take": lambda x: x.take(_index(x, [1, 4])),
    "masked_select": lambda x: x.masked_select(x > 0),
    "masked_fill": lambda x: x.masked_fill(x > 0, 0.0),
    "masked_fill_tensor": lambda x: x.masked_fill(x > 0, x[0, 0]),
    "masked_fill_": lambda x: (x * 1).masked_fill_(x > 0, 0.0),
    "masked_fill_tensor_": lambda x: (x * 1).masked_fill_(x > 0, x[0, 0]),
    "sort": lambda x: x.sort(0).values,
    "topk": lambda x: x.topk(2).values,
    "repeat": lambda x: x.repeat(2, 1, 2),
    "tile": lambda x: x.tile(2),
    "scatter": lambda x: x.scatter(0, _index(x, [[0, 1, 0]]), x[:1] * 1),
    "index_copy": lambda x: x.index_copy(0, _index(x, [1]), x[:1] * 1),
    "scatter_reduce": lambda x: x.scatter_reduce(0, _index(x, [[0, 1, 0]]), x[:1] * 1, "amax"),
}

# Not here: index_fill is a masked_fill (IndexFillBackward0), the other in-place forms
# are CopyBackwards; their gradients are PyTorch's, only the node names differ.


@pytest.mark.parametrize("name", sorted(OPS))
def test_grad_fn_name(name):
    ours = OPS[name](jitgrad.randn(2, 3, dtype=jitgrad.float64, requires_grad=True)).grad_fn.name()
    theirs = OPS[name](torch.randn(2, 3, dtype=torch.float64, requires_grad=True)).grad_fn.name()
    assert ours == theirs
