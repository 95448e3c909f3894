"""``jitgrad.optim.AdamW`` against ``torch.optim.AdamW`` (foreach=False), float64 and float32."""

from __future__ import annotations

import pytest
import torch

import jitgrad
from test_optim import _assert_same_run

ADAMW_CASES = [
    {},
    {"lr": 0.05},
    {"lr": 0.05, "weight_decay": 0.3},
    {"lr": 0.05, "weight_decay": 0.0},
    {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True},
    {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-4},
]


@pytest.mark.parametrize("kwargs", ADAMW_CASES, ids=str)
def test_adamw_matches_torch(kwargs):
    _assert_same_run("AdamW", kwargs)


def test_adamw_float32_matches_torch():
    _assert_same_run("AdamW", {"lr": 0.05, "weight_decay": 0.2}, dtype="float32", rtol=1e-5, atol=1e-6)


def test_adamw_decay_differs_from_adam_l2():
    ps = [jitgrad.tensor([1.0, -2.0], dtype=jitgrad.float64, requires_grad=True) for _ in range(2)]
    for p in ps:
        p.grad = jitgrad.tensor([0.5, 0.5], dtype=jitgrad.float64)
    jitgrad.optim.AdamW([ps[0]], lr=0.1, weight_decay=0.5).step()
    jitgrad.optim.Adam([ps[1]], lr=0.1, weight_decay=0.5).step()
    assert ps[0].tolist() != ps[1].tolist()


def test_adamw_defaults_and_errors_as_torch():
    p = jitgrad.zeros(1, requires_grad=True)
    assert jitgrad.optim.AdamW([p]).defaults["weight_decay"] == 0.01
    assert torch.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults["weight_decay"] == 0.01
    with pytest.raises(ValueError):
        jitgrad.optim.AdamW([p], lr=-1)
    with pytest.raises(ValueError):
        jitgrad.optim.AdamW([p], weight_decay=-1)
