"""Autograd behaviour against PyTorch (float64): saved numbers freed by backward, what hooks
and custom Functions may return, retain_grad on no_grad views, the layout of backward zeros,
what declared ops save. Each case runs the same code on both and compares values, errors
(type and message) and, for bad input, that nothing was changed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from compat_helpers import LIBS
from compat_helpers import outcome as _outcome
from compat_helpers import same as _same


# -- 1. a Python number saved by mul / div is freed by backward, as PyTorch's wrapped number --
SECOND_BACKWARD: dict[str, Callable[[Any, Any], Any]] = {
    "mul": lambda lib, x: x * 2,
    "rmul": lambda lib, x: 2.5 * x,
    "mul_bool": lambda lib, x: x * True,
    "torch.mul": lambda lib, x: lib.mul(2, x),
    "div": lambda lib, x: x / 2,
    "true_divide": lambda lib, x: lib.true_divide(x, 2),
    "mul_": lambda lib, x: x.clone().mul_(3),
    "div_": lambda lib, x: x.clone().div_(3),
    "add": lambda lib, x: x + 2,  # saves nothing: a second backward works in both
    "sub_alpha": lambda lib, x: lib.sub(x, x.detach(), alpha=2),
}


@pytest.mark.parametrize("case", sorted(SECOND_BACKWARD))
def test_second_backward_through_a_saved_number(case: str) -> None:
    results = []
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        loss = SECOND_BACKWARD[case](lib, x).sum()
        loss.backward()
        results.append((_outcome(loss.backward), x.grad))
    (ours, ours_grad), (theirs, theirs_grad) = results
    assert ours[0] == theirs[0] and (ours[0] == "ok" or ours[1] == theirs[1])
    _same(ours_grad, theirs_grad)  # the failed second pass accumulated nothing


@pytest.mark.parametrize("number", [2, 2.5, True])
def test_saved_number_reads_as_a_wrapped_0_dim_tensor(number: Any) -> None:
    got = []
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y, z = x * number, x / number
        got.append((y.grad_fn._saved_other, y.grad_fn._saved_self, z.grad_fn._saved_other,
                    lib.mul(number, x).grad_fn._saved_self))
        y.sum().backward()
        got.append(_outcome(lambda: y.grad_fn._saved_other))
    _same(got[0], got[2])
    assert got[1] == got[3] and got[1][0] == "RuntimeError"


def test_retained_graph_keeps_the_saved_number() -> None:
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        loss = (x * 2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_saved_number_is_freed_under_anomaly_mode_and_saved_tensor_hooks() -> None:
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            loss = (x * 2).sum()
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
        with pytest.warns(UserWarning), lib.autograd.detect_anomaly():
            loss = (x / 2).sum()
            loss.backward()
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                loss.backward()


# -- 2. what a custom Function's backward and a hook may return --------------------------------
def _function_returning(lib: Any, value: Callable[[Any], Any]) -> Any:
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            return x * 1

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return value(g)

    return F


BACKWARD_RETURNS: dict[str, Callable[[Any], Any]] = {
    "str": lambda g: ("abc", None),
    "int": lambda g: (3, None),
    "float": lambda g: (1.5, None),
    "list": lambda g: ([1.0], None),
    "ndarray": lambda g: (g.detach().numpy(), None),
    "too few": lambda g: "abc",
    "extra None": lambda g: (g, None, None),
    "for a non-tensor input": lambda g: (g, "abc"),
}


@pytest.mark.parametrize("case", sorted(BACKWARD_RETURNS))
def test_custom_function_backward_returning_a_non_tensor(case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        F = _function_returning(lib, BACKWARD_RETURNS[case])
        y = 2.0 if case == "for a non-tensor input" else lib.ones(3, dtype=lib.float64)
        kind, message = _outcome(lambda: F.apply(x, y).sum().backward())
        got.append((kind, message, x.grad))
    (kind, message, grad), (want_kind, want_message, want_grad) = got
    assert kind == want_kind
    if kind != "ok":
        assert message.endswith(want_message) and grad is None and want_grad is None
    else:
        _same(grad, want_grad)


HOOK_RETURNS: dict[str, Callable[[Any], Any]] = {
    "str": lambda lib: "abc",
    "tuple with a str": lambda lib: ("abc", None),
    "1-tuple with a str": lambda lib: ("abc",),
    "3-tuple": lambda lib: (None, None, None),
    "list": lambda lib: [None, None],
    "int": lambda lib: 3,
    "ndarray": lambda lib: np.ones(3, dtype=np.float32),
    "wrong shape": lambda lib: lib.ones(2),
    "wrong dtype": lambda lib: lib.ones(3, dtype=lib.float64),
    "tuple of wrong shape": lambda lib: (lib.ones(2), None),
    "tuple of wrong dtype": lambda lib: (lib.ones(3, dtype=lib.float64), None),
    "tuple of wrong dtype, 1": lambda lib: (lib.ones(3, dtype=lib.float64),),
    "right": lambda lib: lib.full((3,), 2.0),
    "right tuple": lambda lib: (lib.full((3,), 2.0), None),
    "right 1-tuple": lambda lib: (lib.full((3,), 2.0),),
}


@pytest.mark.parametrize("kind", ["tensor", "pre", "post"])
@pytest.mark.parametrize("case", sorted(HOOK_RETURNS))
def test_hook_results_are_checked_as_in_pytorch(kind: str, case: str) -> None:
    got = []
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = x * w
        ret = HOOK_RETURNS[case](lib)

        def hook(*args: Any) -> Any:
            return ret

        if kind == "tensor":
            y.register_hook(hook)
        elif kind == "pre":
            y.grad_fn.register_prehook(hook)
        else:
            y.grad_fn.register_hook(hook)
        outcome = _outcome(lambda: y.sum().backward())
        got.append((outcome, x.grad))
    ((kind_, message), grad), ((want_kind, want_message), want_grad) = got
    if want_kind == "ok":
        assert kind_ == "ok"
        _same(grad, want_grad)
    else:
        assert (kind_, message) == (want_kind, want_message)
        assert grad is None and want_grad is None


@pytest.mark.parametrize("lib", LIBS, ids=["jitgrad", "torch"])
def test_backward_gradient_of_a_wrong_type(lib: Any) -> None:
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got str"):
        (x * 1).sum().backward(gradient="abc")
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got str"):
        lib.autograd.grad((x * 1).sum(), x, grad_outputs=("abc",))
    assert x.grad is None


# -- 4. retain_grad on a view made under no_grad of a tensor that requires grad ----------------
@pytest.mark.parametrize("nonleaf_base", [False, True])
def test_retain_grad_on_a_no_grad_view_is_a_leaf_no_op(nonleaf_base: bool) -> None:
    got = []
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        base = x.clone() if nonleaf_base else x
        with lib.no_grad():
            v = base[:2]
        v.retain_grad()
        v.retain_grad()
        attrs = (v.requires_grad, v.is_leaf, v.grad_fn is None, v.retains_grad)
        y = v * 2
        y.sum().backward()
        got.append((attrs, v.grad is None, x.grad is None, y.requires_grad, v.view(2).grad_fn.name()))
    _same(*got)


def test_retain_grad_on_a_detached_no_grad_view_raises() -> None:
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            v = x.detach()[:2]
        with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
            v.retain_grad()
        assert not v.retains_grad and not v.requires_grad


# -- 7. backward zeros and masked gradients are laid out as PyTorch's --------------------------
ZERO_GRAD_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "floor": lambda lib, x: x.floor(),
    "sign": lambda lib, x: x.sign(),
    "sgn": lambda lib, x: x.sgn(),
    "pow0": lambda lib, x: x**0,
    "pow_tensor0": lambda lib, x: lib.pow(x, lib.zeros((), dtype=lib.float64)),
    "div_floor": lambda lib, x: lib.div(x, 2.0, rounding_mode="floor"),
    "div_trunc": lambda lib, x: lib.div(x, lib.full((3, 4), 2.0, dtype=lib.float64), rounding_mode="trunc"),
    "fill_": lambda lib, x: x.clone().fill_(1.0),
    "zero_": lambda lib, x: x.clone().zero_(),
    "relu": lambda lib, x: lib.relu(x - 5),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x),
    "clamp": lambda lib, x: x.clamp(5, 6),
}


def _layouts(lib: Any, x_layout: str, g_layout: str) -> tuple[Any, Any]:
    F = lib.float64
    x = lib.arange(12.0, dtype=F).reshape(4, 3).t() if x_layout == "t" else lib.arange(12.0, dtype=F).reshape(3, 4)
    g = {
        "c": lambda: lib.arange(12.0, dtype=F).reshape(3, 4),
        "t": lambda: lib.arange(12.0, dtype=F).reshape(4, 3).t(),
        "s": lambda: lib.arange(24.0, dtype=F).reshape(3, 8)[:, ::2],
    }[g_layout]()
    return x.detach().requires_grad_(), g


@pytest.mark.parametrize("x_layout, g_layout", [("c", "t"), ("c", "s"), ("t", "c")])
@pytest.mark.parametrize("case", sorted(ZERO_GRAD_OPS))
def test_backward_zeros_keep_pytorchs_layout(case: str, x_layout: str, g_layout: str) -> None:
    got = []
    for lib in LIBS:
        x, g = _layouts(lib, x_layout, g_layout)
        (gx,) = lib.autograd.grad(ZERO_GRAD_OPS[case](lib, x), x, g)
        got.append((gx, gx.stride()))
    _same(*got)


# -- what declared ops save: only what a needed formula reads (PyTorch's rule) -----------------
SAVES_ONLY_NEEDED: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "fmod_number": lambda lib, x, y, w: lib.fmod(x, 2.5),
    "fmod_tensor_const": lambda lib, x, y, w: lib.fmod(x, y.detach() + 5),
    "fmod_tensor": lambda lib, x, y, w: lib.fmod(x, y + 5),
    "remainder_number": lambda lib, x, y, w: x.remainder(2.5),
    "remainder_tensor": lambda lib, x, y, w: lib.remainder(x.detach(), y + 5),
    "lerp_number": lambda lib, x, y, w: lib.lerp(x, y, 0.3),
    "lerp_tensor": lambda lib, x, y, w: lib.lerp(x, y.detach(), w),
    "lerp_weight_only": lambda lib, x, y, w: lib.lerp(x.detach(), y.detach(), w),
    "addcmul_self": lambda lib, x, y, w: lib.addcmul(x, y.detach(), w.detach(), value=2),
    "addcmul_t1": lambda lib, x, y, w: lib.addcmul(x.detach(), y, w.detach()),
    "addcmul_all": lambda lib, x, y, w: lib.addcmul(x, y, w, value=0.5),
    "addcdiv_t1": lambda lib, x, y, w: lib.addcdiv(x, y, w.detach() + 2),
    "addcdiv_t2": lambda lib, x, y, w: lib.addcdiv(x.detach(), y.detach(), w + 2),
    "lerp_": lambda lib, x, y, w: x.clone().lerp_(y, 0.3),
    "fmod_": lambda lib, x, y, w: x.clone().fmod_(2.5),
    "addcmul_": lambda lib, x, y, w: x.clone().addcmul_(y.detach(), w.detach()),
}


def _three(lib: Any) -> tuple[Any, Any, Any]:
    f = lib.float64
    return (lib.tensor([1.5, -2.5, 3.0], dtype=f, requires_grad=True),
            lib.tensor([0.5, 2.0, -1.0], dtype=f, requires_grad=True),
            lib.tensor([0.25, 0.75, 1.5], dtype=f, requires_grad=True))


@pytest.mark.parametrize("case", sorted(SAVES_ONLY_NEEDED))
def test_declared_ops_save_only_what_is_read(case: str) -> None:
    got = []
    for lib in LIBS:
        inputs = _three(lib)
        out = SAVES_ONLY_NEEDED[case](lib, *inputs)
        loss = (out * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum()
        loss.backward(retain_graph=False)
        second = _outcome(loss.backward)  # freed or not: as PyTorch
        got.append((out.grad_fn.name(), second[0], [t.grad for t in inputs]))
        # an input written in place after the forward: refused only where PyTorch saved it
        inputs = _three(lib)
        copies = [t * 1 for t in inputs]
        out = SAVES_ONLY_NEEDED[case](lib, *copies)
        for c in copies:
            c.add_(0.0)
        got.append(_outcome(lambda: out.sum().backward())[0])
    (name, second, grads), written, (want_name, want_second, want_grads), want_written = got
    assert (name, second, written) == (want_name, want_second, want_written)
    for g, want in zip(grads, want_grads):
        assert (g is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(g.detach().numpy(), want.detach().numpy(), rtol=1e-15)


def test_number_saved_beside_a_tensor_is_freed_too() -> None:
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = lib.div(2, x)
        assert y.grad_fn._saved_self.item() == 2 and y.grad_fn._saved_self.dtype == lib.int64
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.grad_fn._saved_self
