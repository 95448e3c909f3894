"""``node._saved_<name>`` / ``node._raw_saved_<name>`` (``SAVED_NAMES`` in
``autograd/node.py``) against PyTorch: the same names give the same values, and a name
PyTorch does not have is an AttributeError in both."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad


def _operands(lib: Any) -> tuple[Any, Any, Any, Any]:
    f = lib.float64
    x = lib.tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]), dtype=f, requires_grad=True)
    p = lib.tensor(np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 0.75]]), dtype=f, requires_grad=True)
    q = lib.tensor(np.array([[2.0, 3.0, 0.5], [1.25, 4.0, 0.75]]), dtype=f, requires_grad=True)
    sq = lib.tensor(np.array([[2.0, 0.5], [0.5, 3.0]]), dtype=f, requires_grad=True)
    return x, p, q, sq


CASES: dict[str, tuple[Callable[[Any, Any, Any, Any, Any], Any], tuple[str, ...]]] = {
    "softmax": (lambda lib, x, p, q, sq: lib.softmax(x, 1), ("result",)),
    "div_rounding_none": (lambda lib, x, p, q, sq: lib.div(x, p, rounding_mode=None), ("self", "other")),
    "clamp_min_tensor": (lambda lib, x, p, q, sq: lib.clamp_min(x, p), ("self", "min")),
    "clamp_max_tensor": (lambda lib, x, p, q, sq: lib.clamp_max(x, p), ("self", "max")),
    "elu_inplace": (lambda lib, x, p, q, sq: lib.nn.functional.elu(x * 1, inplace=True), ("result",)),
    "celu": (lambda lib, x, p, q, sq: lib.nn.functional.celu(x), ("self",)),
    "celu_inplace": (lambda lib, x, p, q, sq: lib.nn.functional.celu(x * 1, inplace=True), ("result",)),
    "leaky_relu": (lambda lib, x, p, q, sq: lib.nn.functional.leaky_relu(x), ("self",)),
    "leaky_relu_inplace": (lambda lib, x, p, q, sq: lib.nn.functional.leaky_relu(x * 1, inplace=True), ("result",)),
    "threshold": (lambda lib, x, p, q, sq: lib.nn.functional.threshold(x, 0.1, 2.0), ("self",)),
    "threshold_inplace": (lambda lib, x, p, q, sq: lib.nn.functional.threshold(x * 1, 0.1, 2.0, inplace=True),
                          ("self",)),
    "hardsigmoid": (lambda lib, x, p, q, sq: lib.nn.functional.hardsigmoid(x), ("self",)),
    "hardswish": (lambda lib, x, p, q, sq: lib.nn.functional.hardswish(x), ("self",)),
    "softmax_ones": (lambda lib, x, p, q, sq: lib.softmax(lib.ones(3, requires_grad=True), 0), ("result",)),
    "log_softmax": (lambda lib, x, p, q, sq: lib.log_softmax(x, 0), ("result",)),
    "tan": (lambda lib, x, p, q, sq: x.tan(), ("result",)),
    "expm1": (lambda lib, x, p, q, sq: x.expm1(), ("result",)),
    "exp2": (lambda lib, x, p, q, sq: x.exp2(), ("result",)),
    "rsqrt": (lambda lib, x, p, q, sq: p.rsqrt(), ("result",)),
    "asin": (lambda lib, x, p, q, sq: (x / 3).asin(), ("self",)),
    "atan": (lambda lib, x, p, q, sq: x.atan(), ("self",)),
    "sinh": (lambda lib, x, p, q, sq: x.sinh(), ("self",)),
    "erf": (lambda lib, x, p, q, sq: x.erf(), ("self",)),
    "lgamma": (lambda lib, x, p, q, sq: p.lgamma(), ("self",)),
    "log1p": (lambda lib, x, p, q, sq: p.log1p(), ("self",)),
    "silu": (lambda lib, x, p, q, sq: lib.nn.functional.silu(x), ("self",)),
    "clamp": (lambda lib, x, p, q, sq: x.clamp(-0.5, 1.0), ("self",)),
    "atan2": (lambda lib, x, p, q, sq: lib.atan2(x, p), ("self", "other")),
    "xlogy": (lambda lib, x, p, q, sq: lib.xlogy(p, q), ("self", "other")),
    "hypot": (lambda lib, x, p, q, sq: lib.hypot(x, p), ("self", "other", "result")),
    "addcmul": (lambda lib, x, p, q, sq: lib.addcmul(x, p, q), ("tensor1", "tensor2")),
    "lerp": (lambda lib, x, p, q, sq: lib.lerp(x, p, q), ("self", "end", "weight")),
    "mm": (lambda lib, x, p, q, sq: x @ p.t(), ("self", "mat2")),
    "mv": (lambda lib, x, p, q, sq: lib.mv(x, q[0]), ("self", "vec")),
    "dot": (lambda lib, x, p, q, sq: lib.dot(x[0], q[0]), ("self", "tensor")),
    "prod": (lambda lib, x, p, q, sq: x.prod(1), ("self", "result")),
    "var": (lambda lib, x, p, q, sq: x.var(1), ("self",)),
    "std": (lambda lib, x, p, q, sq: x.std(1), ("self", "result")),
    "amax": (lambda lib, x, p, q, sq: x.amax(1), ("self", "result")),
    "max": (lambda lib, x, p, q, sq: x.max(), ("self", "result")),
    "max_dim": (lambda lib, x, p, q, sq: x.max(1)[0], ("indices",)),
    "cumprod": (lambda lib, x, p, q, sq: x.cumprod(1), ("self", "result")),
    "logcumsumexp": (lambda lib, x, p, q, sq: x.logcumsumexp(1), ("self", "result")),
    "norm": (lambda lib, x, p, q, sq: lib.linalg.vector_norm(x, dim=1), ("self", "result")),
    "cdist": (lambda lib, x, p, q, sq: lib.cdist(x, p), ("x1", "x2", "result")),
    "inv": (lambda lib, x, p, q, sq: lib.linalg.inv(sq), ("inverse",)),
    "det": (lambda lib, x, p, q, sq: lib.linalg.det(sq), ("A", "result")),
    "cholesky": (lambda lib, x, p, q, sq: lib.linalg.cholesky(sq), ("L",)),
    "eigh": (lambda lib, x, p, q, sq: lib.linalg.eigh(sq)[0], ("eigenvalues", "eigenvectors")),
    "svd": (lambda lib, x, p, q, sq: lib.linalg.svd(sq)[1], ("U", "S", "Vh")),
    "det_lu": (lambda lib, x, p, q, sq: lib.linalg.det(sq), ("LU", "pivots")),
    "det_lu_pivoting": (lambda lib, x, p, q, sq: lib.det(sq.flip(0)), ("A", "LU", "pivots", "result")),
    "slogdet": (lambda lib, x, p, q, sq: lib.linalg.slogdet(sq)[1], ("A", "LU", "pivots", "sign")),
    "solve": (lambda lib, x, p, q, sq: lib.linalg.solve(sq, p[:, :2]), ("A", "LU", "pivots", "result", "left")),
    "solve_vector": (lambda lib, x, p, q, sq: lib.linalg.solve(sq, q[0, :2]), ("A", "LU", "pivots", "left")),
    "cummax": (lambda lib, x, p, q, sq: lib.cummax(x, 1)[0], ("self", "indices", "dim")),
    "cummin": (lambda lib, x, p, q, sq: x.cummin(-1)[0], ("self", "indices", "dim")),
    "cholesky_solve": (lambda lib, x, p, q, sq: lib.cholesky_solve(p[:, :1], lib.linalg.cholesky(sq)),
                       ("self", "input2", "result", "upper")),
    "erfinv": (lambda lib, x, p, q, sq: (x / 3).erfinv(), ("self",)),
    "erfinv_x": (lambda lib, x, p, q, sq: x.erfinv(), ("self",)),
    "gather": (lambda lib, x, p, q, sq: x.gather(1, lib.tensor([[0, 2], [1, 0]])), ("self", "index", "dim", "sparse_grad")),
    "take_along_dim": (lambda lib, x, p, q, sq: lib.take_along_dim(x, lib.tensor([[0], [2]]), 1), ("self", "index", "dim")),
    "index_select": (lambda lib, x, p, q, sq: x.index_select(-1, lib.tensor([2, 0, 2])), ("index", "dim", "self_sym_sizes")),
    "take": (lambda lib, x, p, q, sq: x.take(lib.tensor([0, -1, 3])), ("self", "index")),
    "masked_select": (lambda lib, x, p, q, sq: x.masked_select(x > 0), ("self", "mask")),
    "sort": (lambda lib, x, p, q, sq: x.sort(1)[0], ("indices", "dim", "self_sym_sizes")),
    "sort_descending": (lambda lib, x, p, q, sq: lib.sort(x, 0, descending=True)[0], ("indices", "dim")),
    "topk": (lambda lib, x, p, q, sq: x.topk(2)[0], ("indices", "dim", "self_sym_sizes")),
    "sinc": (lambda lib, x, p, q, sq: lib.sinc(x), ("self",)),
    "copysign": (lambda lib, x, p, q, sq: lib.copysign(x, q), ("self", "result")),
    "copysign_number": (lambda lib, x, p, q, sq: x.copysign(-1.0), ("self", "result")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_names_match_pytorch(case: str) -> None:
    build, names = CASES[case]
    ours = build(jitgrad, *_operands(jitgrad)).grad_fn
    theirs = build(torch, *_operands(torch)).grad_fn
    assert ours.name() == theirs.name()
    for name in names:
        mine, want = getattr(ours, f"_saved_{name}"), getattr(theirs, f"_saved_{name}")
        if isinstance(want, torch.Tensor):
            assert isinstance(mine, jitgrad.Tensor) and tuple(mine.shape) == tuple(want.shape)
            np.testing.assert_allclose(mine.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
            assert getattr(ours, f"_raw_saved_{name}") is not None
        else:
            assert mine == want


@pytest.mark.parametrize("case, name", [("addcmul", "self"), ("var", "result"), ("softmax", "self")])
def test_names_pytorch_does_not_save_are_attribute_errors(case: str, name: str) -> None:
    build, _ = CASES[case]
    for lib in (jitgrad, torch):
        fn = build(lib, *_operands(lib)).grad_fn
        with pytest.raises(AttributeError):
            getattr(fn, f"_saved_{name}")


SAVES_SELF = ["gather", "take", "masked_select", "cummax", "cholesky_solve", "erfinv_x"]


@pytest.mark.parametrize("case", SAVES_SELF + ["sort", "topk", "index_select", "det", "slogdet", "solve"])
def test_what_is_saved_is_freed_by_backward(case: str) -> None:
    build, names = CASES[case]
    got = []
    for lib in (jitgrad, torch):
        operands = _operands(lib)
        y = build(lib, *operands)
        loss = y.sum()
        loss.backward()
        kind, message = "ok", ""
        try:
            loss.backward()
        except RuntimeError as e:
            kind, message = "RuntimeError", str(e)
        got.append((kind, message[:60], [None if t.grad is None else t.grad.detach().numpy() for t in operands]))
    (kind, message, grads), (want_kind, want_message, want_grads) = got
    assert (kind, message) == (want_kind, want_message) and kind == "RuntimeError"
    for grad, want in zip(grads, want_grads):  # the first backward's, untouched by the second
        assert (grad is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(grad, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", SAVES_SELF)
def test_writing_the_saved_input_in_place_is_refused(case: str) -> None:
    build, _ = CASES[case]
    for lib in (jitgrad, torch):
        x, p, q, sq = (t.detach().clone().requires_grad_() for t in _operands(lib))
        x2, p2, sq2 = x * 1, p * 1, sq * 1
        y = build(lib, x2, p2, q, sq2)
        for t in (x2, p2):
            t.add_(0.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
        assert x.grad is None and p.grad is None


def test_softmax_saved_result_is_the_output_and_checks_its_version() -> None:
    for lib in (jitgrad, torch):
        y = lib.softmax(lib.ones(3, requires_grad=True), 0)
        assert y.grad_fn._saved_result.tolist() == y.tolist()
        y.mul_(2.0)  # the saved result was modified in place: unpacking it is an error
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.grad_fn.next_functions[0][0]._saved_result
