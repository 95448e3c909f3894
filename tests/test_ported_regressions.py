"""Regressions found by running test_autograd.py of PyTorch against jitgrad (its behaviours
are tested in our own programs in tests/test_autograd_behaviours.py), each checked against
PyTorch (float64)."""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pytest
import torch

import jitgrad


def _grad_mode_trace(lib, decorator_name, outer_name):
    """Grad mode seen by a decorated generator's body and by its caller, send by send."""
    deco = getattr(lib, decorator_name)
    seen = []

    @deco()
    def gen():
        for i in range(3):
            seen.append(("body", lib.is_grad_enabled()))
            r = yield i
            seen.append(("resumed", r, lib.is_grad_enabled()))

    with getattr(lib, outer_name)():
        g = gen()
        r = None
        try:
            while True:
                r = g.send(r)
                seen.append(("caller", r, lib.is_grad_enabled()))
        except StopIteration:
            pass
    return seen


@pytest.mark.parametrize("decorator_name,outer_name", [("no_grad", "enable_grad"), ("enable_grad", "no_grad")])
def test_grad_mode_decorated_generator_matches_pytorch(decorator_name, outer_name):
    assert _grad_mode_trace(jitgrad, decorator_name, outer_name) == _grad_mode_trace(
        torch, decorator_name, outer_name)


def test_grad_mode_decorators_without_parentheses_match_pytorch():
    for lib in (torch, jitgrad):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            y = lib.enable_grad(lambda t: t * 2)(x)
        z = lib.no_grad(lambda t: t * 2)(x)
        assert (y.requires_grad, z.requires_grad) == (True, False)


def test_grad_mode_decorated_class_warns_like_pytorch():
    for lib in (torch, jitgrad):
        with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
            @lib.no_grad()
            class Foo:
                def __init__(self):
                    self.mode = lib.is_grad_enabled()

                def method(self):
                    return lib.is_grad_enabled()

        foo = Foo()
        assert (foo.mode, foo.method()) == (False, True)


def test_nextafter_gradient_matches_pytorch():
    """PyTorch 2.13 differentiates nextafter (grad to input where input != other, zeros to
    other); jitgrad raised 'derivative for aten::nextafter is not implemented'."""
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0, float("nan"), 0.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([2.0, 2.0, 1.0, 1.0, float("nan")], dtype=lib.float64, requires_grad=True)
        c = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        g = lib.tensor([3.0, 5.0, 7.0, 11.0, 13.0], dtype=lib.float64)
        y = lib.nextafter(a, b)
        y.backward(g)
        lib.nextafter(a, c).sum().backward()
        return y.grad_fn.name(), a.grad.detach().numpy(), b.grad.detach().numpy(), c.grad.detach().numpy()

    (tn, *tg), (jn, *jg) = run(torch), run(jitgrad)
    assert tn == jn
    for t, j in zip(tg, jg):
        np.testing.assert_array_equal(j, t)


def test_nextafter_saved_input_modified_in_place_raises_like_pytorch():
    for lib in (torch, jitgrad):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).clone()
        b = lib.tensor([2.0, 2.0], dtype=lib.float64)
        y = lib.nextafter(a, b)
        a.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def _once_differentiable_graph(lib):
    from importlib import import_module

    once_differentiable = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale, y):
            ctx.save_for_backward(x, y)
            return x * y * scale

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, None, g * x

    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    y = lib.ones(3, dtype=lib.float64, requires_grad=True)
    go = lib.ones((), dtype=lib.float64, requires_grad=True)
    gx, gy = lib.autograd.grad(MyFunction.apply(x, 2, y).sum(), (x, y), go, create_graph=True)
    err = gx.grad_fn
    edges = [None if f is None else type(f).__name__ for f, _ in err.next_functions]
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        gx.sum().backward()
    return type(err).__name__, err.name(), edges, gx.output_nr, gy.output_nr


def test_once_differentiable_error_node_matches_pytorch():
    """PyTorch's ``Error`` node has one edge per output of the backward (None for the
    non-tensor one); jitgrad named it DelayedError and dropped the None edge."""
    assert _once_differentiable_graph(jitgrad) == _once_differentiable_graph(torch)


def test_instantiating_a_function_warns_and_calling_it_raises_like_pytorch():
    for lib in (torch, jitgrad):
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x

            def backward(self, g):
                return g

        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            f = Legacy()
        assert f.forward(7) == 7
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
            f(lib.ones(1))


def test_saved_variables_is_deprecated_alias_like_pytorch():
    for lib in (torch, jitgrad):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    (x,) = ctx.saved_variables
                seen.append((str(w[0].message), w[0].category, x is not None))
                return g * 2

        F.apply(lib.ones(2, dtype=lib.float64, requires_grad=True)).sum().backward()
        assert seen == [("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, True)]


def test_inplace_function_exists_like_pytorch():
    for lib in (torch, jitgrad):
        from importlib import import_module

        inplace_function = import_module(lib.__name__ + ".autograd.function").InplaceFunction
        assert issubclass(inplace_function, lib.autograd.Function)
        with pytest.raises(NotImplementedError):
            inplace_function.apply(lib.ones(1, requires_grad=True))


def _graph_desc(fn):
    if fn is None:
        return "None"
    return type(fn).__name__ + "(" + ", ".join(_graph_desc(n) for n, _ in fn.next_functions) + ")"


def _first_grad_graph(lib, make_leaf):
    x = make_leaf(lib)
    (x * x).sum().backward(lib.ones((), dtype=lib.float64, requires_grad=True), create_graph=True)
    g = x.grad
    return _graph_desc(g.grad_fn), g.grad_fn.name(), tuple(g.stride()), g.detach().numpy().tolist()


@pytest.mark.parametrize("make_leaf", [
    lambda lib: lib.arange(6, dtype=lib.float64).reshape(2, 3).requires_grad_(),
    lambda lib: lib.arange(6, dtype=lib.float64).reshape(3, 2).t().detach().requires_grad_(),
    lambda lib: lib.arange(12, dtype=lib.float64).reshape(3, 4)[:, ::2].detach().requires_grad_(),
])
def test_first_gradient_with_create_graph_is_copied_like_pytorch(make_leaf):
    """AccumulateGrad's clone_obey_contract: the leaf's layout if dense (CopyBackwards of
    new_empty_strided(...).copy_), else a contiguous clone; jitgrad cloned (CloneBackward0)."""
    assert _first_grad_graph(jitgrad, make_leaf) == _first_grad_graph(torch, make_leaf)


@pytest.mark.parametrize("reduce", [
    lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.sum((0, 2)), lambda x: x.sum((2, 0), keepdim=True),
    lambda x: x.sum((0, 1, 2)), lambda x: x.sum(-1), lambda x: x.sum((-1, 0)),
])
def test_sum_backward_graph_matches_pytorch(reduce):
    """sum's backward expands a full sum's 0-d gradient as is and unsqueezes reduced dims
    (PyTorch's sum_backward); jitgrad reshaped (an extra ViewBackward0 in create_graph graphs)."""
    def run(lib):
        x = lib.arange(24, dtype=lib.float64).reshape(2, 3, 4).requires_grad_()
        out = reduce(x)
        go = lib.ones_like(out).requires_grad_()
        (g,) = lib.autograd.grad(out, x, go, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), go)
        return _graph_desc(g.grad_fn), g.detach().numpy().tolist(), gg.detach().numpy().tolist()

    assert run(jitgrad) == run(torch)


@pytest.mark.parametrize("op,kwargs", [
    ("var_mean", {"dim": 0}), ("var_mean", {}), ("std_mean", {"dim": 1, "keepdim": True}),
    ("std_mean", {"dim": (0, 1), "correction": 0}),
])
@pytest.mark.parametrize("used", ["both", "moment", "mean"])
def test_var_mean_is_one_two_output_node_like_pytorch(op, kwargs, used):
    """var_mean / std_mean record one node (VarMeanBackward0 / StdMeanBackward0) with both
    outputs, as PyTorch does; jitgrad recorded a VarBackward0 and a MeanBackward1."""
    def run(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4) ** 1.5, dtype=lib.float64, requires_grad=True)
        moment, mean = getattr(lib, op)(x, **kwargs)
        calls = []
        moment.grad_fn.register_prehook(lambda gs: calls.append([g is not None for g in gs]))
        loss = {"both": lambda: (moment * 3 + mean * 5).sum(), "moment": lambda: moment.sum(),
                "mean": lambda: mean.sum()}[used]()
        loss.backward()
        return (moment.grad_fn.name(), mean.grad_fn is moment.grad_fn, mean.output_nr, calls,
                x.grad.detach().numpy())

    t, j = run(torch), run(jitgrad)
    assert j[:4] == t[:4]
    np.testing.assert_allclose(j[4], t[4], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["var", "var_mean"])
def test_var_result_written_in_place_then_backward_like_pytorch(op):
    """VarBackward0 saves only the input (PyTorch's): writing into the variance afterwards
    is allowed; jitgrad saved the result too and raised at backward."""
    def run(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3) ** 2, dtype=lib.float64, requires_grad=True)
        out = getattr(lib, op)(x, 1)
        v = out[0] if op == "var_mean" else out
        v.mul_(2)
        (v.sum() + (out[1].sum() if op == "var_mean" else 0)).backward()
        return x.grad.detach().numpy()

    np.testing.assert_allclose(run(jitgrad), run(torch), rtol=1e-12, atol=1e-12)


def test_std_result_written_in_place_raises_like_pytorch():
    for lib in (torch, jitgrad):
        x = lib.tensor([[1.0, 4.0, 9.0]], dtype=lib.float64, requires_grad=True)
        s, m = lib.std_mean(x, 1)
        s.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            s.sum().backward()


def test_attribute_deletion_like_pytorch():
    """``del t.grad`` clears it; deleting ``data`` or ``requires_grad`` raises PyTorch's
    errors (jitgrad had no deleter). (``del t._grad_fn`` is not refused: see the next test.)"""
    for lib in (torch, jitgrad):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        x.grad = lib.ones(2, dtype=lib.float64)
        del x.grad
        assert x.grad is None
        with pytest.raises(RuntimeError, match="Deleting tensor data is not allowed"):
            del x.data
        with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
            del x.requires_grad
        assert x.requires_grad


def test_tensor_class_keeps_default_attribute_writes():
    """A ``__setattr__``/``__delattr__`` on Tensor (e.g. to refuse ``del t._grad_fn`` as
    PyTorch does) makes CPython route every attribute write on every tensor through Python:
    tried, it took small.sum8 from 1.12x to 1.7x PyTorch's time. Keep them off the class."""
    assert "__setattr__" not in vars(jitgrad.Tensor)
    assert "__delattr__" not in vars(jitgrad.Tensor)


def _grad_access_warnings(lib):
    counts = []
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    y = x * 2
    v = x[:1]
    for t in (x, y, v):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t.grad
        counts.append([str(m.message)[:60] for m in w])
    y.retain_grad()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y.grad
    counts.append(len(w))
    return counts


def test_non_leaf_grad_access_warns_like_pytorch():
    """Reading ``.grad`` of a non-leaf that does not retain it warns (PyTorch's UserWarning)."""
    assert _grad_access_warnings(jitgrad) == _grad_access_warnings(torch)


def test_bernoulli_function_and_method_like_pytorch():
    """``bernoulli(input)`` / ``input.bernoulli()`` (jitgrad had only ``bernoulli_``): a new
    tensor of input's dtype, 0/1 drawn with probability input, zero gradient to input."""
    def run(lib):
        p = lib.tensor([0.0, 1.0, 1.0, 0.0], dtype=lib.float64, requires_grad=True)
        out = lib.bernoulli(p)
        method = p.detach().bernoulli()
        with_p = lib.zeros(3, dtype=lib.float32).bernoulli(1.0)
        out.sum().backward()
        return (out.detach().numpy().tolist(), str(out.dtype).split(".")[-1], out.grad_fn.name(),
                method.detach().numpy().tolist(), with_p.detach().numpy().tolist(), str(with_p.dtype).split(".")[-1],
                p.grad.detach().numpy().tolist())

    assert run(jitgrad) == run(torch)


def _anomaly_error_with_warnings_as_errors(lib, capsys):
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with warnings.catch_warnings():
            with lib.autograd.detect_anomaly():
                warnings.simplefilter("error")
                a = lib.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1**2
                d1 += 1
                lib.autograd.grad(d2.sum(), a)
    return capsys.readouterr().err


def test_anomaly_warning_turned_error_goes_to_stderr_like_pytorch(capsys):
    """With warnings as errors, anomaly mode's 'Error detected in <node>' is printed to
    stderr and the original error raised (jitgrad dropped the message)."""
    assert "Error detected in PowBackward0" in _anomaly_error_with_warnings_as_errors(torch, capsys)
    assert "Error detected in PowBackward0" in _anomaly_error_with_warnings_as_errors(jitgrad, capsys)


def _gradcheck_outcomes(lib):
    """What gradcheck says (result, or error type and message start) in a few situations."""
    from importlib import import_module

    gradcheck = lib.autograd.gradcheck
    gradgradcheck = lib.autograd.gradgradcheck
    Function = lib.autograd.Function

    class NonDet(Function):
        @staticmethod
        def forward(ctx, x, jitter):
            ctx.jitter = jitter
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return NonDet.apply(g, ctx.jitter) * (1 + lib.rand_like(g) * ctx.jitter), None

    def outcome(call):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                result = call()
            except Exception as e:  # noqa: BLE001
                result = (type(e).__bases__[0].__name__ if type(e).__name__ == "GradcheckError"
                          else type(e).__name__, str(e)[:60])
        return result, [str(m.message)[:40] for m in w]

    x = lib.rand(5, dtype=lib.float64, requires_grad=True)
    x32 = lib.rand(3, requires_grad=True)
    one = lib.ones(1, dtype=lib.float64, requires_grad=True)
    expanded = lib.ones(1, dtype=lib.float64, requires_grad=True).expand(2, 2)
    gradcheck_error = import_module(lib.__name__ + ".autograd.gradcheck").GradcheckError
    return [
        outcome(lambda: gradcheck(lambda t: NonDet.apply(t, 0.0), (x,))),
        outcome(lambda: gradcheck(lambda t: NonDet.apply(t, 1e-6), (x,))),
        outcome(lambda: gradcheck(lambda t: NonDet.apply(t, 1e-6), (x,), nondet_tol=1e-5)),
        outcome(lambda: gradgradcheck(lambda t: NonDet.apply(t, 1e-12), (x,))),
        outcome(lambda: gradgradcheck(lambda t: NonDet.apply(t, 1e-12), (x,), nondet_tol=1e-5)),
        outcome(lambda: gradcheck(lambda t: t * 2, (x32,), atol=1e-1, fast_mode=True)),
        outcome(lambda: gradcheck(lambda t: lib.tensor([t.item()], dtype=lib.float64), (one,))),
        outcome(lambda: gradcheck(lambda t: lib.tensor([t.item()], dtype=lib.float64), (one,),
                                  raise_exception=False)),
        outcome(lambda: gradcheck(lambda t: (), (one,))),
        outcome(lambda: gradcheck(lambda t: lib.cat([t, t]) if lib.all(t >= 1) else t, (one,))),
        outcome(lambda: gradcheck(lambda t: t, (expanded,), raise_exception=False)),
        outcome(lambda: gradcheck(lambda t: t, (lib.ones(2, dtype=lib.float64),))),
        outcome(lambda: gradcheck(lambda t: (t * 2, (t * 3).detach()), (x,))),
        outcome(lambda: issubclass(gradcheck_error, RuntimeError)),
        outcome(lambda: gradcheck(lambda t: ((t * 3).detach(), _off_by_hook(t)), (x,))),
    ]


def _off_by_hook(t):
    """``t`` cloned, with a hook that makes its gradient wrong."""
    y = t.clone()
    y.register_hook(lambda g: g + 1e-2)
    return y


def test_gradcheck_checks_like_pytorch():
    """gradcheck's reentrancy check (nondet_tol), float32 warning (jitgrad raised), the
    expected-zero check for non-differentiable outputs, the perturbed-shape check, the
    stride-0 refusal, and ignoring non-differentiable outputs beside differentiable ones."""
    assert _gradcheck_outcomes(jitgrad) == _gradcheck_outcomes(torch)


def _custom_function_backward_choice(lib):
    Function = lib.autograd.Function
    outcomes = []

    class VjpOnly(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    class Both(VjpOnly):
        @staticmethod
        def backward(ctx, g):
            return g

    class Neither(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

    for fn in (VjpOnly, Both, Neither):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        try:
            fn.apply(x).sum().backward()
            outcomes.append(x.grad.detach().numpy().tolist())
        except RuntimeError as e:
            outcomes.append((type(e).__name__, str(e)))
    return outcomes


def test_custom_function_vjp_and_missing_backward_like_pytorch():
    """A Function may define ``vjp`` instead of ``backward`` (not both); without either the
    error is PyTorch's 'must implement either the backward or vjp method'."""
    assert _custom_function_backward_choice(jitgrad) == _custom_function_backward_choice(torch)


def _clear_on_access(lib):
    seen = []

    class MyFn(lib.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            try:
                ctx.saved_tensors
            except RuntimeError as e:
                seen.append(str(e))
            return g * x

    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    MyFn.apply(x).sum().backward()
    y = MyFn.apply(x)
    seen.append(len(y.grad_fn.saved_tensors))
    with pytest.raises(RuntimeError, match="can only be accessed once"):
        y.grad_fn.saved_tensors
    return seen, x.grad.detach().numpy().tolist()


def test_clear_saved_tensors_on_access_like_pytorch():
    """``clear_saved_tensors_on_access = True``: the first ``ctx.saved_tensors`` frees them,
    a second access raises PyTorch's error (jitgrad ignored the attribute)."""
    assert _clear_on_access(jitgrad) == _clear_on_access(torch)


def _dirty_output_freed(lib):
    import gc

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def scope():
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).clone()
        Double.apply(x)
        return weakref.ref(x)

    enabled = gc.isenabled()
    gc.disable()
    try:
        return scope()() is None
    finally:
        if enabled:
            gc.enable()


def test_dirty_output_of_custom_function_freed_without_gc_like_pytorch():
    """``ctx.mark_dirty``'s tensors were kept on the node after forward: a reference cycle
    (output -> node -> output) only the cycle collector could free."""
    assert _dirty_output_freed(jitgrad) is _dirty_output_freed(torch) is True


def test_assigning_a_tensor_as_its_own_grad_raises_like_pytorch():
    for lib in (torch, jitgrad):
        x = lib.ones(3, dtype=lib.float64)
        with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
            x.grad = x
        assert x.grad is None


def _setup_context_with_defaults(lib):
    seen = []

    class Pow(lib.autograd.Function):
        @staticmethod
        def forward(x, y=3):
            return x ** y

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            seen.append(len(inputs))
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.y * x ** (ctx.y - 1), None

    x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
    (g3,) = lib.autograd.grad(Pow.apply(x), x)
    (g2,) = lib.autograd.grad(Pow.apply(x, 2), x)
    return seen, g3.item(), g2.item()


def test_setup_context_sees_forward_defaults_like_pytorch():
    """With a separate setup_context, the inputs it receives include forward's default
    arguments (PyTorch's bind_default_args); jitgrad passed only the arguments given."""
    assert _setup_context_with_defaults(jitgrad) == _setup_context_with_defaults(torch)


def _scatter_prod_double_backward(lib, src_values):
    inp = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    src = lib.tensor(src_values, dtype=lib.float64, requires_grad=True)
    idx = lib.tensor([0, 0, 1], dtype=lib.int64)
    out = lib.scatter_reduce(inp, 0, idx, src, "prod")
    g_inp, g_src = lib.autograd.grad(out.sum(), (inp, src), create_graph=True)
    try:
        (gg,) = lib.autograd.grad(g_src.sum(), src)
        second = gg.detach().numpy().tolist()
    except RuntimeError as e:
        second = str(e)
    return type(g_src.grad_fn).__name__, g_src.detach().numpy().tolist(), second


@pytest.mark.parametrize("src_values", [[0.0, 0.0, 3.0], [0.0, 5.0, 3.0], [2.0, 5.0, 0.0]])
def test_scatter_reduce_prod_double_backward_with_repeated_zeros_like_pytorch(src_values):
    """Two zeros of src scattered to one place: PyTorch refuses the double backward (its
    DelayedError); jitgrad returned a silently wrong (zero) second derivative."""
    assert (_scatter_prod_double_backward(jitgrad, src_values)
            == _scatter_prod_double_backward(torch, src_values))


def _index_reduce_cases(lib):
    results = []
    f64 = lib.float64

    def attempt(f):
        try:
            r = f()
            return r.detach().numpy().round(9).tolist(), r.grad_fn.name() if r.grad_fn is not None else None
        except (RuntimeError, IndexError) as e:
            return type(e).__name__, str(e).split(":")[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = lib.ones(3, 4, dtype=f64, requires_grad=True)
        s = lib.ones(2, 4, dtype=f64)
        results += [
            attempt(lambda: lib.index_reduce(x, 0, lib.tensor([0, 2]), s, "sum")),
            attempt(lambda: lib.index_reduce(x, 0, lib.tensor([0, 2, 1]), s, "prod")),
            attempt(lambda: lib.index_reduce(x, 0, lib.tensor([0, 5]), s, "prod")),
            attempt(lambda: lib.index_reduce(x, 0, lib.tensor([0, 2]), lib.ones(2, 3, dtype=f64), "prod")),
            attempt(lambda: lib.index_reduce(x, 0, lib.tensor([[0, 2]]), s, "prod")),
            attempt(lambda: lib.index_reduce(lib.tensor(2.0, dtype=f64), 0, lib.tensor([0]),
                                             lib.tensor(3.0, dtype=f64), "prod")),
            attempt(lambda: lib.ones(3, dtype=f64).index_reduce_(0, lib.tensor([1]),
                                                                 lib.tensor([3.0], dtype=f64), "amin")),
        ]
        inp = lib.tensor([[1.0, 2.0, 3.0], [4.0, 8.0, 6.0]], dtype=f64, requires_grad=True)
        src = lib.tensor([[2.0, 0.0, 1.0], [3.0, 7.0, 1.0], [5.0, 5.0, 5.0]], dtype=f64, requires_grad=True)
        weights = lib.arange(6.0, dtype=f64).view(2, 3)
        for reduce in ("prod", "mean", "amax", "amin"):
            for include_self in (True, False):
                for dim, index in ((0, [1, 0, 1]), (-1, [1, 1, 0])):
                    a = inp if dim == 0 else inp.t().contiguous()
                    out = lib.index_reduce(a, dim, lib.tensor(index), src, reduce, include_self=include_self)
                    w = weights if dim == 0 else weights.t().contiguous()
                    ga, gs = lib.autograd.grad((out * w).sum(), (inp, src))
                    results.append((reduce, include_self, dim, out.detach().numpy().tolist(),
                                    ga.detach().numpy().round(9).tolist(), gs.detach().numpy().round(9).tolist()))
    return results


def test_index_reduce_like_pytorch():
    """index_reduce / index_reduce_ (jitgrad had none): values, gradients, node name, errors."""
    for j, t in zip(_index_reduce_cases(jitgrad), _index_reduce_cases(torch)):
        assert j == t
