"""Autograd through views and in-place writes (CopySlices, CopyBackwards, view tracking),
against PyTorch, in both view modes. The ideas of PyTorch's test_autograd.py tests
``test_inplace_on_view_*``, ``test_copy_*``, ``test_setitem*``, ``test_version_counter``,
``test_saved_variable_*``, ``test_autograd_inplace_views_creation_meta``,
``test_view_func_replay``, as differential tests; plus where jitgrad goes beyond PyTorch."""

from __future__ import annotations

import contextlib

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from oracle import error_family

MODES = pytest.mark.parametrize("replay", [False, True], ids=["as_strided", "view_replay"])


def _plain(x: Any) -> Any:
    """Tensors as arrays (and whether they require grad); containers recursively."""
    if isinstance(x, (jitgrad.Tensor, torch.Tensor)):
        return ("tensor", x.detach().numpy().copy(), bool(x.requires_grad))
    if isinstance(x, (list, tuple)):
        return tuple(_plain(v) for v in x)
    return x


def _assert_equal(a: Any, b: Any) -> None:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", (a, b)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-12, atol=1e-12)
        assert a[2] == b[2], f"requires_grad differs: {a[2]} vs {b[2]}"
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _assert_equal(x, y)
    else:
        assert a == b, (a, b)


def both(program: Callable[[Any], Any], replay: bool) -> Any:
    """Run ``program(lib)`` on jitgrad (in the given view mode) and PyTorch; compare results
    or error families. Returns jitgrad's result."""
    def attempt(lib: Any) -> tuple[Any, BaseException | None]:
        try:
            return program(lib), None
        except (RuntimeError, IndexError, ValueError, TypeError) as exc:
            return None, exc

    with jitgrad.autograd.view_replay(replay):
        ours, our_err = attempt(jitgrad)
    theirs, their_err = attempt(torch)
    if our_err or their_err:
        assert our_err is not None and their_err is not None, (our_err, their_err)
        assert error_family(our_err) is error_family(their_err), (our_err, their_err)
        return our_err
    _assert_equal(_plain(ours), _plain(theirs))
    return ours


def leaf(lib: Any, data: Any) -> Any:
    return lib.tensor(np.asarray(data, dtype=np.float64), dtype=lib.float64, requires_grad=True)


# -- PyTorch's test_inplace_on_view_* ------------------------------------------------------

@MODES
def test_inplace_on_view_backprop_base(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        x = root.clone()
        x.narrow(0, 0, 1).mul_(2)
        x.sum().backward()
        return root.grad, x
    both(program, replay)


@MODES
def test_inplace_on_view_backprop_view_of_view(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = x.narrow(0, 0, 1)
        v1.mul_(2)
        v2.sum().backward()
        return root.grad, v2.grad_fn is not None
    both(program, replay)


@MODES
def test_inplace_on_view_of_view(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        x = root.clone()
        v2 = x.narrow(0, 0, 1).narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        return root.grad, x
    both(program, replay)


@MODES
def test_inplace_on_view_then_no_grad(replay: bool) -> None:
    def program(lib):
        a = leaf(lib, [[1.0], [1.0], [1.0]])
        b = a * 2
        c = b.view_as(b)
        c[0][0] = 3
        with lib.no_grad():  # force the view's grad_fn to be regenerated with grad mode off
            c.grad_fn
        c.sum().backward()
        return a.grad
    both(program, replay)


@MODES
def test_inplace_on_view_gradcheck(replay: bool) -> None:
    def func(root, b):
        x = root.clone()
        x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
        x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
        return x
    rng = np.random.default_rng(0)
    root = jitgrad.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    b = jitgrad.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    with jitgrad.autograd.view_replay(replay):
        assert jitgrad.autograd.gradcheck(func, (root, b))
        assert jitgrad.autograd.gradgradcheck(func, (root, b))


@MODES
def test_inplace_on_view_multiple_outputs(replay: bool) -> None:
    def program(lib):
        root = lib.arange(9.0, dtype=lib.float64).view(3, 3).requires_grad_()
        x = root.clone()
        v1 = x.unbind()
        v1[0].mul_(2)
    err = both(program, replay)
    assert "returns multiple views" in str(err)


@MODES
def test_inplace_on_view_multiple_outputs_lazy_error(replay: bool) -> None:
    """Writing the base of a multi-output view, then reading that view's grad_fn, raises."""
    def program(lib):
        root = lib.arange(9.0, dtype=lib.float64).view(3, 3).requires_grad_()
        x = root.clone()
        v1 = x.split(1)
        x.mul_(2)
        return v1[0].grad_fn
    err = both(program, replay)
    assert "its base or another view of its base has been modified inplace" in str(err)


@MODES
def test_inplace_on_view_makes_base_require_grad(replay: bool) -> None:
    def program(lib):
        a = lib.tensor(np.arange(16.0).reshape(4, 4), dtype=lib.float64)
        b = leaf(lib, np.linspace(-1, 1, 8).reshape(4, 2))
        a_before = a.requires_grad
        a.narrow(1, 2, 2).mul_(b)
        a_after = a.requires_grad
        a.sum().backward()
        return a_before, a_after, b.grad, a.is_leaf
    both(program, replay)


@MODES
def test_inplace_on_view_modify_base(replay: bool) -> None:
    def program(lib):
        r = leaf(lib, [1.5])
        x = lib.ones(5, dtype=lib.float64)
        v = x.select(0, 1)
        before = (v.requires_grad, v.grad_fn is None)
        x.add_(r)
        after = v.requires_grad
        (v * 3).backward()
        return before, after, r.grad
    both(program, replay)


@MODES
def test_inplace_on_view_non_contig(replay: bool) -> None:
    def program(lib):
        data = lib.ones(2, 3, 2, dtype=lib.float64).select(2, 1).t()
        root = data.detach().requires_grad_()
        x = root.clone()
        v2 = x.narrow(0, 0, 1).narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        return root.grad
    both(program, replay)


@MODES
def test_inplace_on_view_of_leaf_errors(replay: bool) -> None:
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        x[1:].mul_(2)
    err = both(program, replay)
    assert "a view of a leaf Variable that requires grad" in str(err)


@MODES
def test_inplace_on_leaf_errors_and_no_grad_allows(replay: bool) -> None:
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0])
        with lib.no_grad():
            x[1:].mul_(2)
            x.add_(1)
        return x, x._version
    both(program, replay)


@MODES
def test_view_created_in_no_grad_written_with_grad(replay: bool) -> None:
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0]).clone()
        with lib.no_grad():
            v = x[1:]
        v.mul_(2)
    err = both(program, replay)
    assert "no_grad mode" in str(err)


@MODES
def test_view_of_view_inherits_no_grad_creation(replay: bool) -> None:
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0, 4.0]).clone()
        with lib.no_grad():
            v = x[1:]
        w = v[1:]
        w.mul_(2)
    both(program, replay)


@MODES
def test_detach_inplace_on_view_errors(replay: bool) -> None:
    def program(lib):
        x = leaf(lib, [1.0, 2.0, 3.0]).clone()
        x[1:].detach_()
    both(program, replay)


# -- copy_ and __setitem__ -----------------------------------------------------------------

@MODES
def test_copy_backward_broadcast_and_dtype(replay: bool) -> None:
    def program(lib):
        src = leaf(lib, [1.0, 2.0, 3.0])
        dst = lib.zeros(2, 3, dtype=lib.float32)
        dst.copy_(src)
        (dst * lib.tensor([[1.0], [2.0]])).sum().backward()
        return src.grad, dst.dtype == lib.float32, dst.grad_fn.name().split("::")[-1]
    both(program, replay)


@MODES
def test_copy_into_view_with_float32_source(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, np.arange(6.0).reshape(2, 3))
        src = lib.tensor([5.0, 6.0], dtype=lib.float32, requires_grad=True)
        x = root * 1
        x.t()[1].copy_(src)
        (x * x).sum().backward()
        return root.grad, src.grad, x
    both(program, replay)


@MODES
def test_setitem_basic_and_advanced(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, np.arange(12.0).reshape(3, 4))
        val = leaf(lib, [10.0, 20.0])
        x = root * 1
        x[0, 1:3] = val
        x[[1, 2], 0] = val * 3
        x[x.detach() > 8] = 0.5
        x[2] = 7.0
        (x * x).sum().backward()
        return x, root.grad, val.grad, x._version
    both(program, replay)


@MODES
def test_index_put_accumulate(replay: bool) -> None:
    def program(lib):
        root = leaf(lib, np.arange(5.0))
        val = leaf(lib, [1.0, 2.0, 3.0])
        x = root * 2
        x.index_put_((lib.tensor([0, 0, 3]),), val * val, accumulate=True)
        (x * x).sum().backward()
        return x, root.grad, val.grad
    both(program, replay)


# -- versions and saved tensors --------------------------------------------------------------

def test_version_counter_shared_by_views_and_detach() -> None:
    def program(lib):
        x = lib.ones(4, dtype=lib.float64)
        v, d = x[1:], x.detach()
        out = [x._version]
        v.add_(1)
        out.append((x._version, v._version, d._version))
        d.mul_(2)
        out.append((x._version, v._version, d._version))
        x[0] = 3.0
        out.append(v._version)
        return out
    both(program, False)


@MODES
def test_saved_variable_modified_through_view(replay: bool) -> None:
    def program(lib):
        a = leaf(lib, [0.5, 1.0, 1.5])
        b = a * 1
        c = b.sin()
        b[1:].mul_(2)
        c.sum().backward()
    err = both(program, replay)
    msg = str(err)
    assert "one of the variables needed for gradient computation has been modified by an inplace operation" in msg
    # as PyTorch: the tensor's current history is named
    assert "which is output 0 of torch::autograd::CopySlices, is at version 1; expected version 0 instead." in msg
    assert "The last in-place write to its memory was mul_ at" in msg and __file__ in msg


@MODES
def test_backward_twice_through_copy_slices(replay: bool) -> None:
    def program(lib):
        a = leaf(lib, [0.5, 1.0, 1.5])
        b = a * 1
        b[1:].mul_(a[1:])
        b.sum().backward()
        b.sum().backward()
    err = both(program, replay)
    assert "Trying to backward through the graph a second time" in str(err)


@MODES
def test_backward_twice_with_retain_graph(replay: bool) -> None:
    def program(lib):
        a = leaf(lib, [0.5, 1.0, 1.5])
        b = a * 1
        b[1:].mul_(a[1:])
        b.sum().backward(retain_graph=True)
        b.sum().backward()
        return a.grad
    both(program, replay)


@MODES
def test_double_backward_through_copy_slices(replay: bool) -> None:
    def program(lib):
        a = leaf(lib, [0.5, 1.0, 1.5, 2.0])
        b = a * a
        b[1:3].mul_(a[:2])
        b.t().unsqueeze(0)[0, ::2].copy_(a[2:] * 3)
        (g,) = lib.autograd.grad((b * b).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a)
        return g, h
    both(program, replay)


# -- beyond PyTorch ----------------------------------------------------------------------------

@MODES
def test_retain_grad_of_intermediate_view_survives_base_write(replay: bool) -> None:
    """pytorch/pytorch#8874: PyTorch loses xx.grad (None) once the base was written."""
    x = jitgrad.ones(4, dtype=jitgrad.float64, requires_grad=True).clone()
    with jitgrad.autograd.view_replay(replay):
        xx = x[2:]
        y = xx[1]
        xx.retain_grad()
        x[0] += 0
        y.backward()
    np.testing.assert_array_equal(xx.grad.detach().numpy(), [0.0, 1.0])


@MODES
def test_retained_view_gets_its_sub_views_gradient_after_a_no_grad_write(replay: bool) -> None:
    """The same after a write under no_grad (every view of the base stale): a sub-view's
    history is regenerated from the view it was taken from, so ``d.grad`` is the gradient
    with respect to ``d`` (its sub-view's use included). PyTorch regenerates the sub-view
    from the base, and its ``d.grad`` misses that part ([2, 2, 2])."""
    grads = {}
    for lib in (jitgrad, torch):
        base = lib.ones(3, 3, dtype=lib.float64, requires_grad=True).clone()
        with jitgrad.autograd.view_replay(replay) if lib is jitgrad else contextlib.nullcontext():
            d = base.diagonal()
            sq = d[1:]
            with lib.no_grad():
                base.mul_(2)
            d.retain_grad()
            ((d * 2).sum() + (sq * 3).sum()).backward()
        grads[lib.__name__] = d.grad.tolist()
    assert grads == {"jitgrad": [2.0, 5.0, 5.0], "torch": [2.0, 2.0, 2.0]}


@MODES
def test_hook_on_intermediate_view_survives_base_write(replay: bool) -> None:
    seen = []
    x = jitgrad.ones(4, dtype=jitgrad.float64, requires_grad=True).clone()
    with jitgrad.autograd.view_replay(replay):
        xx = x[2:]
        xx.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
        y = xx[1] * 5
        x[0] += 1
        y.backward()
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], [0.0, 5.0])


@MODES
def test_register_hook_on_view_after_alias_write(replay: bool) -> None:
    """pytorch/pytorch#196459: this segfaults PyTorch 2.13 (so it is not run there)."""
    seen = []
    with jitgrad.autograd.view_replay(replay):
        x = jitgrad.ones(2, dtype=jitgrad.float64, requires_grad=True).clone().view(2)
        x[:].add_(1)
        x.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * 2)
        x.sum().backward()
    assert len(seen) == 1


def test_self_overlapping_view_write_refused_and_unchanged() -> None:
    """PyTorch silently writes through an unfold with step < size (order-dependent results);
    jitgrad refuses, writes nothing and leaves the version alone."""
    x = jitgrad.arange(6.0, dtype=jitgrad.float64).requires_grad_().clone()
    w = x.unfold(0, 3, 1)
    before, version = x.detach().numpy().copy(), x._version
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        w.mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x._version == version
    w.fill_(1.0)  # order-independent: allowed, and differentiable
    x.sum().backward()
