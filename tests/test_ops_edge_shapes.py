"""0-d and empty tensors through every gather/scatter, mask, scan, statistics, sorting and
shape op, against PyTorch: the same result (or the same error family) as PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from grad_oracle import check, check_error

pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")

A0 = np.array(1.5)
I0 = np.array(0)
I1 = np.array([0])
M0 = np.array(True)
S0 = np.array(2.5)
E03 = np.zeros((0, 3))
E03I = np.zeros((0, 3), np.int64)

CASES = {
    "gather": (lambda L, x, i: x.gather(0, i), A0, I0),
    "gather_1d_index": (lambda L, x, i: x.gather(0, i), A0, I1),
    "scatter": (lambda L, x, i, s: x.scatter(0, i, s), A0, I0, S0),
    "scatter_add": (lambda L, x, i, s: x.scatter_add(0, i, s), A0, I0, S0),
    "index_select": (lambda L, x, i: x.index_select(0, i), A0, I0),
    "index_select_1d_index": (lambda L, x, i: x.index_select(0, i), A0, I1),
    "take": (lambda L, x, i: x.take(i), A0, I1),
    "take_along_dim": (lambda L, x, i: L.take_along_dim(x, i), A0, I1),
    "masked_fill": (lambda L, x, m: x.masked_fill(m, 0.0), A0, M0),
    "masked_select": (lambda L, x, m: x.masked_select(m), A0, M0),
    "masked_scatter": (lambda L, x, m, s: x.masked_scatter(m, s), A0, M0, S0),
    "index_add": (lambda L, x, i, s: x.index_add(0, i, s), A0, I0, S0),
    "index_fill": (lambda L, x, i: x.index_fill(0, i, 3.0), A0, I0),
    "index_copy": (lambda L, x, i, s: x.index_copy(0, i, s), A0, I0, S0),
    "repeat_interleave": (lambda L, x: x.repeat_interleave(2), A0),
    "topk": (lambda L, x: x.topk(1), A0),
    "flip": (lambda L, x: x.flip(0), A0),
    "roll_dim": (lambda L, x: x.roll(1, 0), A0),
    "roll_flat": (lambda L, x: x.roll(1), A0),
    "cummax": (lambda L, x: x.cummax(0), A0),
    "logcumsumexp": (lambda L, x: x.logcumsumexp(0), A0),
    "prod_keepdim": (lambda L, x: x.prod(0, keepdim=True), A0),
    "var": (lambda L, x: x.var(), A0),
    "std_dim": (lambda L, x: x.std(0, correction=0), A0),
    "median": (lambda L, x: x.median(), A0),
    "kthvalue": (lambda L, x: x.kthvalue(1), A0),
    "argmax": (lambda L, x: x.argmax(0), A0),
    "any": (lambda L, x: x.any(0), A0),
    "count_nonzero": (lambda L, x: x.count_nonzero(), A0),
    "unique": (lambda L, x: x.detach().unique(), A0),
    "diag_embed": (lambda L, x: x.diag_embed(), A0),
    "tile": (lambda L, x: x.tile(()), A0),
    "nonzero_empty_tuple": (lambda L, x: x.nonzero(as_tuple=True), E03),
    "scatter_reduce_empty": (lambda L, x, i, s: x.scatter_reduce(0, i, s, "amax"), E03, E03I, E03),
    "sort_empty": (lambda L, x: x.sort(), np.zeros(0)),
    "cumprod_empty": (lambda L, x: x.cumprod(1), E03),
    "median_dim_empty": (lambda L, x: x.median(1), E03),
    "median_empty_dim_raises": (lambda L, x: x.median(0), E03),
    "var_empty_dim": (lambda L, x: x.var(0), E03),
    "topk_empty": (lambda L, x: x.topk(0, 0), E03),
    "flip_empty": (lambda L, x: x.flip(0, 1), E03),
    "repeat_empty": (lambda L, x: x.repeat(2, 2), E03),
    "diff_empty": (lambda L, x: x.diff(dim=0), E03),
    "masked_select_empty": (lambda L, x, m: x.masked_select(m), E03, np.zeros((0, 3), bool)),
}

RAISES = {"roll_dim", "diag_embed", "median_empty_dim_raises"}  # PyTorch raises: so must jitgrad (same family)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    program, *arrays = CASES[name]
    if name in RAISES:
        check_error(program, *arrays)
    else:
        check(program, *arrays)
