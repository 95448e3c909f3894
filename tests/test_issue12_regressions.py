"""Regressions from issue 12 (bugs 3-8 and 10), each checked against PyTorch as the oracle,
or — where PyTorch refuses the program or gets its gradient wrong (writes through
self-overlapping views) — against central finite differences."""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

LIBS = [torch, jitgrad]
IDS = ["torch", "jitgrad"]


def _f64(lib: Any, data: Any, requires_grad: bool = False) -> Any:
    return lib.tensor(data, dtype=lib.float64, requires_grad=requires_grad)


def _outcome(fn: Callable[[], Any]) -> tuple[type | None, str]:
    try:
        fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        return type(exc), str(exc)
    return None, ""


# -- bug 3: view_as / expand_as with a 0-d tensor -----------------------------------------------


@pytest.mark.parametrize("method", ["view_as", "expand_as"])
def test_view_as_zero_dim_matches_pytorch(method: str) -> None:
    results = []
    for lib in LIBS:
        x = _f64(lib, [3.0], requires_grad=True) if method == "view_as" else _f64(lib, 3.0, requires_grad=True)
        y = getattr(x * 2, method)(_f64(lib, 1.0))
        (y * 5).backward()
        results.append((tuple(y.shape), float(y.detach().numpy()), x.grad.detach().numpy().copy()))
    (s1, v1, g1), (s2, v2, g2) = results
    assert s1 == s2 == ()
    assert v1 == v2 == 6.0
    np.testing.assert_array_equal(g1, g2)


@pytest.mark.parametrize("method", ["view_as", "expand_as"])
def test_view_as_non_tensor_is_a_type_error_as_in_pytorch(method: str) -> None:
    for lib in LIBS:
        with pytest.raises(TypeError, match=method):
            getattr(lib.ones(1), method)(3)


def test_expand_without_sizes_is_a_type_error_before_history_errors() -> None:
    """Argument parsing comes first: a stale multi-output view still gets the TypeError."""
    for lib in LIBS:
        base = _f64(lib, [1.0, 2.0], requires_grad=True) * 1
        piece = base.unbind(0)[0]
        base.exp_()
        with pytest.raises(TypeError, match="expand"):
            piece.expand()


# -- bug 4: custom Functions and in-place writes ------------------------------------------------


def _fn(lib: Any, forward: Callable[..., Any], backward: Callable[..., Any]) -> Any:
    return type("F", (lib.autograd.Function,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward),
    })


def _dirty_view_of_leaf_made_outside(lib: Any) -> Any:
    def forward(ctx: Any, v: Any) -> Any:
        v.add_(1)
        ctx.mark_dirty(v)
        return v

    x = _f64(lib, [1.0, 2.0], requires_grad=True)
    _fn(lib, forward, lambda ctx, g: g).apply(x[:1])
    return x


def _dirty_view_of_leaf_made_inside(lib: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        v = x[:1]
        v.add_(1)
        ctx.mark_dirty(v)
        return v

    x = _f64(lib, [1.0, 2.0], requires_grad=True)
    _fn(lib, forward, lambda ctx, g: g).apply(x)
    return x


@pytest.mark.parametrize("program, message", [
    (_dirty_view_of_leaf_made_outside, "a view of a leaf Variable that requires grad"),
    (_dirty_view_of_leaf_made_inside, "a leaf Variable that requires grad has been used"),
], ids=["view_made_outside", "view_made_inside"])
def test_dirty_view_of_leaf_is_refused_as_in_pytorch(program: Any, message: str) -> None:
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=message):
            program(lib)
    # and the leaf stays a leaf that requires grad (jitgrad used to rebase it onto CopySlices)
    x = _f64(jitgrad, [1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        f = _fn(jitgrad, lambda ctx, v: (v.add_(1), ctx.mark_dirty(v), v)[-1], lambda ctx, g: g)
        f.apply(x[:1])
    assert x.is_leaf and x.grad_fn is None and x.requires_grad


def test_local_view_modified_in_forward_is_allowed_as_in_pytorch() -> None:
    """A view made and written in place inside forward, then returned: its history is the
    Function's node (not a stale no_grad view); the gradient is what backward says."""
    grads, values = [], []
    for lib in LIBS:
        def forward(ctx: Any, x: Any) -> Any:
            y = x.clone()
            v = y[:1]
            v.mul_(3)
            return v

        f = _fn(lib, forward, lambda ctx, g: lib.cat([g * 2, g * 0]))
        x = _f64(lib, [1.0, 2.0], requires_grad=True)
        out = f.apply(x)
        assert type(out.grad_fn).__name__ == "FBackward"
        (out * 7).sum().backward()
        grads.append(x.grad.detach().numpy().copy())
        values.append(out.detach().numpy().copy())
    np.testing.assert_array_equal(values[0], values[1])
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[1], [14.0, 0.0])


@pytest.mark.parametrize("returns_input", [False, True], ids=["view_made_inside", "input_as_is"])
def test_writing_into_a_view_a_custom_function_returned_names_the_custom_function(returns_input: bool) -> None:
    for lib in LIBS:
        def forward(ctx: Any, x: Any) -> Any:
            return x if returns_input else x[:1]

        f = _fn(lib, forward, lambda ctx, g: g if returns_input else lib.cat([g, g * 0]))
        out = f.apply(_f64(lib, [1.0, 2.0], requires_grad=True) * 1)
        with pytest.raises(RuntimeError, match="created inside a custom Function") as info:
            out.mul_(2)
        assert "no_grad" not in str(info.value)


def test_writing_into_one_of_several_view_outputs_is_refused_as_multi_output() -> None:
    for lib in LIBS:
        def forward(ctx: Any, x: Any) -> Any:
            y = x.clone()
            return y[:1], y

        f = _fn(lib, forward, lambda ctx, g, h: lib.cat([g, g * 0]) + h)
        a, _ = f.apply(_f64(lib, [1.0, 2.0], requires_grad=True))
        with pytest.raises(RuntimeError, match="returns multiple views"):
            a.mul_(2)


def test_mark_dirty_of_a_tensor_that_is_not_an_input_warns_as_in_pytorch() -> None:
    results = []
    for lib in LIBS:
        def forward(ctx: Any, x: Any) -> Any:
            y = x.clone()
            y.add_(1)
            ctx.mark_dirty(y)
            return y

        x = _f64(lib, [1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="not an input"):
            out = _fn(lib, forward, lambda ctx, g: g * 3).apply(x)
        out.sum().backward()
        results.append((out.detach().numpy().copy(), x.grad.detach().numpy().copy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_mark_dirty_of_a_view_of_an_intermediate_names_the_real_problem() -> None:
    for lib in LIBS:
        def forward(ctx: Any, x: Any) -> Any:
            v = x.clone()[:1]
            v.add_(1)
            ctx.mark_dirty(v)
            return v

        with pytest.raises(RuntimeError, match="received a tensor that was not an input") as info:
            _fn(lib, forward, lambda ctx, g: g).apply(_f64(lib, [1.0, 2.0], requires_grad=True))
        assert "first tensor input" not in str(info.value)


def test_dirty_view_input_that_is_not_first_is_refused_with_a_reason() -> None:
    """Deliberate difference: PyTorch accepts it and returns wrong gradients (CopySlices takes
    the node's first output as the view's gradient)."""
    def forward(ctx: Any, y: Any, v: Any) -> Any:
        v.add_(y)
        ctx.mark_dirty(v)
        return v

    f = _fn(jitgrad, forward, lambda ctx, g: (g, g))
    b = _f64(jitgrad, [1.0, 2.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="first tensor input there; got argument 1"):
        f.apply(_f64(jitgrad, [1.0], requires_grad=True) * 1, b[:1])


def test_dirty_view_input_first_still_rebases_its_base_like_pytorch() -> None:
    grads = []
    for lib in LIBS:
        def forward(ctx: Any, v: Any, y: Any) -> Any:
            v.mul_(y)
            ctx.mark_dirty(v)
            ctx.save_for_backward(y)
            return v

        def backward(ctx: Any, g: Any) -> Any:
            return g * 2, g.sum().reshape(1)

        x = _f64(lib, [1.0, 2.0], requires_grad=True)
        y = _f64(lib, [3.0], requires_grad=True)
        b = x * 1
        out = _fn(lib, forward, backward).apply(b[:1], y * 1)
        (out.sum() * 3 + (b * _f64(lib, [5.0, 7.0])).sum()).backward()
        grads.append((x.grad.detach().numpy().copy(), y.grad.detach().numpy().copy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


# -- bug 5: detach_() on a tensor saved for backward --------------------------------------------


@pytest.mark.parametrize("case", ["saved_input", "unsaved", "saved_output"])
def test_detach_in_place_of_a_saved_tensor_fails_at_backward_as_in_pytorch(case: str) -> None:
    outcomes = []
    for lib in LIBS:
        a = _f64(lib, [1.0, 2.0], requires_grad=True)

        def program() -> None:
            if case == "saved_input":
                b = a * 2
                c = b * b  # saves b
            elif case == "unsaved":
                b = a.sin()
                c = b * 1.0  # saves nothing of b
            else:
                b = a.exp()  # saves its output
                c = b
            c = c.sum()
            b.detach_()
            c.backward()

        outcomes.append(_outcome(program))
    (theirs, their_msg), (ours, our_msg) = outcomes
    assert ours is theirs, (our_msg, their_msg)
    if case == "saved_input":
        assert ours is RuntimeError and "detached in-place" in our_msg and "MulBackward0" in our_msg


# -- bug 6: repr of a no_grad view whose base was then written ---------------------------------


@pytest.mark.parametrize("write", ["base_outside", "view_inside"])
def test_repr_of_invalid_view_history_says_invalid(write: str) -> None:
    reprs = []
    for lib in LIBS:
        b = _f64(lib, [1.0, 2.0], requires_grad=True) * 1
        with lib.no_grad():
            v = b[:1]
            if write == "view_inside":
                v.mul_(2)
        if write == "base_outside":
            b.mul_(2)
        with pytest.raises(RuntimeError, match="no_grad mode"):
            v.grad_fn
        reprs.append(repr(v))
    assert all(r.endswith("grad_fn=<Invalid>)") for r in reprs), reprs


def test_repr_of_a_stale_view_shows_its_regenerated_history() -> None:
    for lib in LIBS:
        b = _f64(lib, [1.0, 2.0], requires_grad=True) * 1
        v = b[:1]
        b.mul_(2)
        assert repr(v).endswith("grad_fn=<AsStridedBackward0>)"), repr(v)


# -- bug 7: anomaly mode with warnings turned into errors --------------------------------------


@pytest.mark.parametrize("failure", ["raises", "nan"])
def test_anomaly_mode_under_warnings_as_errors_raises_the_error_not_the_warning(failure: str) -> None:
    kinds = []
    for lib in LIBS:
        def backward(ctx: Any, g: Any) -> Any:
            raise ValueError("boom")

        f = _fn(lib, lambda ctx, x: x.clone(), backward)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            anomaly = lib.autograd.detect_anomaly()
        with anomaly:
            x = _f64(lib, [1.0], requires_grad=True)
            y = f.apply(x) if failure == "raises" else (x * 0).div(x * 0)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                kinds.append(_outcome(lambda: y.sum().backward()))
    (theirs, _), (ours, msg) = kinds
    assert ours is theirs is (ValueError if failure == "raises" else RuntimeError)
    assert ("boom" if failure == "raises" else "nan values") in msg


# -- bug 8: hooks on grad_fn accept any callable ------------------------------------------------


class _Recorder:
    def __init__(self, calls: list[Any]) -> None:
        self.calls = calls

    def __call__(self, *args: Any) -> None:
        self.calls.append(tuple(len(a) for a in args))


def test_grad_fn_hooks_accept_callable_objects_and_partials_as_in_pytorch() -> None:
    seen = []
    for lib in LIBS:
        calls: list[Any] = []
        x = _f64(lib, [1.0, 2.0], requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(_Recorder(calls))
        y.grad_fn.register_prehook(_Recorder(calls))
        y.grad_fn.register_hook(functools.partial(lambda tag, gi, go: calls.append(tag), "post"))
        y.grad_fn.register_prehook(functools.partial(lambda tag, go: calls.append(tag), "pre"))
        y.sum().backward()
        seen.append(calls)
    assert seen[0] == seen[1]
    assert seen[1] == [(1,), "pre", (2, 1), "post"]


@pytest.mark.parametrize("method", ["register_hook", "register_prehook"])
def test_grad_fn_hooks_refuse_non_callables_with_pytorchs_error_type(method: str) -> None:
    """PyTorch takes the object and raises TypeError when backward calls it; jitgrad raises
    the same type at once, and its backward is untouched."""
    x = _f64(torch, [1.0], requires_grad=True)
    getattr((x * 2).grad_fn, method)(3)
    with pytest.raises(TypeError):
        (x * 2).grad_fn  # noqa: B018 - registration itself is fine in PyTorch
        y = x * 2
        getattr(y.grad_fn, method)(3)
        y.sum().backward()
    x = _f64(jitgrad, [1.0], requires_grad=True)
    y = x * 2
    with pytest.raises(TypeError, match="callable"):
        getattr(y.grad_fn, method)(3)
    y.sum().backward()
    assert x.grad.tolist() == [2.0]


# -- bug 10: one value written through a self-overlapping view ----------------------------------


def test_issue_example_copy_of_one_value_into_an_expanded_view() -> None:
    for replay in (False, True):
        with jitgrad.autograd.view_replay(replay):
            x = _f64(jitgrad, [0.5], requires_grad=True)
            p = _f64(jitgrad, 2.0, requires_grad=True)
            base = x * 1.0
            v = base.expand(2)
            v.copy_(p)
            (base.sum() + (v * _f64(jitgrad, [10.0, 100.0])).sum()).backward()
            assert p.grad.item() == 111.0  # the loss is 111 * p
            assert x.grad.tolist() == [0.0]


_WEIGHTS = np.array([1.0, -2.0, 3.0, 5.0, -7.0, 11.0])

# (how to take the self-overlapping view of the base of 6 elements, how to write one value)
_VIEWS: dict[str, Callable[[Any], Any]] = {
    "expand": lambda b: b[1:2].expand(3, 3),
    "as_strided": lambda b: b.as_strided((3, 3), (1, 1), 1),
    "unfold": lambda b: b.unfold(0, 3, 1),
    "as_strided_zero_stride": lambda b: b.as_strided((2, 3), (0, 2), 0),
}
_WRITES: dict[str, Callable[[Any, Any], Any]] = {
    "copy_0d": lambda v, p: v.copy_(p * 2.0),
    "copy_1elem": lambda v, p: v.copy_((p * 2.0).reshape(1)),
    "fill_tensor": lambda v, p: v.fill_(p * 2.0),
    "setitem_all": lambda v, p: v.__setitem__((), p * 3.0),
    "setitem_slice": lambda v, p: v.__setitem__((slice(1, None),), p * 3.0),
    "setitem_advanced": lambda v, p: v.__setitem__(([0, 0, 1],), (p * 3.0).reshape(1)),
    "setitem_advanced_last": lambda v, p: v.__setitem__((slice(None), [2, 1]), (p * 3.0).reshape(1)),
    "index_put": lambda v, p: v.index_put_((jitgrad.tensor([1, 0, 1]),), (p * 3.0).reshape(1)),
}


def _loss(x: Any, p: Any, view: str, write: str) -> Any:
    base = x * 1.5
    v = _VIEWS[view](base)
    _WRITES[write](v, p)
    return (base * _f64(jitgrad, _WEIGHTS)).sum() + (v * v).sum() * 0.5 + (v.sum() * p)


def _numeric(view: str, write: str, xs: np.ndarray, ps: float, eps: float = 1e-6) -> tuple[np.ndarray, float]:
    def f(xv: np.ndarray, pv: float) -> float:
        with jitgrad.no_grad():
            return float(_loss(_f64(jitgrad, xv), _f64(jitgrad, pv), view, write).item())

    gx = np.zeros_like(xs)
    for i in range(xs.size):
        d = np.zeros_like(xs)
        d[i] = eps
        gx[i] = (f(xs + d, ps) - f(xs - d, ps)) / (2 * eps)
    return gx, (f(xs, ps + eps) - f(xs, ps - eps)) / (2 * eps)


@pytest.mark.parametrize("replay", [False, True], ids=["as_strided", "view_replay"])
@pytest.mark.parametrize("create_graph", [False, True], ids=["data", "create_graph"])
@pytest.mark.parametrize("write", list(_WRITES))
@pytest.mark.parametrize("view", list(_VIEWS))
def test_one_value_through_self_overlapping_view_matches_finite_differences(
    view: str, write: str, create_graph: bool, replay: bool
) -> None:
    xs = np.array([0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
    ps = 0.8
    with jitgrad.autograd.view_replay(replay):
        x = _f64(jitgrad, xs, requires_grad=True)
        p = _f64(jitgrad, ps, requires_grad=True)
        _loss(x, p, view, write).backward(create_graph=create_graph)
    gx, gp = _numeric(view, write, xs, ps)
    np.testing.assert_allclose(x.grad.detach().numpy(), gx, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(p.grad.detach().item(), gp, rtol=1e-6, atol=1e-6)


def test_one_value_through_self_overlapping_view_double_backward_matches_finite_differences() -> None:
    """d(p.grad)/dp: the first backward's graph through CopySlices, differentiated again."""
    def first(pv: float) -> float:
        p = _f64(jitgrad, pv, requires_grad=True)
        x = _f64(jitgrad, [0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
        (g,) = jitgrad.autograd.grad(_loss(x, p, "unfold", "fill_tensor"), [p])
        return float(g.item())

    p = _f64(jitgrad, 0.8, requires_grad=True)
    x = _f64(jitgrad, [0.3, -1.2, 0.7, 2.0, -0.4, 1.1])
    (g,) = jitgrad.autograd.grad(_loss(x, p, "unfold", "fill_tensor"), [p], create_graph=True)
    (gg,) = jitgrad.autograd.grad(g, [p])
    eps = 1e-6
    np.testing.assert_allclose(gg.item(), (first(0.8 + eps) - first(0.8 - eps)) / (2 * eps), rtol=1e-6)


def test_one_value_through_a_non_overlapping_view_still_matches_pytorch() -> None:
    """The distinct-location counting applies only to self-overlapping views: elsewhere,
    PyTorch's gradient (repeated indices counted per index, as index_put_'s backward does)."""
    grads = []
    for lib in LIBS:
        p = _f64(lib, 2.0, requires_grad=True)
        b = _f64(lib, [0.0, 0.0, 0.0], requires_grad=True) * 1
        b[[0, 0, 2]] = p * 1.0
        (b * _f64(lib, [1.0, 10.0, 100.0])).sum().backward()
        grads.append(p.grad.item())
    assert grads[0] == grads[1] == 102.0


def test_overwritten_elements_get_zero_not_nan_when_the_gradient_is_infinite() -> None:
    """Found by the fuzzer: ``x[[0]] = 7.5`` then exp(exp(x)) overflows; the old value of the
    overwritten element gets 0 from PyTorch (index_put_ of zeros), jitgrad gave 0 * inf = NaN."""
    grads = []
    for lib in LIBS:
        x = _f64(lib, [0.1, 0.2], requires_grad=True)
        b = x * 1.5
        b[[0]] = 7.5
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # exp overflow
            b.exp().exp().sum().backward()
        grads.append(x.grad.detach().numpy().copy())
    np.testing.assert_array_equal(grads[0], grads[1])
    assert grads[1][0] == 0.0


def test_aliases_get_zero_not_nan_when_the_gradient_is_infinite() -> None:
    x = _f64(jitgrad, [0.1, 0.2], requires_grad=True)
    p = _f64(jitgrad, 7.5, requires_grad=True)
    b = x * 1.5
    b[:1].expand(3).copy_(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (b.exp().exp() * _f64(jitgrad, [1.0, 0.0])).sum().backward()
    assert np.isinf(p.grad.item()) and x.grad.tolist() == [0.0, 0.0]
