"""``F.batch_norm`` and ``BatchNorm1d``/``BatchNorm2d`` against PyTorch (float64): outputs,
gradients of input, weight and bias, running statistics over several steps (momentum and
cumulative), eval mode, ``state_dict``, and the errors (type and message)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

RNG = np.random.default_rng(3)
X2, X3, X4 = RNG.standard_normal((5, 3)), RNG.standard_normal((4, 3, 6)), RNG.standard_normal((2, 3, 4, 2))


def _run(lib: Any, make: Callable[[Any], Any], data: np.ndarray, steps: int, train: bool) -> Any:
    m = make(lib).double()
    if not train:
        m.eval()
    outs = []
    for k in range(steps):
        x = lib.tensor(data * (k + 1) + k, requires_grad=True)
        y = m(x)
        w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        params = [p for p in (m.weight, m.bias) if p is not None]
        grads = lib.autograd.grad((y * w).sum(), [x, *params])
        outs.append((y.detach().numpy(), [g.detach().numpy() for g in grads]))
    buffers = {k: v.detach().numpy() if v is not None else None for k, v in m.state_dict().items()}
    return outs, buffers


MODULES: dict[str, tuple[Callable[[Any], Any], np.ndarray]] = {
    "1d": (lambda lib: lib.nn.BatchNorm1d(3), X2),
    "1d_3d_input": (lambda lib: lib.nn.BatchNorm1d(3, momentum=0.3, eps=1e-3), X3),
    "1d_cumulative": (lambda lib: lib.nn.BatchNorm1d(3, momentum=None), X2),
    "1d_no_affine": (lambda lib: lib.nn.BatchNorm1d(3, affine=False), X3),
    "1d_no_running": (lambda lib: lib.nn.BatchNorm1d(3, track_running_stats=False), X2),
    "2d": (lambda lib: lib.nn.BatchNorm2d(3), X4),
}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", sorted(MODULES))
def test_modules_against_pytorch(case: str, train: bool) -> None:
    make, data = MODULES[case]
    (ours, our_buffers), (theirs, their_buffers) = (_run(lib, make, data, 3, train) for lib in (jitgrad, torch))
    for (y, grads), (want_y, want_grads) in zip(ours, theirs):
        np.testing.assert_allclose(y, want_y, rtol=1e-10, atol=1e-12)
        for g, wg in zip(grads, want_grads):
            np.testing.assert_allclose(g, wg, rtol=1e-9, atol=1e-11)
    assert sorted(our_buffers) == sorted(their_buffers)
    for k, v in our_buffers.items():
        np.testing.assert_allclose(v, their_buffers[k], rtol=1e-12)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "eval_without_stats": lambda lib: lib.nn.functional.batch_norm(lib.ones(4, 3), None, None, training=False),
    "one_value_per_channel": lambda lib: lib.nn.functional.batch_norm(lib.ones(1, 3), None, None, training=True),
    "wrong_stats_size": lambda lib: lib.nn.functional.batch_norm(lib.ones(4, 3), lib.zeros(2), lib.ones(2), training=True),
    "module_4d_input": lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
    "module_2d_input": lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    got = []
    for lib in (jitgrad, torch):
        with pytest.raises((ValueError, RuntimeError)) as info:
            ERRORS[case](lib)
        got.append((type(info.value).__name__, str(info.value).replace("torch.Size", "Size").replace("jitgrad.Size", "Size")))
    assert got[0] == got[1]


def test_version_counters() -> None:
    got = []
    for lib in (jitgrad, torch):
        m = lib.nn.BatchNorm1d(3)
        before = (m.running_mean._version, m.num_batches_tracked._version, m.weight._version)
        m(lib.ones(4, 3))
        got.append((before, m.running_mean._version, m.num_batches_tracked._version))
    assert got[0] == got[1]


def test_repr_and_functional_with_running_stats() -> None:
    for lib in (jitgrad, torch):
        assert repr(lib.nn.BatchNorm1d(3)) == (
            "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)")
    got = []
    for lib in (jitgrad, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        x = lib.tensor(X2)
        y = lib.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.2)
        got.append((y.detach().numpy(), rm.detach().numpy(), rv.detach().numpy(), rm._version))
    for a, b in zip(got[0], got[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# -- F.bilinear / nn.Bilinear (same file: the other parametrised layers) -----------------------
BILINEAR: dict[str, Callable[[Any, Any, Any, Any, Any], Any]] = {
    "batch": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c),
    "no_bias": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w),
    "one_sample": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a[0], b[0], w, c),
    "batch_mismatch": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b[:3], w),
    "input1_mismatch": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w[:, :1]),
    "bias_mismatch": lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c[:2]),
}


@pytest.mark.parametrize("case", sorted(BILINEAR))
def test_bilinear(case: str) -> None:
    arrays = (RNG.standard_normal((4, 2)), RNG.standard_normal((4, 3)), RNG.standard_normal((5, 2, 3)),
              RNG.standard_normal(5))
    got = []
    for lib in (jitgrad, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        try:
            y = BILINEAR[case](lib, *ts)
        except RuntimeError as e:
            got.append(str(e))
            continue
        grads = lib.autograd.grad(y.sum(), ts, allow_unused=True)
        got.append((y.detach().numpy(), [None if g is None else g.detach().numpy() for g in grads]))
    if isinstance(got[1], str):
        assert got[0] == got[1]
        return
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12)
    for g, w in zip(got[0][1], got[1][1]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_bilinear_module() -> None:
    for lib in (jitgrad, torch):
        m = lib.nn.Bilinear(2, 3, 4)
        assert repr(m) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"
        assert tuple(m.weight.shape) == (4, 2, 3) and tuple(m(lib.ones(5, 2), lib.ones(5, 3)).shape) == (5, 4)
        assert float(m.weight.abs().max()) <= 1 / np.sqrt(2)
        with pytest.raises(ValueError, match="in1_features must be > 0"):
            lib.nn.Bilinear(0, 3, 4)
