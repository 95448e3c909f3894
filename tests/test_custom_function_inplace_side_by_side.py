"""Custom autograd Functions that write in place or return views, side by side on PyTorch
and jitgrad (``both`` in ``tests/compat_helpers.py``; float64).

A Function may write into an input it then returns, if it says so with ``ctx.mark_dirty``;
its output is then the input, with the Function as its history. Writing into a view, or
into what the Function created itself, has rules of its own, and a view a Function returns
may not be written into afterwards. Each program returns what its Function's backward saw
and computed, the node names, the warnings, or the error's type and the part of its
message that says why.
"""

from __future__ import annotations

import warnings

import pytest

from tests.compat_helpers import both, numbers, outcome, raised

CUSTOM_VIEW = "This view was created inside a custom Function"
MULTI_VIEW = "This view is the output of a function that returns multiple views."
NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace"


def dirty_adder(lib, calls):
    """``AddInto.apply(a, b)`` adds ``b`` into ``a`` and returns ``a`` (marked dirty); its
    backward counts its calls in ``calls``."""
    class AddInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, target, amount):
            ctx.mark_dirty(target)
            return target.add_(amount)

        @staticmethod
        def backward(ctx, g):
            calls.append(g.shape)
            return g, g

    return AddInto


def test_a_dirty_input_returned_is_the_output_with_the_function_as_history():
    def program(lib):
        calls = []
        add_into = dirty_adder(lib, calls).apply
        w = numbers(lib, 3, seed=1, grad=True)
        d = numbers(lib, 3, seed=2, grad=True)
        seen = []
        for prepare, after in ((lambda t: t.clone(), None),
                               (lambda t: t.clone(), lambda t: t.mul_(4)),
                               (lambda t: (t * 1).view(3), None)):
            start = prepare(w)
            out = add_into(start, d)
            if after is not None:
                after(out)
            (out * out).sum().backward()
            seen.append((out is start, out.grad_fn.name(), start._version, len(calls)))
        return seen, w.grad, d.grad

    both(program)


def test_a_dirty_function_writing_into_nested_views_passes_gradcheck():
    def program(lib):
        add_into = dirty_adder(lib, []).apply

        def two_corners(root, patch):
            x = root.clone()
            add_into(x.narrow(0, 0, 2).narrow(1, 1, 2), patch)
            add_into(x.narrow(0, 1, 2).narrow(1, 0, 2), patch * 2)
            return x

        root = numbers(lib, 3, 3, seed=3, grad=True)
        patch = numbers(lib, 2, 2, seed=4, grad=True)
        check = lib.autograd
        return check.gradcheck(two_corners, (root, patch)), check.gradgradcheck(two_corners, (root, patch))

    both(program)


def test_a_dirty_view_of_a_leaf_or_of_a_multiple_output_view_is_refused():
    def program(lib):
        add_into = dirty_adder(lib, []).apply
        one = lib.ones(1, dtype=lib.float64)
        leaf = numbers(lib, 4, seed=5, grad=True)
        of_leaf = raised(lambda: add_into(leaf[1:], one),
                         "a view of a leaf Variable that requires grad")
        pieces = (leaf * 1).split_with_sizes([3, 1])
        # (the whole message: the write is direct, as the edges are taken before forward runs)
        of_split = outcome(lambda: add_into(pieces[1], one))
        return of_leaf, of_split

    both(program)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_dirty_view_made_without_grad_is_refused_when_the_function_is_recorded(mode):
    """Fixed in ops/__init__.py _rebase_dirty_view: the view's creation is checked even when
    the view itself requires no grad (another input does, so the Function is recorded)."""
    def program(lib):
        add_into = dirty_adder(lib, []).apply
        sheet = numbers(lib, 2, 3, seed=21)
        with getattr(lib, mode)():
            row = sheet[0]
        amount = numbers(lib, 3, seed=22, grad=True)
        refused = outcome(lambda: add_into(row, amount))
        with lib.no_grad():
            quiet = add_into(row, amount)  # (not recorded: allowed)
        return refused, quiet.requires_grad, sheet

    both(program)


def test_write_into_a_view_the_engine_gives_no_gradient_for_one_input():
    def program(lib):
        class Triple(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, unused):
                ctx.mark_dirty(x)
                return x.mul_(3)

            @staticmethod
            def backward(ctx, g):
                return g * 3, None

        a = numbers(lib, 2, seed=6, grad=True)
        unused = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        out = Triple.apply(a.clone()[1:], unused)
        out.sum().backward()
        return out.grad_fn.name(), a.grad, unused.grad

    both(program)


def test_mark_dirty_on_a_tensor_that_is_not_an_input():
    def program(lib):
        class Fresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                made = x * 2
                made.sub_(y)
                ctx.mark_dirty(made)
                return made

            @staticmethod
            def backward(ctx, g):
                return 2 * g, -g

        class ViewOfFresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x.clone().view(-1)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, g):
                return g

        x = numbers(lib, 2, seed=7, grad=True)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            Fresh.apply(x.clone(), x)
        refused = raised(lambda: ViewOfFresh.apply(x.clone()), "received a tensor that was not an input.")
        return [w.category.__name__ for w in got], refused

    both(program)


def test_dirty_input_and_a_second_output():
    def program(lib):
        calls = []

        class AddAndSum(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b)
                ctx.mark_dirty(a)
                return a, a + b

            @staticmethod
            def backward(ctx, g_a, g_sum):
                calls.append(1)
                return g_a + g_sum, g_a + 2 * g_sum

        p = numbers(lib, 3, seed=8, grad=True)
        q = numbers(lib, 3, seed=9, grad=True)
        first, second = AddAndSum.apply(p.clone(), q)
        (first * second).sum().backward()
        again, other = AddAndSum.apply(p.clone(), q)
        again.mul_(3)
        (again * other).sum().backward()
        names = (again.grad_fn.name(), other.grad_fn.name())
        refused = raised(lambda: AddAndSum.apply(p.clone().view(3), q),
                         "your Function modifies inplace an input that is a view of another Tensor")
        return len(calls), p.grad, q.grad, names, refused

    both(program)


def test_a_dirty_input_must_be_returned():
    def program(lib):
        class CopiesOut(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.mul_(b)
                ctx.mark_dirty(a)
                return a.clone(), a * b

            @staticmethod
            def backward(ctx, g1, g2):
                return g1, g2

        p = numbers(lib, 2, seed=10, grad=True)
        q = numbers(lib, 2, seed=11, grad=True)
        return raised(lambda: CopiesOut.apply(p.clone().view(2), q),
                      "Some elements marked as dirty during the forward method were not returned as output.")

    both(program)


def test_a_view_returned_by_a_function_refuses_writes():
    def program(lib):
        class Head(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:2]

            @staticmethod
            def backward(ctx, g):
                return lib.cat([g, g.new_zeros(1)])

        w = numbers(lib, 3, seed=12, grad=True)
        plain = numbers(lib, 3, seed=13)
        g = numbers(lib, 2, seed=14, grad=True)
        out = Head.apply(w * 1)
        of_constant = Head.apply(plain)
        seen = [out._is_view(), of_constant._is_view(), of_constant.requires_grad,
                raised(lambda: out.add_(1), CUSTOM_VIEW),
                raised(lambda: of_constant.add_(g), CUSTOM_VIEW),
                raised(lambda: of_constant.copy_(g), CUSTOM_VIEW)]
        of_constant.mul_(2)  # (nothing requires grad: allowed)
        with lib.no_grad():
            quiet = Head.apply(w)
            expected = w[:2]
        seen += [quiet.requires_grad == expected.requires_grad, quiet.requires_grad,
                 raised(quiet.zero_, NO_GRAD_VIEW)]
        return seen

    both(program)


def test_views_of_constants_by_other_ops_accept_writes_requiring_grad():
    def program(lib):
        g = numbers(lib, 3, seed=15, grad=True)
        first = numbers(lib, 3, 2, seed=16).unbind(1)[0]
        column = numbers(lib, 3, 2, seed=17)
        column.select(1, 1).copy_(g)
        return raised(lambda: first.copy_(g), MULTI_VIEW), column.grad_fn.name(), column.requires_grad

    both(program)


def test_a_function_making_two_views_has_one_backward_and_a_view_output():
    def program(lib):
        calls = []

        class Pick(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, at):
                a.narrow(0, at, 1)  # a view made and dropped
                ctx.save_for_backward(a)
                ctx.at = at
                return a.select(0, at)

            @staticmethod
            def backward(ctx, g):
                calls.append(1)
                (a,) = ctx.saved_tensors
                grad = lib.zeros_like(a)
                grad[ctx.at] = g
                return grad, None

        x = numbers(lib, 3, 2, seed=18, grad=True)
        out = Pick.apply(x.clone(), 2)
        (out * out).sum().backward()
        again = Pick.apply(x.clone(), 0)
        refused = raised(lambda: again.sub_(1), "Output 0 of Pick is a view and is being modified inplace")
        return len(calls), x.grad, out.grad_fn.name(), refused

    both(program)


def test_a_write_into_a_local_view_inside_forward_keeps_the_function_node():
    def program(lib):
        class Head(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, write):
                part = x.clone()[1:4]
                if write:
                    part.mul_(-1)
                return part

            @staticmethod
            def backward(ctx, g):
                return lib.cat([g.new_zeros(1), g, g.new_zeros(2)]), None

        x = numbers(lib, 6, seed=19, grad=True)
        outs = [Head.apply(x, write) for write in (False, True)]
        sum(o.sum() for o in outs).backward()
        return [(type(o.grad_fn).__name__, o.grad_fn.name(), o._is_view()) for o in outs], x.grad

    both(program)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_view_made_without_grad_of_a_base_requiring_grad_is_an_input_requiring_grad(mode):
    """Fixed in autograd/function.py Function.apply: ``needs_input_grad`` is the input's
    ``requires_grad``, which for a view is its base's too (the view has no history)."""
    def program(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                ctx_seen.append(ctx.needs_input_grad)
                return g * 2

        ctx_seen = []
        base = numbers(lib, 2, 3, seed=20, grad=True)
        with getattr(lib, mode)():
            row = base[1]
        out = Double.apply(row)
        flags = (row.requires_grad, row.is_leaf, row.grad_fn is None, out.requires_grad,
                 out.grad_fn.name())
        out.sum().backward()
        return flags, ctx_seen, row.grad, base.grad

    both(program)


def test_printed_output_of_a_custom_function():
    def program(lib):
        class Same(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        a = lib.tensor([0.5, 4.0], requires_grad=True)
        return repr(Same.apply(a)), repr(Same.apply(a * 2))

    both(program)
