"""``Tensor.data``, storages and ``data_ptr``, ``inference_mode``, saved tensor hooks,
``_saved_<name>`` and ``allow_mutation_on_saved_tensors``, each checked against PyTorch
(version counters, flags, gradients in float64, error families)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget

LIBS = (jitgrad, torch)


def both(fn):
    """``fn(lib)`` for jitgrad and torch; their results must be equal."""
    ours, theirs = fn(jitgrad), fn(torch)
    assert ours == theirs, (ours, theirs)
    return ours


def leaf(lib, *shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return lib.from_numpy(a).requires_grad_()


# -- .data ------------------------------------------------------------------------------------------
def test_data_shares_memory_but_not_the_version_counter():
    def facts(lib):
        x = lib.from_numpy(np.arange(6.0).reshape(2, 3)).clone()
        v = x[1]
        d = x.data
        d.add_(1)
        d2 = v.data
        return (x._version, v._version, d._version, d._is_view(), d.requires_grad,
                d.data_ptr() == x.data_ptr(), d2.data_ptr() - x.data_ptr(), x.tolist())

    both(facts)


def test_data_of_a_non_leaf_is_detached_and_writes_through_it_escape_autograd():
    def facts(lib):
        x = leaf(lib, 3)
        y = x * 2
        z = y * y  # saves y
        y.data.mul_(0)  # not seen by the version check
        z.sum().backward()
        return (y.data.grad_fn is None, y.data.requires_grad, x.grad.tolist())

    both(facts)


def test_setting_data_keeps_the_version_counter_and_the_autograd_identity():
    def facts(lib):
        x = leaf(lib, 2)
        view = x[:1]
        before = x._version
        ident = id(x)
        x.data = lib.from_numpy(np.arange(3.0))
        after = x._version
        with lib.no_grad():
            x.add_(1)
        return (before, after, x._version == view._version, id(x) == ident, tuple(x.shape),
                x.requires_grad, x.is_leaf, x.tolist())

    both(facts)


@pytest.mark.parametrize("value", [None, 3, np.zeros(2)])
def test_setting_data_to_a_non_tensor_is_a_type_error(value):
    for lib in LIBS:
        x = lib.zeros(2)
        with pytest.raises(TypeError):
            x.data = value


def test_setting_integer_data_on_a_tensor_that_requires_grad_is_refused():
    for lib in LIBS:
        x = lib.zeros(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="floating point"):
            x.data = lib.zeros(2, dtype=lib.int64)
        assert x.dtype == lib.float32


# -- storage / data_ptr -----------------------------------------------------------------------------
@settings(max_examples=budget(40))
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_data_ptr_offsets_and_storage_sizes_match_pytorch(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    index = data.draw(st.integers(0, shape[dim] - 1))

    def facts(lib):
        x = lib.zeros(*shape, dtype=lib.float64)
        v = x.select(dim, index)
        return (v.data_ptr() - x.data_ptr(), v.untyped_storage().data_ptr() == x.data_ptr(),
                x.untyped_storage().nbytes(), len(x.untyped_storage()),
                v.storage().data_ptr() == x.data_ptr())

    with _quiet():  # PyTorch warns that TypedStorage is deprecated
        both(facts)


class _quiet:
    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_typed_storage_counts_elements():
    x = jitgrad.zeros(2, 3, dtype=jitgrad.float64)
    assert len(x.storage()) == x.storage().size() == 6
    assert x.storage().element_size() == 8 and x.untyped_storage().size() == 48


def test_new_matches_pytorch():
    def facts(lib):
        x = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        a, b, c, d = x.new(2, 3), x.new(x[1:].size()), x.new(), x.new([1, 2])
        return [(tuple(t.shape), str(t.dtype).replace("torch.", ""), t.requires_grad)
                for t in (a, b, c, d)] + [d.tolist()]

    both(facts)


# -- inference mode ---------------------------------------------------------------------------------
def test_inference_mode_flags_and_rules_match_pytorch():
    def facts(lib):
        normal = lib.ones(2, 3, requires_grad=True) * 1.0
        with lib.inference_mode():
            inside = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
            c = lib.ones(2, 3)
            y = normal * 2
            v = normal.view(6)
            with lib.inference_mode(False):
                nested = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
        out = c.view(-1)
        errors = []
        for attempt in (lambda: c._version, lambda: c.add_(1), lambda: c.t_(),
                        lambda: c * normal, lambda: v.add_(1)):
            try:
                attempt()
                errors.append(None)
            except RuntimeError as exc:
                errors.append(type(exc).__name__)
        return (inside, nested, lib.is_inference_mode_enabled(), c.is_inference(),
                y.is_inference(), y.requires_grad, v.is_inference(), v._is_view(),
                out.is_inference(), out._is_view(), out.requires_grad, errors)

    both(facts)


def test_inference_mode_as_decorator_with_and_without_parentheses():
    for lib in LIBS:
        @lib.inference_mode
        def f(x):
            return x * 2, lib.is_inference_mode_enabled()

        @lib.inference_mode(False)
        def g(x):
            return x * 2, lib.is_inference_mode_enabled()

        x = lib.ones(2, requires_grad=True)
        y, on = f(x)
        z, off = g(x)
        assert on and y.is_inference() and not y.requires_grad
        assert not off and not z.is_inference() and z.requires_grad


def test_inference_tensor_that_requires_grad_still_gets_a_gradient_through_add():
    def facts(lib):
        with lib.inference_mode():
            c = lib.ones(2, requires_grad=True)
        s = leaf(lib, 2)
        (c + s).sum().backward()
        return (c.grad.tolist(), s.grad.tolist())

    both(facts)


# -- saved tensors: names, hooks --------------------------------------------------------------------
@pytest.mark.parametrize("op,names", [
    (lambda lib, a, b: a * b, ("self", "other")),
    (lambda lib, a, b: a / b, ("self", "other")),
    (lambda lib, a, b: a.exp(), ("result",)),
    (lambda lib, a, b: a.sin(), ("self",)),
    (lambda lib, a, b: a.tanh(), ("result",)),
    (lambda lib, a, b: a ** 3, ("self",)),
])
def test_saved_values_are_reachable_by_pytorchs_names(op, names):
    for name in names:
        def facts(lib):
            a, b = leaf(lib, 3, seed=1), leaf(lib, 3, seed=2)
            out = op(lib, a, b)
            value = getattr(out.grad_fn, f"_saved_{name}")
            raw = getattr(out.grad_fn, f"_raw_saved_{name}")
            return (value.tolist(), value is a, value is b, value is out, raw.unpack_hook is None)

        both(facts)


def test_saved_value_is_gone_after_backward():
    for lib in LIBS:
        a = leaf(lib, 2)
        y = a * a
        y.sum().backward()
        with pytest.raises(RuntimeError, match="freed"):
            y.grad_fn._saved_self


@pytest.mark.parametrize("pack,unpack", [
    (lambda x: x, lambda x: x),
    (lambda x: 2 * x, lambda x: x / 2),
    (lambda x: 2 * x, lambda x: x),
    (lambda x: x.detach().numpy().copy(), None),
])
def test_default_saved_tensor_hooks_give_pytorchs_gradients(pack, unpack):
    def facts(lib):
        unpack_ = unpack or (lambda arr: lib.from_numpy(arr))
        a = leaf(lib, 4)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack_):
            y = (a * a.sin()).exp()
            (g,) = lib.autograd.grad(y.sum(), a, create_graph=True)
        g.sum().backward()
        return np.round(a.grad.detach().numpy(), 12).tolist()

    both(facts)


def test_saved_tensor_hooks_on_a_custom_function():
    def facts(lib):
        calls = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        a = leaf(lib, 3)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: calls.append("p") or x,
                                                    lambda x: calls.append("u") or x):
            Square.apply(a).sum().backward()
        return calls, a.grad.tolist()

    both(facts)


def test_register_hooks_twice_or_on_none_is_refused():
    for lib in LIBS:
        a = leaf(lib, 2)
        y = a * 2.0  # a number: nothing tensor-valued saved for self
        z = a * a
        z.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
        with pytest.raises(RuntimeError, match="already been set"):
            z.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
        assert y is not None


# -- allow_mutation_on_saved_tensors ----------------------------------------------------------------
def test_allow_mutation_on_saved_tensors_gives_the_gradient_of_the_values_as_saved():
    def facts(lib):
        a = leaf(lib, 2, 3)
        with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            out = (b.sin() * b).sum()
            b[0].mul_(10)  # through a view: b's saved value is cloned first
            b.exp_()
            cloned = len(list(ctx.cloned.items()))
            out.backward()
            after = len(list(ctx.cloned.items()))
        return cloned, after, np.round(a.grad.detach().numpy(), 12).tolist()

    both(facts)


def test_allow_mutation_on_saved_tensors_covers_in_place_view_ops():
    def facts(lib):
        a = leaf(lib, 2, 3)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b * b).sum()
            b.t_()  # b's geometry changes: the saved b is cloned first
            out.backward()
        return tuple(b.shape), np.round(a.grad.detach().numpy(), 12).tolist()

    both(facts)
