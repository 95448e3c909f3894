"""``F.instance_norm`` against PyTorch (float64): outputs, gradients of input, weight and
bias, the running statistics it updates (and uses with ``use_input_stats=False``), and the
errors (type and message)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from tests.compat_helpers import outcome

RNG = np.random.default_rng(5)
DATA = {"3d": RNG.standard_normal((2, 3, 4)), "4d": RNG.standard_normal((2, 3, 2, 3)),
        "one sample": RNG.standard_normal((1, 3, 5))}


def _run(lib: Any, data: np.ndarray, affine: bool, running: bool, use_input_stats: bool) -> list[np.ndarray]:
    channels = data.shape[1]
    x = lib.tensor(data, requires_grad=True)
    params = [lib.tensor(np.linspace(0.5, 2.0, channels), requires_grad=True),
              lib.tensor(np.linspace(-1.0, 1.0, channels), requires_grad=True)] if affine else []
    stats = [lib.tensor(np.linspace(-0.5, 0.5, channels)), lib.tensor(np.linspace(1.0, 3.0, channels))]
    y = lib.nn.functional.instance_norm(
        x, *(stats if running else (None, None)), *(params or (None, None)),
        use_input_stats=use_input_stats, momentum=0.3, eps=1e-3,
    )
    w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
    grads = lib.autograd.grad((y * y * w).sum(), [x, *params])
    return [t.detach().numpy() for t in (y, *grads, *(stats if running else ()))]


CASES = [  # (running statistics are needed without input statistics: an error, below)
    pytest.param(shape, affine, running, stats, id=f"{shape}-{affine=}-{running=}-{stats=}")
    for shape in DATA for affine in (True, False) for running in (True, False)
    for stats in (True, False) if running or stats
]


@pytest.mark.parametrize(("shape", "affine", "running", "use_input_stats"), CASES)
def test_instance_norm_against_pytorch(shape: str, affine: bool, running: bool, use_input_stats: bool) -> None:
    ours, theirs = (_run(lib, DATA[shape], affine, running, use_input_stats) for lib in (jitgrad, torch))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_instance_norm_node_and_running_stats_outside_the_graph() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(DATA["3d"], requires_grad=True)
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        y = lib.nn.functional.instance_norm(x, mean, var)
        return y.grad_fn.name(), mean.requires_grad, mean._version > 0, var.grad_fn

    assert program(jitgrad) == program(torch)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "no spatial elements": lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3)),
    "one spatial element": lambda lib: lib.nn.functional.instance_norm(lib.ones(1, 3, 1)),
    "running stats missing": lambda lib: lib.nn.functional.instance_norm(lib.ones(1, 3, 2), use_input_stats=False),
    "running stats of the wrong size": lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 4), lib.zeros(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_instance_norm_errors(case: str) -> None:
    ours, theirs = (outcome(lambda lib=lib: ERRORS[case](lib)) for lib in (jitgrad, torch))
    assert ours == theirs
