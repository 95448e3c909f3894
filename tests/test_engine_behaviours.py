"""The engine's behaviours at its edges, side by side on PyTorch and jitgrad (each once a
known difference in ``test_autograd_behaviours.py``): ``autograd.grad``'s argument checks
and ``materialize_grads``, how sizes print, the order of a leaf's hooks, the node of a
non-leaf among ``backward(inputs=...)``, the ``create_graph`` reference-cycle warning,
anomaly mode's parent nodes, deeply nested (reentrant) backward passes, which leaf takes
over a gradient sent to two, gradcheck's pass with undefined output gradients, and a view a
custom Function writes in place and saves."""

from __future__ import annotations

import threading
import warnings

import pytest
import torch

import jitgrad
from tests.test_autograd_behaviours import _nan_backward_function, both, caught, vec

LIBS = pytest.mark.parametrize("lib", [torch, jitgrad], ids=["torch", "jitgrad"])


# -- autograd.grad: arguments ---------------------------------------------------------------
@pytest.mark.parametrize("inputs", [[], (), None], ids=["list", "tuple", "None"])
def test_grad_refuses_empty_inputs(inputs):
    def program(lib):
        x = vec(lib, [1.0])
        return lib.autograd.grad((x * 2).sum(), inputs)

    both(program)  # RuntimeError "... cannot be empty."; None: TypeError (not iterable)


def test_grad_checks_materialize_grads_before_empty_inputs():
    def program(lib):
        x = vec(lib, [1.0])
        return lib.autograd.grad((x * 2).sum(), [], materialize_grads=True, allow_unused=False)

    both(program)


def test_grad_refuses_empty_inputs_before_looking_at_outputs():
    def program(lib):
        x = vec(lib, [1.0])
        return lib.autograd.grad(x * 2, [], grad_outputs=[vec(lib, [1.0, 2.0, 3.0], grad=False)])

    both(program)


@pytest.mark.parametrize("call", ["grad", "grad empty", "grad other mapping", "backward", "backward empty",
                                  "backward other mapping"])
def test_inputs_given_as_a_dict(call):
    def program(lib):
        from collections import OrderedDict

        x, y = vec(lib, [1.0, 2.0]), vec(lib, [3.0])
        loss = (x * y).sum()
        if call.startswith("grad"):
            inputs = {"grad": {"a": x, "b": y}, "grad empty": {}, "grad other mapping": OrderedDict(a=x)}[call]
            got = lib.autograd.grad(loss, inputs)
            return type(got).__name__, [list(pair) for pair in got.items()]
        inputs = {"backward": {"a": x}, "backward empty": {}, "backward other mapping": OrderedDict(a=x)}[call]
        loss.backward(inputs=inputs)
        return x.grad, y.grad

    both(program)


def test_materialized_zeros_are_differentiable_under_create_graph():
    def program(lib):
        x = vec(lib, [0.5])
        w = vec(lib, [3.0])
        (first,) = lib.autograd.grad((x * w).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(first.sum(), x, create_graph=True, materialize_grads=True)
        (third,) = lib.autograd.grad(second.sum(), x, materialize_grads=True)
        (plain,) = lib.autograd.grad(first.sum(), x, retain_graph=True, materialize_grads=True)
        return second, second.requires_grad, second.is_leaf, third, plain.requires_grad

    both(program)


# -- sizes in messages ----------------------------------------------------------------------
def test_root_gradient_shape_mismatch_prints_sizes_as_pytorch():
    def program(lib):
        x = vec(lib, [1.0, 2.0])
        lib.autograd.grad(x * 2, x, vec(lib, [1.0, 2.0, 3.0], grad=False))

    both(program)  # "... has a shape of torch.Size([3]) and output[0] ... torch.Size([2])."


def test_size_prints_as_pytorch():
    def program(lib):
        t = lib.zeros(2, 3)
        shapes = (t.shape, t.size(), t[0, 0].shape, lib.Size([4, 1]), lib.Size())
        return [(repr(s), str(s), f"{s}", f"{[s]}") for s in shapes], t.shape == (2, 3)

    both(program)


# -- the order hooks run in -----------------------------------------------------------------
def test_post_accumulate_hooks_run_before_accumulate_grad_post_hooks():
    def program(lib):
        log = []
        p = vec(lib, [1.0])
        acc = p.view_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda gin, gout: log.append(("node post hook", gout[0].tolist())))
        p.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", t.grad.tolist())))
        (p * 2).sum().backward()
        (p * 3).sum().backward()
        return log

    both(program)


def test_post_accumulate_hook_may_run_a_backward():
    """(jitgrad held a lock over every leaf's hooks: a backward in one hung.)"""
    def program(lib):
        p, q = vec(lib, [1.0]), vec(lib, [2.0])

        def hook(t):
            if q.grad is None:
                with lib.enable_grad():
                    (q * 3).sum().backward()

        p.register_post_accumulate_grad_hook(hook)
        (p * 2).sum().backward()
        return p.grad, q.grad

    both(program)


# -- backward(inputs=...) with a non-leaf ---------------------------------------------------
def test_backward_inputs_runs_the_node_of_a_non_leaf():
    def program(lib):
        log = []
        x = vec(lib, [1.0])
        h = x * 3
        h.grad_fn.register_prehook(lambda gs: log.append(("pre", gs[0].tolist())))
        h.grad_fn.register_hook(
            lambda gin, gout: log.append(("post", [None if g is None else g.tolist() for g in gin])))
        h.register_hook(lambda g: log.append(("tensor", g.tolist())) or g * 10)
        (h * 4).sum().backward(inputs=[h])
        return log, h.grad, x.grad

    both(program)


def test_backward_inputs_releases_the_node_of_a_non_leaf():
    def program(lib):
        x = vec(lib, [1.0])
        h = x.exp()
        (h * 4).sum().backward(inputs=[h])
        h.sum().backward()  # h's node ran (and freed what it saved) in the first backward

    both(program, "Trying to backward through the graph a second time")


def test_backward_inputs_non_leaf_and_leaf_behind_it():
    def program(lib):
        log = []
        x = vec(lib, [0.5])
        y = x.exp()
        z = y * 2
        z.grad_fn.register_hook(
            lambda gin, gout: log.append([None if g is None else g.tolist() for g in gin]))
        (z * 4).sum().backward(inputs=[z, x], retain_graph=True)
        (z * 4).sum().backward(inputs=[y])
        return log, z.grad, y.grad, x.grad

    both(program)


# -- the create_graph reference-cycle warning -----------------------------------------------
def _warnings_with_warn_always(lib, body):
    before = lib.is_warn_always_enabled()
    lib.set_warn_always(True)  # (PyTorch's warning is given once per process otherwise)
    try:
        return caught(body)[1]
    finally:
        lib.set_warn_always(before)


@pytest.mark.parametrize("call", ["leaf", "non-leaf only", "inputs", "grad", "no create_graph"])
def test_backward_with_create_graph_warns_about_the_reference_cycle(call):
    def program(lib):
        x = vec(lib, [1.0])
        h = x * 2
        run = {
            "leaf": lambda: (x * x).sum().backward(create_graph=True),
            "non-leaf only": lambda: lib.autograd.backward([(h * h).sum()], create_graph=True, inputs=[h]),
            "inputs": lambda: (x * x).sum().backward(create_graph=True, inputs=[x]),
            "grad": lambda: lib.autograd.grad((x * x).sum(), x, create_graph=True),
            "no create_graph": lambda: (x * x).sum().backward(),
        }[call]
        got = _warnings_with_warn_always(lib, run)
        x.grad = h.grad = None
        return got

    both(program)


@pytest.mark.parametrize("call", ["no grad_fn", "shape", "empty inputs"])
def test_backward_refused_before_running_gives_no_cycle_warning(call):
    def program(lib):
        x = vec(lib, [1.0])
        run = {
            "no grad_fn": lambda: x.detach().sum().backward(create_graph=True),
            "shape": lambda: (x * 2).backward(vec(lib, [1.0, 2.0], grad=False), create_graph=True),
            "empty inputs": lambda: (x * 2).sum().backward(create_graph=True, inputs=[]),
        }[call]

        def body():
            try:
                run()
            except RuntimeError as e:
                return str(e)
            return None

        return _warnings_with_warn_always(lib, body), body()

    both(program)


# -- anomaly mode: the node whose backward made the failing one -----------------------------
def _square_with_nan_double_backward(lib):
    """``x * x``, whose backward is made of a Function returning NaN in its own backward."""
    nan_grad = _nan_backward_function(lib)

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return nan_grad.apply(2 * x * g)

    return Twice


def _anomaly_warnings(lib, forward_in_anomaly_mode):
    """The first words of each warning while a double backward fails in anomaly mode."""
    x = vec(lib, [1.0])
    y = _square_with_nan_double_backward(lib).apply(x).sum()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            if forward_in_anomaly_mode:  # (else TwiceBackward has no forward traceback)
                y = _square_with_nan_double_backward(lib).apply(x).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            with pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
                g.sum().backward()
    return [str(w.message).strip().split(".")[0] for w in got]


@pytest.mark.parametrize("forward_in_anomaly_mode", [True, False])
def test_anomaly_mode_names_the_parent_of_a_node_made_in_backward(forward_in_anomaly_mode):
    both(lambda lib: _anomaly_warnings(lib, forward_in_anomaly_mode))


# -- nested (reentrant) backward ------------------------------------------------------------
def _countdown(lib, log=None):
    class Countdown(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.left = int(x.item())
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            if log is not None:
                log.append((ctx.left, lib.is_grad_enabled()))
            if ctx.left > 0:
                with lib.enable_grad():
                    y = vec(lib, float(ctx.left - 1))
                    Countdown.apply(y).backward()
            elif log is not None:
                raise ValueError("the innermost backward failed")
            return g * 2

    return Countdown


def test_deep_reentrant_backward():
    def program(lib):
        x = vec(lib, 1500.0)
        _countdown(lib).apply(x).backward()
        return x.grad

    both(program)


def test_deep_reentrant_backward_raises_the_innermost_error():
    def program(lib):
        log = []
        _countdown(lib, log).apply(vec(lib, 200.0)).backward()

    both(program)


def test_deep_reentrant_backward_keeps_thread_local_state():
    """Past the depth where a nested pass moves to a new thread, grad mode, saved tensor
    hooks and anomaly mode's parents are the calling thread's."""
    def program(lib):
        packed = []
        log = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.left = int(x.item())
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                log.append(("backward", lib.is_grad_enabled()))
                if ctx.left > 0:
                    with lib.enable_grad():
                        Square.apply(vec(lib, float(ctx.left - 1))).backward()
                        log.append(("after the nested pass", lib.is_grad_enabled()))
                return 2 * x * g

        def pack(t):
            packed.append(threading.current_thread() is main)
            return t

        main = threading.current_thread()
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x = vec(lib, 150.0)
            Square.apply(x).backward()
        return x.grad, sorted(set(log)), len(log), len(packed), packed.index(False)  # (the first pass on a new thread)

    both(program)


def test_deep_reentrant_backward_from_another_thread():
    results = {}

    def work(lib):
        x = vec(lib, 300.0)
        _countdown(lib).apply(x).backward()
        results[lib.__name__] = x.grad.tolist()

    threads = [threading.Thread(target=work, args=(lib,)) for lib in (torch, jitgrad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["jitgrad"] == results["torch"] == 2.0


# -- one gradient for two leaves ------------------------------------------------------------
@pytest.mark.parametrize("root", ["square", "times tensor", "given gradient"])
def test_one_gradient_for_two_leaves_is_taken_over_by_one(root):
    def program(lib):
        class Fork(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                Fork.pointer = g.data_ptr()
                return g, g

        a, b = vec(lib, [1.0, 2.0]), vec(lib, [3.0, 4.0])
        y = Fork.apply(a, b)
        if root == "square":
            (y ** 2).sum().backward()
        elif root == "times tensor":
            (y * vec(lib, [2.0, 3.0], grad=False)).sum().backward()
        else:
            gradient = vec(lib, [1.0, 5.0], grad=False)
            y.backward(gradient)  # (the caller holds it: copied into both)
            return a.grad, b.grad, Fork.pointer in (a.grad.data_ptr(), b.grad.data_ptr())
        owners = (a.grad.data_ptr() != b.grad.data_ptr(), Fork.pointer in (a.grad.data_ptr(), b.grad.data_ptr()))
        a.grad.add_(1.0)  # (the two leaves' gradients are separate)
        return a.grad, b.grad, owners

    both(program)


# -- gradcheck: undefined output gradients --------------------------------------------------
def _fails_on_none(t):
    y = t.clone()
    y.register_hook(lambda g: (_ for _ in ()).throw(RuntimeError("undefined")) if g is None else g)
    return y, t * 3


def _nonzero_for_none(lib):
    class Leaky(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.set_materialize_grads(False)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return 2 * g if g is not None else lib.ones(2, dtype=lib.float64)

    return Leaky.apply


GRADCHECKS = {
    "no differentiable output": lambda lib, x: lib.autograd.gradcheck(lambda t: (t > 0).double(), (x,)),
    "two outputs": lambda lib, x: lib.autograd.gradcheck(lambda t: (t * 2, t.sin()), (x,)),
    "hook failing on None": lambda lib, x: lib.autograd.gradcheck(_fails_on_none, (x,)),
    "not asked": lambda lib, x: lib.autograd.gradcheck(_fails_on_none, (x,), check_undefined_grad=False),
    "no raise": lambda lib, x: lib.autograd.gradcheck(_fails_on_none, (x,), raise_exception=False),
    "nonzero gradient for None": lambda lib, x: lib.autograd.gradcheck(_nonzero_for_none(lib), (x,)),
    "gradgradcheck": lambda lib, x: lib.autograd.gradgradcheck(lambda t: (t * t).sum(), (x,)),
}


@pytest.mark.parametrize("case", list(GRADCHECKS))
def test_gradcheck_checks_undefined_output_gradients(case):
    def program(lib):
        x = vec(lib, [1.0, 2.0])

        def body():
            try:
                return GRADCHECKS[case](lib, x)
            except RuntimeError as e:  # (GradcheckError: each library's own class)
                return type(e).__name__, str(e)

        return caught(body)

    both(program)


def test_function_applied_to_a_view_whose_base_was_written_with_history():
    """(gradcheck's undefined-gradient pass met this: the view's history is regenerated.)"""
    def program(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        r = vec(lib, [1.5])
        x = lib.ones(5, dtype=lib.float64)
        v = x.select(0, 1)
        x.add_(r)  # v now depends on r, its history not read yet
        y = Twice.apply(v)
        y.backward()
        return y.requires_grad, y, r.grad

    both(program)


# -- a view a custom Function writes in place and saves -------------------------------------
def _exp_in_place(lib):
    class ExpInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            v.exp_()
            ctx.mark_dirty(v)
            ctx.save_for_backward(v)
            return v

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    return ExpInPlace


def test_dirty_saved_view_is_freed_without_gc():
    def program(lib):
        import gc
        import weakref

        gc.disable()
        try:
            base = vec(lib, [1.0, 2.0]).clone()
            view = base[:1]
            _exp_in_place(lib).apply(view)
            ref = weakref.ref(view)
            del base, view
            return ref() is None
        finally:
            gc.enable()

    both(program)


@pytest.mark.parametrize("double", [False, True], ids=["backward", "double backward"])
def test_dirty_saved_view_in_backward(double):
    def program(lib):
        x = vec(lib, [0.5, 1.0, -0.5])
        base = x * 1.0
        out = _exp_in_place(lib).apply(base[1:])
        w = vec(lib, [1.0, 2.0, 3.0], grad=False)
        if double:
            (g,) = lib.autograd.grad((base * w).sum(), x, create_graph=True)
            return base, g, lib.autograd.grad(g.sum(), x)[0], out.grad_fn.name()
        (base * w).sum().backward()
        return base, x.grad, out.grad_fn.name(), base.grad_fn.name(), out._version

    both(program)
