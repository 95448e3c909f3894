"""``jitgrad.compile``: compiled runs against eager jitgrad (values and gradients to 1e-12
relative), on the demo's heat problem, soft-DTW, random view + in-place programs, and the
contract around it: guards, fallback messages, data-dependent errors, hooks, autograd.grad,
create_graph, mixing with eager code."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings

import jitgrad
from jitgrad.cli import heat
from jitgrad.cli.bench_compile import soft_dtw_and_table as soft_dtw
from jitgrad.compiler import CompileFallbackWarning, CompiledFunction, DataDependentError, Program

from conftest import budget
from fuzz.builder import programs
from fuzz.programs import ERRORS, Program as FuzzProgram, _leaf, apply_step

RTOL = 1e-12


def close(a: Any, b: Any, rtol: float = RTOL) -> None:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    same = (a == b) | (np.isnan(a) & np.isnan(b))  # (infinities and nans agree exactly)
    finite = np.abs(b[np.isfinite(b)])
    scale = max(finite.max(initial=0.0), 1e-300)
    assert np.all(same | (np.abs(a - b) <= rtol * scale)), (a, b)


def t64(values: Any, requires_grad: bool = False) -> jitgrad.Tensor:
    return jitgrad.tensor(np.asarray(values, np.float64), dtype=jitgrad.float64, requires_grad=requires_grad)


def lowered(fn: CompiledFunction) -> list[Program]:
    return [p for p in fn.cache.values() if isinstance(p, Program)]


# -- the targets: heat and soft-DTW ----------------------------------------------------------
def heat_case(n: int = 32, steps: int = 20) -> tuple[Any, ...]:
    problem = heat.make_problem(n, steps, seed=0)
    observed = [t64(o) for o in problem.observed]

    def loss(u0: jitgrad.Tensor, alpha: jitgrad.Tensor) -> jitgrad.Tensor:
        return heat.objective(jitgrad, problem, u0, alpha, observed)[0]

    u0 = t64(np.random.default_rng(1).standard_normal(n - 2), requires_grad=True)
    theta = t64(heat.theta_of(0.2), requires_grad=True)
    return loss, u0, theta


def run_heat(fn: Any, u0: jitgrad.Tensor, theta: jitgrad.Tensor) -> tuple[Any, ...]:
    u0.grad = theta.grad = None
    value = fn(u0, heat.alpha_of(jitgrad, theta))
    value.backward()
    return value.item(), u0.grad.detach().numpy().copy(), theta.grad.detach().numpy().copy()


def test_heat_matches_eager() -> None:
    loss, u0, theta = heat_case()
    compiled = jitgrad.compile(loss)
    eager = run_heat(loss, u0, theta)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileFallbackWarning)
        first = run_heat(compiled, u0, theta)
        again = run_heat(compiled, u0, theta)
    assert len(lowered(compiled)) == 1
    for got in (first, again):
        for a, b in zip(got, eager):
            close(a, b)
    assert first[0] == again[0] and np.array_equal(first[1], again[1])


def test_soft_dtw_matches_eager_and_pytorch() -> None:
    rng = np.random.default_rng(3)
    xn, yn = rng.standard_normal(9), rng.standard_normal(11)
    compiled = jitgrad.compile(soft_dtw)
    results = []
    for fn in (soft_dtw, compiled, compiled):
        x, y = t64(xn, True), t64(yn, True)
        value, table = fn(jitgrad, x, y, 0.1)
        (value + table[3:, 2:].sum() * 0.01).backward()
        results.append((value.item(), table.detach().numpy().copy(), x.grad.detach().numpy(), y.grad.detach().numpy()))
    assert len(lowered(compiled)) == 1
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            close(a, b)
    xt, yt = torch.tensor(xn, requires_grad=True), torch.tensor(yn, requires_grad=True)
    value, table = soft_dtw(torch, xt, yt, 0.1)
    (value + table[3:, 2:].sum() * 0.01).backward()
    close(results[1][2], xt.grad.detach().numpy(), 1e-10)


# -- random programs of views and in-place writes (tests/fuzz) ------------------------------
def fuzz_function(program: FuzzProgram) -> Any:
    def fn(*leaves: jitgrad.Tensor) -> jitgrad.Tensor:
        slots = [leaves[program.base_from] * 1.5]
        for step in program.steps:
            apply_step(jitgrad, step, slots, list(leaves))
        loss = None
        for coef, t in zip(program.coefs, slots):
            term = (t * coef).sum()
            loss = term if loss is None else loss + term
        return loss

    return fn


def fuzz_run(fn: Any, program: FuzzProgram) -> tuple[float, list[np.ndarray | None]] | None:
    leaves = [_leaf(jitgrad, a) for a in program.leaf_data]
    try:
        loss = fn(*leaves)
        loss.backward()
    except ERRORS:
        return None
    return loss.item(), [None if x.grad is None else x.grad.detach().numpy().copy() for x in leaves]


LOWERED_FUZZ = [0]


@settings(max_examples=budget(120), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_fuzz_programs_compiled_match_eager(program: FuzzProgram) -> None:
    eager = fuzz_run(fuzz_function(program), program)
    compiled = jitgrad.compile(fuzz_function(program))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileFallbackWarning)
        runs = [fuzz_run(compiled, program), fuzz_run(compiled, program)]
    if eager is None:  # eager raised: so does the trace (the eager run), and the replay
        assert runs == [None, None]
        return
    LOWERED_FUZZ[0] += bool(lowered(compiled))
    for got in runs:
        assert got is not None
        close(got[0], eager[0])
        for a, b in zip(got[1], eager[1]):
            assert (a is None) == (b is None)
            if a is not None:
                close(a, b, 1e-11)


def test_fuzz_programs_mostly_lower() -> None:
    """The fuzz test above is not vacuous: most of its programs ran compiled."""
    if LOWERED_FUZZ[0] == 0:
        test_fuzz_programs_compiled_match_eager()
    assert LOWERED_FUZZ[0] >= 10, LOWERED_FUZZ


@pytest.mark.parametrize("body", [
    lambda x, w: (x * w[1, 2])[1:].sin().sum(),
    lambda x, w: _setitem_chain(x, w),
    lambda x, w: _overlapping_update(x, w),
    lambda x, w: jitgrad.cat([x, w.reshape(-1)[:3]]).exp().mean(),
    lambda x, w: jitgrad.logsumexp(x.reshape(2, 2) * w[0, :2], dim=1).sum(),
])
def test_views_and_inplace_programs_lower(body: Any) -> None:
    compiled = jitgrad.compile(body)
    got = []
    for fn in (body, compiled, compiled):
        x = t64([0.3, -1.2, 2.0, 0.7], True)
        w = t64(np.arange(6.0).reshape(2, 3) / 5, True)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileFallbackWarning)
            out = fn(x, w)
        out.backward()
        got.append((out.item(), x.grad.detach().numpy(), w.grad.detach().numpy()))
    assert len(lowered(compiled)) == 1
    for g in got[1:]:
        for a, b in zip(g, got[0]):
            close(a, b)


def _setitem_chain(x: jitgrad.Tensor, w: jitgrad.Tensor) -> jitgrad.Tensor:
    b = jitgrad.zeros(3, 4, dtype=jitgrad.float64)
    b[0] = x
    b[1:, ::2] = w[:, :2] * 3
    b.t()[1].mul_(x[:3])
    b[2, 3] = 5.0
    return (b * b).sum()


def _overlapping_update(x: jitgrad.Tensor, w: jitgrad.Tensor) -> jitgrad.Tensor:
    u = x * 1.0
    u.mul_(w[0, 0])
    u[1:] = u[:-1].clone()
    return (u ** 3).sum()


def test_saved_tensor_written_since_raises_as_eager() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        u = x * 1.0
        u[1:] += u[:-1] * x[0]  # mul saved u[:-1]; the write moves its version
        return u.sum()

    for fn in (f, jitgrad.compile(f), jitgrad.compile(f)):
        out = fn(t64([1.0, 2.0, 3.0], True))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


# -- guards ---------------------------------------------------------------------------------
def test_guards_retrace_on_geometry_flags_and_values() -> None:
    calls = []

    def f(x: jitgrad.Tensor, k: float) -> jitgrad.Tensor:
        calls.append(1)
        return (x * k).sum()

    compiled = jitgrad.compile(f)
    a = t64(np.arange(6.0).reshape(2, 3), True)
    compiled(a, 2.0)
    compiled(a, 2.0)
    assert len(calls) == 1  # traced once, replayed
    compiled(a, 3.0)  # another number
    compiled(a.t(), 3.0)  # other strides
    compiled(t64(np.ones(4), True), 3.0)  # another shape
    compiled(t64(np.ones(4)), 3.0)  # requires_grad flag
    assert len(calls) == 5 and len(compiled.cache) == 5
    x = a.t()
    out = compiled(x, 3.0)
    out.backward()
    close(a.grad.detach().numpy(), np.full((2, 3), 3.0))


def test_outside_tensor_written_since_retraces() -> None:
    scale = t64([2.0, 3.0])
    compiled = jitgrad.compile(lambda x: (x * scale).sum())
    x = t64([1.0, 1.0], True)
    assert compiled(x).item() == 5.0
    scale.mul_(2)
    assert compiled(x).item() == 10.0


# -- fallback, errors -----------------------------------------------------------------------
def test_fallback_names_the_op_and_matches_eager() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        return (x.amax(dim=0) * x).sum()

    compiled = jitgrad.compile(f)
    x = t64([[1.0, 2.0], [3.0, 0.5]], True)
    with pytest.warns(CompileFallbackWarning, match="AmaxBackward0"):
        out = compiled(x)
    out.backward()
    expected = x.grad.detach().numpy().copy()
    x.grad = None
    f(x).backward()
    close(expected, x.grad.detach().numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileFallbackWarning)  # warned once per geometry
        compiled(x)


def test_unrecorded_inplace_write_falls_back() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        y = x * 1.0
        y.pow_(3)
        return y.sum()

    compiled = jitgrad.compile(f)
    x = t64([1.0, 2.0], True)
    with pytest.warns(CompileFallbackWarning, match="pow_"):
        out = compiled(x)
    assert out.item() == 9.0


def test_write_into_input_falls_back_and_bumps_version() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        x.add_(1.0)
        return x * 2

    compiled = jitgrad.compile(f)
    x = t64([1.0, 2.0])
    with pytest.warns(CompileFallbackWarning, match="writes into an input"):
        out = compiled(x)
    assert x._version == 1 and out.tolist() == [4.0, 6.0]


def test_data_dependent_branch_names_the_line() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        if x.sum() > 0:  # the line the error names
            return x * 2
        return x

    compiled = jitgrad.compile(f)
    with pytest.raises(DataDependentError, match=r"test_compile\.py:\d+: if x.sum\(\) > 0:") as info:
        compiled(t64([1.0, 2.0], True))
    assert isinstance(info.value, RuntimeError)
    assert jitgrad._tracing.ACTIVE is None
    with pytest.raises(DataDependentError, match="item"):
        jitgrad.compile(lambda x: x * (x.sum().item()))(t64([1.0]))


def test_detach_inside_falls_back() -> None:
    compiled = jitgrad.compile(lambda x: (x * x.detach()).sum())
    x = t64([1.0, 3.0], True)
    with pytest.warns(CompileFallbackWarning, match="detach"):
        compiled(x).backward()
    close(x.grad.detach().numpy(), [1.0, 3.0])


# -- autograd around it ---------------------------------------------------------------------
def test_hooks_grad_and_mixing_with_eager() -> None:
    loss, u0, theta = heat_case(16, 8)
    compiled = jitgrad.compile(loss)
    seen = []
    u0.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * 2)
    out = {}
    for name, fn in (("eager", loss), ("compiled", compiled), ("again", compiled)):
        u0.grad = theta.grad = None
        value = fn(u0.exp() * 0.5, heat.alpha_of(jitgrad, theta)) * 3  # eager before and after
        gu, gt = jitgrad.autograd.grad(value, [u0, theta], retain_graph=True)
        value.backward()
        out[name] = (gu.detach().numpy(), gt.detach().numpy(), u0.grad.detach().numpy(), value.item())
    for name in ("compiled", "again"):
        for a, b in zip(out[name], out["eager"]):
            close(a, b)
    assert len(seen) == 6
    close(out["eager"][2], out["eager"][0])  # the hook doubled it... both times


def test_create_graph_reruns_eagerly() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        y = x * 1.0
        y[1:] *= x[:-1]
        return (y ** 3).sum()

    compiled = jitgrad.compile(f)
    results = []
    for fn in (f, compiled):
        x = t64([0.5, -1.0, 2.0], True)
        out = fn(x)
        ctx = pytest.warns(CompileFallbackWarning, match="create_graph") if fn is compiled else warnings.catch_warnings()
        with ctx:
            (g,) = jitgrad.autograd.grad(out, x, create_graph=True)
        (g * g).sum().backward()
        results.append((g.detach().numpy(), x.grad.detach().numpy()))
    for a, b in zip(results[1], results[0]):
        close(a, b)


def test_no_grad_call_and_outputs() -> None:
    compiled = jitgrad.compile(lambda x: (x.sigmoid(), x * 2))
    x = t64([0.0, 1.0], True)
    with jitgrad.no_grad():
        s, d = compiled(x)
        s, d = compiled(x)
    assert s.grad_fn is None and not d.requires_grad
    s, d = compiled(x)
    s, d = compiled(x)
    assert s.grad_fn is d.grad_fn and s.grad_fn.name() == "CompiledFunctionBackward"
    (s.sum() + d.sum()).backward()
    close(x.grad.detach().numpy(), [0.25 + 2, 0.25 * 0 + 1 / (1 + np.e) * (1 - 1 / (1 + np.e)) + 2])


def test_demo_fit_uses_compile_and_prints_the_times(capsys: Any) -> None:
    from jitgrad.cli import demo

    assert demo.main(["--n", "16", "--steps", "8", "--iters", "3", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "jitgrad eager" in text and "jitgrad.compile" in text and "PyTorch" in text


def test_bench_compile_quick_runs(capsys: Any, monkeypatch: Any) -> None:
    from jitgrad.cli import bench_compile

    monkeypatch.setattr(bench_compile, "first_call_in_subprocess", lambda cache: (0.0,) * 4)
    assert bench_compile.run(quick=True) == 0
    text = capsys.readouterr().out
    assert "jitgrad.compile" in text and "soft-DTW 8x10" in text and "from the disk cache" in text


def test_warmup_runs_the_interpreters() -> None:
    from jitgrad.compiler import warmup

    warmup()  # (compiled or loaded from the cache: must not raise)


def test_aliased_inputs_and_other_dtypes_fall_back() -> None:
    compiled = jitgrad.compile(lambda a, b: (a * b).sum())
    x = t64(np.arange(4.0).reshape(2, 2), True)
    with pytest.warns(CompileFallbackWarning, match="share memory"):
        out = compiled(x, x.t())
    out.backward()
    close(x.grad.detach().numpy(), 2 * np.arange(4.0).reshape(2, 2).T)  # d sum(x * x.T) / dx
    with pytest.warns(CompileFallbackWarning, match="a float32 input in a float64 program"):
        assert compiled(jitgrad.ones(2, dtype=jitgrad.float64), jitgrad.ones(2, dtype=jitgrad.float32)).item() == 2.0
    with pytest.warns(CompileFallbackWarning, match="int64 input"):
        assert compiled(jitgrad.ones(2, dtype=jitgrad.int64), jitgrad.ones(2, dtype=jitgrad.int64)).item() == 2


def test_float32_programs_lower_and_match_eager() -> None:
    problem = heat.make_problem(24, 12, seed=0)
    observed = [jitgrad.tensor(o, dtype=jitgrad.float32) for o in problem.observed]

    def heat_loss(u0: jitgrad.Tensor, theta: jitgrad.Tensor) -> jitgrad.Tensor:
        return heat.objective(jitgrad, problem, u0, heat.alpha_of(jitgrad, theta), observed)[0]

    def dtw(x: jitgrad.Tensor, y: jitgrad.Tensor) -> jitgrad.Tensor:
        return soft_dtw(jitgrad, x, y, 0.5)[0]

    rng = np.random.default_rng(4)
    cases = [(heat_loss, [rng.standard_normal(22) * 0.1, np.array(heat.theta_of(0.2))]),
             (dtw, [rng.standard_normal(5), rng.standard_normal(7)])]
    for fn, arrays in cases:
        compiled = jitgrad.compile(fn)
        results = []
        for f in (fn, compiled, compiled):
            leaves = [jitgrad.tensor(a, dtype=jitgrad.float32, requires_grad=True) for a in arrays]
            with warnings.catch_warnings():
                warnings.simplefilter("error", CompileFallbackWarning)
                out = f(*leaves)
            out.backward()
            assert out.dtype == jitgrad.float32 and all(t.grad.dtype == jitgrad.float32 for t in leaves)
            results.append([out.item()] + [t.grad.detach().numpy().copy() for t in leaves])
        assert len(lowered(compiled)) == 1 and lowered(compiled)[0].dtype == np.float32
        for got in results[1:]:
            for a, b in zip(got, results[0]):
                close(a, b, rtol=2e-5)
        assert all(np.array_equal(a, b) for a, b in zip(results[1], results[2]))


def test_backward_twice_with_retain_graph() -> None:
    loss, u0, theta = heat_case(12, 6)
    compiled = jitgrad.compile(loss)
    grads = []
    for fn in (loss, compiled):
        u0.grad = theta.grad = None
        out = fn(u0, heat.alpha_of(jitgrad, theta))
        out.backward(retain_graph=True)
        out.backward()
        grads.append((u0.grad.detach().numpy().copy(), theta.grad.detach().numpy().copy()))
    for a, b in zip(grads[1], grads[0]):
        close(a, b)


# -- inputs and outputs written in place after the call --------------------------------------
def _backward_error(fn: Any, make: Any, write: Any) -> str | None:
    """Call ``fn`` on fresh inputs, ``write`` in place to (inputs, out), then backward: the
    error's message, or None."""
    inputs = make()
    out = fn(*inputs)
    write(inputs, out)
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("case", ["saved_input", "saved_input_view", "unsaved_input", "saved_output", "nonleaf_input"])
def test_inputs_and_outputs_written_after_the_call_raise_as_eager(case: str) -> None:
    def no_grad_add(t: jitgrad.Tensor) -> None:
        with jitgrad.no_grad():
            t.add_(1.0)

    def leaf() -> tuple[jitgrad.Tensor, ...]:
        return (t64([1.0, 2.0, 3.0], True),)

    def nonleaf() -> tuple[jitgrad.Tensor, ...]:
        return (t64([1.0, 2.0, 3.0], True) * 1.0,)

    fn, make, write = {
        "saved_input": (lambda x: x * x, leaf, lambda i, o: no_grad_add(i[0])),
        "saved_input_view": (lambda x: x * x[0], leaf, lambda i, o: no_grad_add(i[0][2:])),
        "unsaved_input": (lambda x: x + 2.0, leaf, lambda i, o: no_grad_add(i[0])),
        "saved_output": (lambda x: x.exp(), leaf, lambda i, o: no_grad_add(o)),
        "nonleaf_input": (lambda x: (x * x).sum(0, keepdim=True), nonleaf, lambda i, o: i[0].mul_(2.0)),
    }[case]
    compiled = jitgrad.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileFallbackWarning)
        _backward_error(compiled, make, lambda i, o: None)  # trace
        assert len(lowered(compiled)) == 1
        got = _backward_error(compiled, make, write)
    want = _backward_error(fn, make, write)
    if want is None:
        assert got is None, got
    else:
        assert got is not None and "modified by an inplace operation" in got, got
        assert "modified by an inplace operation" in want
        # the same version numbers as eager's message
        assert got.split("is at version")[1].split(";")[0] == want.split("is at version")[1].split(";")[0]


def test_backward_twice_without_retain_graph_raises_as_eager() -> None:
    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        return (x * x).sum()

    for fn in (f, jitgrad.compile(f), jitgrad.compile(f)):
        out = fn(t64([1.0, 2.0], True))
        out.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.backward()


def test_backward_three_times_with_retain_graph_replays_the_forward() -> None:
    loss, u0, theta = heat_case(12, 6)
    compiled = jitgrad.compile(loss)
    compiled(u0, heat.alpha_of(jitgrad, theta))  # trace
    u0.grad = None
    out = compiled(u0, heat.alpha_of(jitgrad, theta))
    grads = []
    for _ in range(3):
        u0.grad = None
        out.backward(retain_graph=True)
        grads.append(u0.grad.detach().numpy().copy())
    assert np.array_equal(grads[0], grads[1]) and np.array_equal(grads[0], grads[2])


CLOSURE = t64([5.0, 6.0, 7.0])


@pytest.mark.parametrize("case", ["input_itself", "view_of_input", "closure_view"])
def test_outputs_aliasing_an_input_fall_back_as_eager(case: str) -> None:
    fn = {
        "input_itself": lambda x: (x, x * 2.0),
        "view_of_input": lambda x: (x * 2.0, x[1:]),
        "closure_view": lambda x: (x * CLOSURE, CLOSURE[1:]),
    }[case]
    compiled = jitgrad.compile(fn)
    x = t64([1.0, 2.0, 3.0], True)
    what = "a tensor from outside the function" if case == "closure_view" else "input 0"
    with pytest.warns(CompileFallbackWarning, match=f"shares memory with {what}"):
        outs = compiled(x)
    assert not lowered(compiled)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileFallbackWarning)  # (warned once per geometry)
        outs = compiled(x)
    for a, b in zip(outs, fn(x)):
        close(a.detach().numpy(), b.detach().numpy())
        assert (a._storage is x._storage) == (b._storage is x._storage)
        assert (a._storage is CLOSURE._storage) == (b._storage is CLOSURE._storage)


@pytest.mark.parametrize("case", ["two_views", "same_twice", "table_and_cell"])
def test_outputs_that_are_views_of_one_another_stay_views(case: str) -> None:
    def fn(x: jitgrad.Tensor) -> Any:
        y = x * 2.0
        if case == "two_views":
            return y[1:], (y.exp(), y.reshape(2, 2).t())
        if case == "same_twice":
            return y, y
        t = jitgrad.zeros((3, 3), dtype=x.dtype)
        t[1:, 1:] = y.reshape(2, 2)
        return t[2, 2], t

    compiled = jitgrad.compile(fn)
    results = []
    for f in (fn, compiled, compiled):
        x = t64([1.0, -2.0, 3.0, 0.5], True)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileFallbackWarning)
            out = f(x)
        flat = [out[0], out[1][0], out[1][1]] if case == "two_views" else list(out)
        shared = [[a._storage is b._storage for b in flat] for a in flat]
        loss = sum(((t * (i + 1.5)) ** 2).sum() for i, t in enumerate(flat))
        loss.backward()
        flat[-1].detach().mul_(3.0)  # (a write through one shows in the others)
        results.append(([t.detach().numpy().copy() for t in flat], shared, x.grad.detach().numpy().copy()))
    assert len(lowered(compiled)) == 1
    for got in results[1:]:
        for a, b in zip(got[0], results[0][0]):
            close(a, b)
        assert got[1] == results[0][1]
        close(got[2], results[0][2])


def test_create_graph_through_outputs_that_are_views_of_one_another() -> None:
    def fn(x: jitgrad.Tensor) -> Any:
        t = jitgrad.zeros((3, 3), dtype=x.dtype)
        t[1:, 1:] = (x * x).reshape(2, 2)
        return t[2, 2], t

    compiled = jitgrad.compile(fn)
    grads = []
    for f in (fn, compiled, compiled):
        x = t64([1.0, -2.0, 3.0, 0.5], True)
        cell, table = f(x)
        loss = cell * 3.0 + (table ** 3).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CompileFallbackWarning)
            (g,) = jitgrad.autograd.grad(loss, x, create_graph=True)
        (gg,) = jitgrad.autograd.grad(g.sum(), x)
        grads.append((g.detach().numpy().copy(), gg.detach().numpy().copy()))
    for got in grads[1:]:
        for a, b in zip(got, grads[0]):
            close(a, b)


def test_augmented_assignment_into_a_view_records_no_copy_onto_itself() -> None:
    from jitgrad.compiler import _interp_jit as K

    def f(x: jitgrad.Tensor) -> jitgrad.Tensor:
        u = x * 1.0
        for _ in range(3):
            u[1:-1] += (u[2:] - u[:-2]) * 0.25  # (ends with u[1:-1] = <the same view>)
        return (u * u).sum()

    compiled = jitgrad.compile(f)
    grads = []
    for fn in (f, compiled, compiled):
        x = t64([1.0, -2.0, 3.0, 0.5, 4.0], True)
        fn(x).backward()
        grads.append(x.grad.detach().numpy().copy())
    for g in grads[1:]:
        close(g, grads[0])
    ti = lowered(compiled)[0].ti
    copies = ti[ti[:, K.OP] == K.COPY]
    assert not any((r[K.OUT: K.OUT + K.R + 1] == r[K.A: K.A + K.R + 1]).all() for r in copies)
    assert (ti[:, K.SAVE] >= 0).sum() == 3  # one save per in-place add, none for the self-copies
