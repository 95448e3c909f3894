"""The autograd engine against PyTorch, side by side (float64): graph shapes, partial
gradients, hooks and their order, grad mode, ``.grad`` semantics, errors, double backward,
exception safety and gradient-buffer ownership.

Every test runs one *program* ``f(lib, ...)`` on ``jitgrad`` and on ``torch`` and compares
what it returns (tensors, None, strings, nested lists of those).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad

LIBS = (jitgrad, torch)
RNG = np.random.default_rng(7)
X = RNG.standard_normal(5)
W = RNG.standard_normal(5)


def leaf(lib: Any, a: np.ndarray, requires_grad: bool = True) -> Any:
    return lib.from_numpy(np.array(a, dtype=np.float64, copy=True)).requires_grad_(requires_grad)


def same(ours: Any, theirs: Any, path: str = "result") -> None:
    """Tensors equal in shape, dtype and value (to 1e-12); other values equal."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, jitgrad.Tensor), f"{path}: got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), path
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", ""), path
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=path)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), (path, ours, theirs)
        for k, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{path}[{k}]")
    else:
        assert ours == theirs, (path, ours, theirs)


def compare(program: Callable[[Any], Any]) -> Any:
    ours, theirs = program(jitgrad), program(torch)
    same(ours, theirs)
    return ours


def raises_like(program: Callable[[Any], Any], fragment: str) -> tuple[str, str]:
    """Both libraries raise RuntimeError whose message contains ``fragment``."""
    messages = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as info:
            program(lib)
        messages.append(str(info.value))
        assert fragment in str(info.value), (lib.__name__, str(info.value))
    return messages[0], messages[1]


# -- graph shapes -------------------------------------------------------------------------


def test_diamond() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        a, b = x * 2.0, x * 3.0
        (a * b + a).sum().backward()
        return x.grad

    compare(program)


def test_shared_subgraph_and_two_leaves() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        s = x * w
        y1, y2 = s * 2.0, s * s
        (y1 + y2 + s[1:4].sum()).sum().backward()
        return x.grad, w.grad

    compare(program)


@pytest.mark.parametrize("n", [5, 10_000])  # small: NumPy add; large: the Numba accumulation kernel
def test_leaf_fan_out_accumulates(n: int) -> None:
    data = RNG.standard_normal(n)

    def program(lib: Any) -> Any:
        x = leaf(lib, data)
        y = x + x + x * x + x * 3.0 + x.view(-1).clone()
        (y * y).sum().backward()
        return x.grad

    compare(program)


def test_multiple_roots_and_grad_tensors() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        a, b = x * 2.0, x * x
        g = lib.from_numpy(W.copy())
        lib.autograd.backward([a, b.sum()], [g, None])
        return x.grad

    compare(program)


def test_next_functions_structure_and_names() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        y = (x * 2.0 + x).sum()
        fn = y.grad_fn

        def walk(node: Any, depth: int = 0) -> list[Any]:
            if node is None or depth > 4:
                return [None]
            return [node.name(), [[walk(n, depth + 1), nr] for n, nr in node.next_functions]]

        return walk(fn)

    compare(program)


def test_sequence_numbers_increase_in_creation_order() -> None:
    x = leaf(jitgrad, X)
    a = x * 2.0
    b = a + 1.0
    assert a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr()


# -- retain_graph, .grad accumulation ------------------------------------------------------


def test_retain_graph_accumulates_then_second_backward_raises() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        z = (x * x).sum()
        z.backward(retain_graph=True)
        first = x.grad.clone()
        z.backward()
        return first, x.grad

    compare(program)


def test_backward_twice_through_freed_saved_tensor() -> None:
    def program(lib: Any) -> None:
        x = leaf(lib, X)
        z = (x * x).sum()
        z.backward()
        z.backward()

    raises_like(program, "Specify retain_graph=True")


def test_grad_accumulates_across_calls_and_can_be_reset() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        (x * 2.0).sum().backward()
        (x * x).sum().backward()
        after_two = x.grad.clone()
        x.grad = None
        (x * 3.0).sum().backward()
        return after_two, x.grad

    compare(program)


def test_grad_setter_validation() -> None:
    raises_like(lambda lib: setattr(leaf(lib, X), "grad", leaf(lib, X[:3], False)), "attempting to assign a gradient of size")
    raises_like(
        lambda lib: setattr(leaf(lib, X), "grad", leaf(lib, X, False).to(lib.float32)),
        "attempting to assign a gradient with dtype",
    )
    for lib in LIBS:
        x = leaf(lib, X)
        g = lib.from_numpy(W.copy())
        x.grad = g
        assert x.grad is g
        with pytest.raises(TypeError):
            x.grad = 3.0


# -- partial gradients -----------------------------------------------------------------------


def test_autograd_grad_subset_and_non_leaf_inputs() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        a = x * w
        z = (a * a + x).sum()
        (gx,) = lib.autograd.grad(z, [x], retain_graph=True)
        ga, gw = lib.autograd.grad(z, [a, w], retain_graph=True)
        return gx, ga, gw, x.grad, w.grad  # autograd.grad accumulates nothing

    compare(program)


def test_autograd_grad_unused_input() -> None:
    def unused(lib: Any) -> Any:
        x, u = leaf(lib, X), leaf(lib, W)
        return lib.autograd.grad((x * 2.0).sum(), [x, u])

    raises_like(unused, "The differentiated Tensor at index 1 appears to not have been used in the graph")

    def allowed(lib: Any) -> Any:
        x, u = leaf(lib, X), leaf(lib, W)
        return lib.autograd.grad((x * 2.0).sum(), [x, u], allow_unused=True)

    compare(allowed)


def test_backward_inputs_restricts_accumulation() -> None:
    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        a = x * w
        z = (a * a).sum()
        z.backward(inputs=[x], retain_graph=True)
        only_x = (x.grad.clone(), w.grad)
        z.backward(inputs=[a])  # a non-leaf input gets a .grad
        return only_x, a.grad, x.grad

    compare(program)


# -- hooks ----------------------------------------------------------------------------------


def test_hook_order_and_replacement() -> None:
    def program(lib: Any) -> Any:
        log: list[str] = []
        x = leaf(lib, X)
        y = x * 2.0
        y.register_hook(lambda g: log.append("tensor hook 1"))
        y.retain_grad()  # registered between the hooks, runs after both (PyTorch)
        y.register_hook(lambda g: (log.append("tensor hook 2"), g * 10.0)[1])
        y.grad_fn.register_prehook(lambda go: log.append("node pre-hook"))
        y.grad_fn.register_hook(lambda gi, go: log.append("node hook"))
        x.register_hook(lambda g: (log.append("leaf hook"), g + 1.0)[1])
        (y * 3.0).sum().backward()
        return log, y.grad, x.grad

    compare(program)


def test_node_hooks_replace_gradients() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        y = x * 2.0
        z = y * 3.0
        z.grad_fn.register_prehook(lambda go: (go[0] * 0.5,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 100.0, None))
        z.sum().backward()
        return x.grad

    compare(program)


def test_hook_handle_remove() -> None:
    def program(lib: Any) -> Any:
        log: list[int] = []
        x = leaf(lib, X)
        y = x * 2.0
        h = y.register_hook(lambda g: log.append(1))
        y.register_hook(lambda g: log.append(2))
        h.remove()
        y.sum().backward()
        return log

    compare(program)


def test_retain_grad_values() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        a = x * 2.0
        a.retain_grad()
        a.retain_grad()  # twice is once
        z = (a * a + a).sum()
        z.backward(retain_graph=True)
        first = a.grad.clone()
        z.backward()
        b = x * 1.0
        x.retain_grad()  # no-op on a leaf
        return first, a.grad, a.retains_grad, b.retains_grad, x.retains_grad

    compare(program)


def test_hook_raising_mid_backward_changes_no_grad_and_keeps_graph() -> None:
    """Stronger than PyTorch (which may already have accumulated into some leaves): leaf
    gradients are committed only when the whole pass succeeded."""

    def program(lib: Any, fail: bool) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        (x * 1.0).sum().backward()  # x.grad exists already
        a = x * w
        z = (a * 2.0 + x).sum()  # x's AccumulateGrad is ready before a's hook runs
        handle = a.register_hook(lambda g: (_ for _ in ()).throw(ValueError("boom")))
        if fail:
            with pytest.raises(ValueError, match="boom"):
                z.backward(retain_graph=True)
            np.testing.assert_array_equal(x.grad.numpy(), np.ones(5))
            assert w.grad is None
        handle.remove()
        z.backward()  # the graph is intact and reusable
        return x.grad, w.grad

    ours = program(jitgrad, fail=True)
    same(ours, program(torch, fail=False))


# -- ownership of gradient buffers ---------------------------------------------------------------


def test_grad_never_aliases_user_gradient() -> None:
    for lib in LIBS:
        x = leaf(lib, X)
        g = lib.from_numpy(W.copy())
        (x * 1.0).backward(g)
        g.mul_(0.0) if lib is torch else g.numpy().fill(0.0)
        np.testing.assert_array_equal(x.grad.numpy(), W)  # mutating g afterwards changes nothing

        y = leaf(lib, X)
        h = lib.from_numpy(W.copy())
        y.backward(h)  # the root is the leaf itself
        assert np.shares_memory(y.grad.numpy(), h.numpy()) is False


def test_a_node_post_hook_sees_gradients_nothing_overwrites_later() -> None:
    """A node's post-hook sees its incoming gradients and its outputs, and may keep them: the
    node must not scale an owned incoming gradient in place (the hook would see the result as
    ``grad_outputs``), nor pass its outputs on owned (a later node would write into what the
    hook kept). A product by a number and the CopySlices of a write through a view, each
    handed an owned buffer (the sum of two gradients), see what PyTorch's see."""
    for lib in LIBS:
        w = leaf(lib, X)
        x = w * 2.0
        y = x * 3.0
        seen: list[tuple[Any, ...]] = []
        y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0], go[0], gi[0].clone(), go[0].clone())))
        (y + y).sum().backward()  # (the sum of two gradients: an owned buffer into y's node)
        kept_in, kept_out, then_in, then_out = seen[0]
        np.testing.assert_array_equal(then_out.numpy(), np.full(5, 2.0))
        np.testing.assert_array_equal(then_in.numpy(), np.full(5, 6.0))
        np.testing.assert_array_equal(kept_out.numpy(), then_out.numpy())
        np.testing.assert_array_equal(kept_in.numpy(), then_in.numpy())
        np.testing.assert_array_equal(w.grad.numpy(), np.full(5, 12.0))

        b = leaf(lib, X) * 3.0
        b[1:3] *= 2.0  # (b's node: the CopySlices of the copy back, which zeroes the region)
        seen.clear()
        b.grad_fn.register_hook(lambda gi, go: seen.append((gi[0], go[0], gi[0].clone(), go[0].clone())))
        (b + b).sum().backward()
        kept_in, kept_out, then_in, then_out = seen[0]
        np.testing.assert_array_equal(then_out.numpy(), np.full(5, 2.0))
        np.testing.assert_array_equal(then_in.numpy(), [2.0, 0.0, 0.0, 2.0, 2.0])
        np.testing.assert_array_equal(kept_out.numpy(), then_out.numpy())
        np.testing.assert_array_equal(kept_in.numpy(), then_in.numpy())


def test_two_leaves_fed_the_same_gradient_get_distinct_storage() -> None:
    for lib in LIBS:
        x, w = leaf(lib, X), leaf(lib, W)
        (x + w).backward(lib.from_numpy(np.ones(5)))  # AddBackward0 passes one tensor to both
        assert not np.shares_memory(x.grad.numpy(), w.grad.numpy())
        x.grad.numpy()[0] = 42.0 if lib is jitgrad else 1.0
        assert w.grad.numpy()[0] == 1.0


def test_steals_a_fresh_buffer_and_accumulates_in_place() -> None:
    x = leaf(jitgrad, X)
    (x * 2.0).sum().backward()
    first = x.grad
    (x * 3.0).sum().backward()
    assert x.grad is first  # later gradients are added into the same tensor
    np.testing.assert_allclose(first.numpy(), np.full(5, 5.0))


def test_copies_only_when_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh gradient is taken over by AccumulateGrad without a copy; a slot receiving
    several gradients is copied once, then added into in place."""
    from jitgrad.autograd import graph, input_buffer

    copies: list[str] = []

    def counting(where: str, real: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda t: (copies.append(where), real(t))[1]

    monkeypatch.setattr(graph, "dense_copy", counting("leaf", graph.dense_copy))
    monkeypatch.setattr(input_buffer, "dense_copy", counting("buffer", input_buffer.dense_copy))
    added = input_buffer._added  # (the copy and the first add in one: a row's or a scalar's)
    monkeypatch.setattr(
        input_buffer, "_added",
        lambda old, new: (lambda r: (r is not None and copies.append("buffer"), r)[1])(added(old, new)),
    )
    x = leaf(jitgrad, X)
    (x * 2.0).backward(jitgrad.from_numpy(W.copy()))  # MulBackward0's output is fresh: stolen
    assert copies == []
    a = x * 1.0
    (a * 2.0 + a * 3.0 + a * 4.0).sum().backward()  # three gradients for a's node: one copy
    assert copies == ["buffer"]
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * W + 9.0)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_create_graph_accumulates_out_of_place() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        (x * x).sum().backward(create_graph=True)
        return x.grad.grad_fn is not None, x.grad

    compare(program)


# -- double backward -------------------------------------------------------------------------------


def test_hessian_vector_product() -> None:
    v = RNG.standard_normal(5)

    def program(lib: Any) -> Any:
        x, w = leaf(lib, X), leaf(lib, W)
        f = (x * x * x * w + x * w * w).sum()
        gx, gw = lib.autograd.grad(f, [x, w], create_graph=True)
        vt = lib.from_numpy(v.copy())
        hvp = lib.autograd.grad((gx * vt).sum() + (gw * vt).sum(), [x, w])
        return gx, gw, hvp

    compare(program)


# -- grad mode -------------------------------------------------------------------------------------


def test_grad_mode_context_managers_and_decorators() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        with lib.no_grad():
            a = x * 2.0
            with lib.enable_grad():
                b = x * 2.0
        with lib.set_grad_enabled(False):
            c = x * 2.0
        lib.set_grad_enabled(False)  # a plain call takes effect at once
        d = x * 2.0
        lib.set_grad_enabled(True)

        @lib.no_grad()
        def f(t: Any) -> Any:
            return t * 2.0

        @lib.enable_grad()
        def g(t: Any) -> Any:
            return t * 2.0

        with lib.no_grad():
            e = g(x)
        return [t.requires_grad for t in (a, b, c, d, f(x), e)], lib.is_grad_enabled()

    compare(program)


def test_grad_mode_is_thread_local() -> None:
    seen: dict[str, bool] = {}
    inside = threading.Event()
    release = threading.Event()

    def worker() -> None:
        with jitgrad.no_grad():
            inside.set()
            release.wait(5)
            seen["worker"] = jitgrad.is_grad_enabled()

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    seen["main"] = jitgrad.is_grad_enabled()
    x = leaf(jitgrad, X)
    seen["main_records"] = (x * 2.0).requires_grad
    release.set()
    t.join()
    assert seen == {"worker": False, "main": True, "main_records": True}

    fresh: dict[str, bool] = {}
    with jitgrad.no_grad():  # a new thread starts with grad mode on, whatever its parent's mode
        t = threading.Thread(target=lambda: fresh.setdefault("mode", jitgrad.is_grad_enabled()))
        t.start()
        t.join()
    assert fresh == {"mode": True}


# -- tensor autograd attributes ----------------------------------------------------------------------


def test_detach_and_detach_() -> None:
    def program(lib: Any) -> Any:
        x = leaf(lib, X)
        y = x * 2.0
        d = y.detach()
        shares = np.shares_memory(d.numpy(), y.detach().numpy())
        z = x * 3.0
        z.detach_()
        return d.requires_grad, d.is_leaf, d.grad_fn, shares, z.is_leaf, z.requires_grad, y.is_leaf

    compare(program)


def test_requires_grad_errors() -> None:
    raises_like(lambda lib: lib.from_numpy(np.arange(3)).requires_grad_(), "only Tensors of floating point")
    raises_like(lambda lib: (leaf(lib, X) * 2.0).requires_grad_(False), "you can only change requires_grad flags of leaf variables")

    def non_leaf_true(lib: Any) -> Any:
        y = leaf(lib, X) * 2.0
        return y.requires_grad_(True) is y, y.requires_grad

    compare(non_leaf_true)


def test_implicit_gradient_needs_a_scalar() -> None:
    raises_like(lambda lib: (leaf(lib, X) * 2.0).backward(), "grad can be implicitly created only for scalar outputs")


def test_backward_of_a_tensor_without_history() -> None:
    raises_like(
        lambda lib: lib.from_numpy(X.copy()).sum().backward(),
        "element 0 of tensors does not require grad and does not have a grad_fn",
    )


def test_saved_tensor_version_error_names_the_inplace_op_and_line() -> None:
    def program(lib: Any) -> None:
        x = leaf(lib, X)
        a = x * 1.0
        b = a * a
        a.add_(1.0)  # VERSION-BUMP-LINE
        b.sum().backward()

    ours, theirs = raises_like(program, "one of the variables needed for gradient computation has been modified by an inplace operation")
    assert "is at version 1; expected version 0 instead." in ours
    assert "is at version 1; expected version 0 instead." in theirs
    assert "[float64 [5]], which is output 0 of Add," in ours  # a's history *now*, by its forward op
    assert "which is output 0 of Add," in theirs
    source = Path(__file__).read_text().splitlines()
    line = next(i for i, s in enumerate(source, 1) if s.rstrip().endswith("# VERSION-BUMP-LINE"))
    assert f"add_ at {__file__}:{line}" in ours


def test_release_variables_frees_saved_tensors() -> None:
    def program(lib: Any) -> None:
        x = leaf(lib, X)
        z = (x * x).sum()
        if lib is jitgrad:
            z.grad_fn.next_functions[0][0].release_variables()
        else:
            z.backward(retain_graph=False)
        z.backward()

    raises_like(program, "Trying to backward through the graph a second time")


def test_broadcast_gradient_times_a_number_stays_broadcast() -> None:
    """The gradient of ``(x * c).sum()`` w.r.t. ``x * c``'s input is a broadcast constant:
    MulBackward0 keeps it O(1) (one element of storage), and the fan-out result is exact."""
    x = jitgrad.randn(64, 64, dtype=jitgrad.float64, requires_grad=True)
    y = x * 3.0
    g = jitgrad.ones((), dtype=jitgrad.float64).expand(64, 64)
    with jitgrad.no_grad():  # as the engine runs nodes without create_graph
        (out, _) = y.grad_fn.apply([g])
    assert out._storage.size() == 1 and out.stride() == (0, 0)
    np.testing.assert_array_equal(out.numpy(), np.full((64, 64), 3.0))
    loss = sum((x * float(k)).sum() for k in range(1, 9))
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((64, 64), 36.0))
    assert x.grad.is_contiguous() and x.grad._storage.size() == 64 * 64


def _node_classes() -> list[type]:
    import importlib
    import pkgutil

    from jitgrad.autograd.node import Node

    for info in pkgutil.walk_packages(jitgrad.__path__, "jitgrad."):
        if ".tools" not in info.name and ".cli" not in info.name:
            importlib.import_module(info.name)
    seen: list[type] = []
    todo = [Node]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def test_only_nodes_that_take_owned_buffers_see_ownership() -> None:
    """``apply(grads)`` everywhere; the few nodes that reuse an engine-owned gradient buffer
    say so (``takes_owned``) and implement ``apply_owned`` (Note [Gradient buffer ownership])."""
    import inspect

    classes = _node_classes()
    assert len(classes) > 60
    for cls in classes:
        params = list(inspect.signature(cls.apply).parameters)
        assert params == ["self", "grads"], f"{cls.__name__}.apply{params}"
        if "apply_owned" in vars(cls):
            assert cls.takes_owned, cls.__name__
    owners = {c.__name__ for c in classes if c.takes_owned}
    assert {"AccumulateGrad", "CopySlices", "MulBackward0"} <= owners
