"""In-place writes, views and version counters, side by side on PyTorch and jitgrad.

Each test is a small program ``program(lib)`` run once with ``torch`` and once with
``jitgrad`` (``both`` in ``tests/compat_helpers.py``); the values, gradients, node names,
``_version`` numbers, flags and errors it returns must match. float64 throughout, except
where a program prints a tensor of the default dtype.

What is covered: which nodes a write to a saved tensor breaks, ``setitem`` on every kind of
index, gradients of views for expanded grad outputs, ``detach``/``detach_`` on bases and
views, writes into leaves and under ``no_grad``, the layout of a leaf's gradient,
``_version`` and ``autograd.graph.increment_version``, ``.data =``, CopySlices over views
of views, ``resize_``, printing of ``grad_fn`` and ``var_mean``. Views by how they were
made (multiple-output, no_grad, inference mode, custom Function) and the in-place view ops
are in ``test_view_creation_side_by_side.py``; custom Functions that write in place in
``test_custom_function_inplace_side_by_side.py``.
"""

from __future__ import annotations

import gc

import pytest

from tests.compat_helpers import both, numbers, raised

STALE = "modified by an inplace operation"
LEAF_VIEW = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def backward_outcome(root, *leaves):
    """Backward from ``root`` (grads zeroed first); the error kind, or the leaves' grads."""
    for t in leaves:
        t.grad = None
    kind = raised(lambda: root.sum().backward(retain_graph=True), STALE)
    return kind, [t.grad for t in leaves] if kind == "ok" else None


# --- a write to a tensor that a node saved ----------------------------------------------------


def test_write_breaks_only_the_nodes_that_saved_the_old_value():
    def program(lib):
        a = numbers(lib, 3, 2, seed=1, grad=True)
        b = numbers(lib, 3, 2, seed=2, grad=True)
        h = a * b
        plus = h + b  # AddBackward0 saves nothing
        times = h * b  # MulBackward0 saves h
        before = h._version
        h.add_(0.5)
        return (before, h._version, h.grad_fn.name(), backward_outcome(plus, a, b),
                backward_outcome(times, a, b), backward_outcome(h, a, b))

    both(program)


def test_a_saved_result_overwritten_by_its_own_in_place_op():
    def program(lib):
        a = numbers(lib, 4, seed=3, grad=True)
        b = numbers(lib, 4, seed=4, grad=True)
        h = a / 4 + b * 0.25
        squared = h * h  # saves h at version 0
        side = h - b
        out = h.exp_()  # ExpBackward0 saves its result, h at version 1
        return (out is h, h._version, h.grad_fn.name(), backward_outcome(side, a, b),
                backward_outcome(out, a, b), backward_outcome(squared, a, b))

    both(program)


def test_clone_of_a_leaf_written_then_used_then_written_again():
    def program(lib):
        w = numbers(lib, 2, 3, seed=5, grad=True)
        c = w.clone()
        c.mul_(3).sub_(1)
        d = c.sin()
        d.sum().backward()
        first = w.grad.clone()
        e = c.cos()  # saves c
        c.div_(2)
        # (the message names the saved tensor's history by its forward op, as PyTorch 2.13)
        stale = raised(lambda: e.sum().backward(),
                       "which is output 0 of Div, is at version 3; expected version 2")
        return first, c._version, stale, d.grad_fn.name()

    both(program)


# --- setitem -------------------------------------------------------------------------------

INDEXES = {
    "int": ((4, 3), 2),
    "int_1d": ((6,), -2),
    "int_len1": ((1,), 0),
    "list": ((7,), [5, 1, 3]),
    "two_lists": ((4, 3), ([3, 0], [1, 1])),
    "list_last_dim": ((3, 4, 2), (slice(None), slice(None), [1, 0])),
    "list_middle_dim": ((3, 4, 2), (slice(None), [0, 3])),
    "list_first_dim": ((3, 4, 2), ([2, 0],)),
    "lists_last_two": ((3, 4, 2), (slice(None), [3, 1], [0, 1])),
    "lists_first_two": ((3, 4, 2), ([0, 2], [3, 3], slice(None))),
    "nested_list": ((6,), [[4, 0, 2]]),
    "slice_step": ((5, 4), (slice(1, None, 2), 3)),
}


def _index(lib, kind, tensor_index):
    index = INDEXES[kind][1]
    if kind == "nested_list" and lib.__name__ == "torch":
        # Deliberate difference: jitgrad reads a list of lists as one index array, as NumPy
        # does and PyTorch has announced (``indexing.as_tuple``); PyTorch 2.13 still reads it
        # as a tuple of indexes, with a deprecation warning. So PyTorch gets the array.
        return lib.tensor(index)
    if tensor_index and isinstance(index, tuple) and isinstance(index[0], list):
        return (lib.tensor(index[0]),) + index[1:]
    return index


@pytest.mark.parametrize("tensor_index", [False, True], ids=["list", "tensor"])
@pytest.mark.parametrize("kind", sorted(INDEXES))
def test_setitem_of_a_constant_and_of_a_value_requiring_grad(kind, tensor_index):
    shape = INDEXES[kind][0]

    def program(lib):
        where = _index(lib, kind, tensor_index)
        x = numbers(lib, *shape, seed=6, grad=True)
        y = x * 3
        v0 = y._version
        y[where] = -1.5
        y.backward(numbers(lib, *shape, seed=7))
        x2 = numbers(lib, *shape, seed=6, grad=True)
        y2 = x2 - 1
        fill = lib.full_like(y2[where], 0.75).requires_grad_()
        y2[where] = fill
        y2.backward(numbers(lib, *shape, seed=8))
        return v0, y._version, x.grad, y2._version, x2.grad, fill.grad

    both(program)


def test_copy_between_views_sharing_an_element_at_the_same_index():
    """A symmetric fill (``A[i:, i] = A[i, i:]``) and ``diagonal().copy_(row)``: the views
    share one element, read and written at the same index, so the result does not depend on
    the order of the writes; PyTorch allows it, and so does jitgrad (values and gradients)."""
    def program(lib):
        x = numbers(lib, 4, 4, seed=9, grad=True)
        a = x * 1
        for i in range(3):  # (at i = 3 the two one-element views differ in strides only:
            a[i:, i] = a[i, i:]  # PyTorch refuses that, jitgrad copies the element onto itself)
        b = x * 2
        b.diagonal().copy_(b[0])
        (a * numbers(lib, 4, 4, seed=2) + b.exp()).sum().backward()
        return a, b, x.grad

    both(program)


def test_copy_between_views_sharing_an_element_at_different_indexes_is_refused():
    """``v[1:] = v[:-1]``: element 1 is written at index 0 and read at index 1; both
    libraries refuse."""
    both(lambda lib: numbers(lib, 5, seed=1).__setitem__(slice(1, None), numbers(lib, 5, seed=1)[:-1]),
         "refer to a single memory location")

    def shifted(lib):
        v = numbers(lib, 5, seed=1)
        v[1:] = v[:-1]

    both(shifted, "refer to a single memory location")


def test_setitem_with_a_zero_dim_integer_tensor_index():
    def program(lib):
        x = numbers(lib, 5, seed=9, grad=True)
        y = x * 3
        at = lib.tensor([1, 2]).sum()  # 0-dim int64: 3
        value = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
        y[at] = value
        y.backward(numbers(lib, 5, seed=10))
        return y._version, x.grad, value.grad

    both(program)


def test_setitem_broadcasts_the_value_and_its_gradient_is_summed_back():
    def program(lib):
        row = numbers(lib, 4, seed=11, grad=True)
        box = lib.zeros(3, 2, 4, dtype=lib.float64)
        box[2] = row
        box.backward(numbers(lib, 3, 2, 4, seed=12))
        return box.grad_fn.name(), row.grad

    both(program)


def test_writes_into_a_tensor_not_requiring_grad_make_it_require_grad():
    def program(lib):
        p = numbers(lib, 3, seed=13, grad=True)
        q = numbers(lib, 3, seed=14, grad=True)
        sheet = lib.zeros(4, 3, dtype=lib.float64)
        sheet[1] = p
        sheet[3] = q * -2
        flags = (sheet.requires_grad, sheet.is_leaf, sheet.grad_fn.name())
        (sheet * numbers(lib, 4, 3, seed=15)).sum().backward()
        return flags, p.grad, q.grad

    both(program)


def test_setitem_under_no_grad_keeps_a_leaf_a_leaf_and_bumps_its_version():
    def program(lib):
        w = numbers(lib, 2, 3, seed=16, grad=True)
        before = w._version
        with lib.no_grad():
            w[1] = numbers(lib, 3, seed=17)
        return before, w._version, w.requires_grad, w.grad_fn is None, w.is_leaf, w

    both(program)


def test_write_under_no_grad_still_invalidates_saved_tensors():
    def program(lib):
        u = numbers(lib, 4, seed=18, grad=True)
        v = numbers(lib, 4, seed=19, grad=True)
        dot = (u * v).sum()
        with lib.no_grad():
            u.mul_(-1)
        return u._version, raised(dot.backward, STALE)

    both(program)


# --- gradients of views for expanded grad outputs ----------------------------------------


def test_view_gradients_for_expanded_grad_outputs():
    def program(lib):
        m = numbers(lib, 4, 4, seed=20, grad=True)
        cube = numbers(lib, 3, 4, 5, seed=21, grad=True)
        scalar = lib.tensor(0.375, dtype=lib.float64).expand(4)
        row = numbers(lib, 5, seed=22).expand(4, 5)
        column = numbers(lib, 4, 1, seed=23).expand(2, 4, 5)
        (g_diag,) = lib.autograd.grad(m.diagonal(), m, scalar)
        (g_select,) = lib.autograd.grad(cube[1], cube, row)
        (g_slice,) = lib.autograd.grad(cube[1:3], cube, column)
        return g_diag, g_select, g_slice

    both(program)


def test_select_then_sum_passes_gradcheck_and_gradgradcheck():
    def program(lib):
        x = numbers(lib, 6, seed=24, grad=True)

        def pick(t):
            return t.select(0, 4).sum()

        return lib.autograd.gradcheck(pick, (x,)), lib.autograd.gradgradcheck(pick, (x,))

    both(program)


def test_only_the_used_chunk_gets_a_gradient():
    def program(lib):
        x = numbers(lib, 6, 4, seed=25, grad=True)
        pieces = x.chunk(3)
        (pieces[1] * -3 + 1).sum().backward()
        first = x.grad.clone()
        x.grad = None
        x.chunk(3)[2].backward(numbers(lib, 2, 4, seed=26))
        return first, x.grad, [p.grad_fn.name() for p in pieces]

    both(program)


# --- detach and detach_ ----------------------------------------------------------------------


def test_detach_cuts_the_graph():
    def program(lib):
        x = numbers(lib, 3, 2, seed=27, grad=True)
        cut = (x * 5).detach()
        later = cut * 2 - 1
        (x * cut).sum().backward()
        return (cut.requires_grad, cut.grad_fn is None, cut.is_leaf, later.requires_grad,
                x.grad, cut._version)

    both(program)


def test_detach_in_place_on_an_intermediate():
    def program(lib):
        x = numbers(lib, 3, seed=28, grad=True)
        y = numbers(lib, 3, seed=29, grad=True)
        mid = x.exp()
        (mid * y).sum().backward(retain_graph=True)
        returned = mid.detach_()
        (mid * y).sum().backward()
        return returned is mid, mid.requires_grad, mid.grad_fn is None, mid.is_leaf, x.grad, y.grad

    both(program)


def test_detach_in_place_on_a_view_raises_and_on_a_base_leaves_its_views_attached():
    def program(lib):
        x = numbers(lib, 5, 3, seed=30, grad=True)
        middle = x.narrow(0, 2, 2)
        refused = raised(middle.detach_, "view")
        # (fixed in autograd/variable.py detach_: refused on a view of a constant too)
        of_constant = [raised(v.detach_, "Can't detach views in-place") for v in
                       (numbers(lib, 4, seed=63)[1:], numbers(lib, 2, 2, seed=64).view(4))]
        base = numbers(lib, 5, 3, seed=31, grad=True)
        top = base[:2]
        base.detach_()
        top.sum().backward()
        return (refused, of_constant, base.requires_grad, top.requires_grad, top.grad_fn.name(),
                top._base is base, base.grad)

    both(program)


def test_a_leaf_that_stopped_requiring_grad_gets_no_gradient():
    """Fixed in jitgrad/autograd/graph.py accumulate_grad: the graph still leads to the leaf,
    but its AccumulateGrad drops the gradient (its hooks still run)."""
    def program(lib):
        seen = []
        w = numbers(lib, 3, seed=61, grad=True)
        w.register_hook(lambda g: seen.append(g.tolist()))
        product = w * w
        w.requires_grad_(False)
        product.sum().backward()
        base = numbers(lib, 4, seed=62, grad=True)
        head = base[:3] * 2
        base.detach_()
        head.sum().backward()
        return seen, w.grad, base.grad, w.is_leaf, base.is_leaf

    both(program)


def test_a_leaf_gradient_takes_the_leaf_layout_and_its_current_sizes():
    """Fixed in autograd/graph.py accumulate_grad (PyTorch's layout contract): a transposed
    leaf's gradient has its strides; a leaf whose sizes an in-place view op under no_grad
    changed after the graph was built gets the gradient broadcast into its new sizes."""
    def program(lib):
        tall = numbers(lib, 4, 3, seed=65).t().detach().requires_grad_()
        for _ in range(2):
            (tall.sin() * 2).sum().backward()
        w = numbers(lib, 3, 4, seed=66, grad=True)
        top = w.narrow(0, 0, 2)
        twice = w * 2
        with lib.no_grad():
            w.unsqueeze_(0)
        (top.exp().sum() + twice.sum()).backward()
        return tall.grad, tall.grad.stride(), w.grad, w.grad.stride(), top.grad_fn.name()

    both(program)


def test_writing_through_detach_invalidates_what_was_saved():
    def program(lib):
        s = lib.tensor(1.25, dtype=lib.float64, requires_grad=True)
        cubed = s ** 3
        alias = s.detach()
        alias.fill_(0.5)
        return s._version, alias._version, raised(cubed.backward, STALE)

    both(program)


# --- requires_grad and in-place writes ---------------------------------------------------------


def test_adding_a_tensor_that_requires_grad_in_place():
    def program(lib):
        b = numbers(lib, 2, 2, seed=32, grad=True)
        plain = numbers(lib, 2, 2, seed=33)
        plain += b
        made = numbers(lib, 2, 2, seed=34) * 1
        made -= b
        return [(t.requires_grad, t.is_leaf, t.grad_fn.name(), t._version) for t in (plain, made)]

    both(program)


def test_writes_before_requires_grad_is_set_are_not_recorded():
    def program(lib):
        a = numbers(lib, 2, 3, seed=35)
        a.mul_(4)
        a.requires_grad = True
        (a * a).sum().backward()
        b = numbers(lib, 2, 3, seed=36)
        b[:, 1:].add_(3)
        b.requires_grad_()
        b.sum().backward()
        return a.grad, b.grad, a._version, b._version

    both(program)


def test_writes_after_requires_grad_is_set_are_refused_on_the_leaf_and_its_views():
    def program(lib):
        a = numbers(lib, 2, 3, seed=37)
        whole, row = a[:], a[1]
        a.requires_grad_()
        return (raised(lambda: a.add_(1), "a leaf Variable that requires grad"),
                raised(lambda: whole.mul_(2), LEAF_VIEW), raised(lambda: row.zero_(), LEAF_VIEW),
                a._version)

    both(program)


def test_write_through_a_view_of_a_leaf_requiring_grad_fails_at_once():
    def program(lib):
        w = numbers(lib, 3, seed=38, grad=True)
        alias = w.view_as(w)
        narrowed = numbers(lib, 8, seed=39, grad=True).narrow(0, 0, 8)
        return raised(lambda: alias.sub_(1), LEAF_VIEW), raised(narrowed.relu_, LEAF_VIEW)

    both(program)


# --- version counters ------------------------------------------------------------------------


def test_version_counter_is_shared_by_views_and_kept_by_setting_data():
    def program(lib):
        x = numbers(lib, 2, 2, seed=40)
        seen = [x._version]
        x.mul_(2).add_(1)
        seen.append(x._version)
        part = x[:, 1]
        part.add_(1)
        seen += [x._version, part._version]
        x.data = numbers(lib, 3, seed=41)
        seen.append(x._version)
        x.sub_(1)
        seen += [x._version, part._version]
        part.div_(2)
        seen += [x._version, part._version]
        return seen, x, part

    both(program)


def test_increment_version_on_any_dtype_and_on_inference_tensors():
    def program(lib):
        f = numbers(lib, 3, seed=42, grad=True)
        i = lib.arange(4)
        lib.autograd.graph.increment_version(f)
        lib.autograd.graph.increment_version(i)
        lib.autograd.graph.increment_version(i)
        with lib.inference_mode():
            inside = lib.ones(2, requires_grad=True)
            lib.autograd.graph.increment_version(inside)
        lib.autograd.graph.increment_version(inside)  # an inference tensor: no counter, no error
        return f._version, i._version, raised(lambda: inside._version, "version counter")

    both(program)


def test_resize_bumps_the_version_only_when_the_size_changes():
    def program(lib):
        x = lib.zeros(2, dtype=lib.float64)
        other = lib.zeros(2, 3, dtype=lib.float64)
        seen = []
        for step in (lambda: x.resize_(3, 2), lambda: x.resize_as_(other), lambda: x.resize_(2, 3),
                     lambda: x.resize_as_(other), lambda: x.resize_(6)):
            step()
            seen.append((tuple(x.shape), x._version))
        return seen

    both(program)


def test_setting_data_keeps_the_python_object_and_checks_the_dtype():
    def program(lib):
        w = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        ident = id(w)
        w.data = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64)
        refused = raised(lambda: setattr(w, "data", lib.tensor([1, 2])),
                         "must be floating point or complex dtype")
        return id(w) == ident, w, w.requires_grad, refused

    both(program)


# --- CopySlices: writes through views reach the base, and the base's other views -----------------


def test_write_into_a_row_reaches_the_base():
    def program(lib):
        root = numbers(lib, 3, 2, seed=49, grad=True)
        x = root.clone()
        x.narrow(0, 1, 1).mul_(-4)
        x.sum().backward()
        return x.grad_fn.name(), root.grad

    both(program)


def test_another_view_of_the_same_rows_sees_the_write():
    def program(lib):
        root = numbers(lib, 3, 2, seed=50, grad=True)
        x = root.clone()
        writer = x.narrow(0, 2, 1)
        reader = x[2:]
        writer.mul_(5)
        reader.sum().backward()
        return reader.grad_fn.name(), root.grad

    both(program)


def test_write_into_a_view_of_a_view():
    def program(lib):
        root = numbers(lib, 3, 4, seed=51, grad=True)
        x = root.clone()
        inner = x.narrow(1, 1, 3).narrow(0, 0, 2)[:, 1]
        inner.mul_(3)
        (x * x).sum().backward()
        return x.grad_fn.name(), inner.grad_fn.name(), root.grad

    both(program)


def test_write_into_a_view_of_a_non_contiguous_leaf():
    def program(lib):
        root = lib.ones(3, 2, 4, dtype=lib.float64).select(1, 0).t().requires_grad_(True)
        x = root.clone()
        x.narrow(0, 1, 2).narrow(1, 2, 1).mul_(7)
        x.sum().backward()
        return root.is_contiguous(), root.grad

    both(program)


def test_write_through_a_view_of_a_constant_makes_the_base_require_grad():
    def program(lib):
        a = numbers(lib, 2, 3, seed=52)
        scale = numbers(lib, 2, 1, seed=53, grad=True)
        written = a.narrow(1, 1, 1).mul_(scale)
        flags = (a.requires_grad, a.is_leaf, a.grad_fn.name(), written.grad_fn.name())
        written.sum().backward()
        return flags, scale.grad

    both(program)


def test_write_into_a_base_makes_its_earlier_views_require_grad():
    def program(lib):
        r = numbers(lib, 1, seed=54, grad=True)
        x = lib.zeros(4, dtype=lib.float64)
        second = x.select(0, 2)
        before = (second.requires_grad, second.grad_fn is None)
        x.add_(r)
        after = (second.requires_grad, second.grad_fn.name())
        (second * 3).backward()
        return before, after, r.grad

    both(program)


def test_views_of_a_written_base_pass_gradcheck_and_gradgradcheck():
    def program(lib):
        def writes(root, k):
            x = root.clone()
            x.narrow(0, 0, 2).narrow(1, 1, 2).mul_(k)
            x.narrow(0, 2, 2).narrow(1, 0, 2).div_(k)
            return x

        def from_zero(k):
            x = lib.zeros(3, 3, dtype=lib.float64)
            row = x.select(0, 1)
            x[:, 1:].add_(k)
            return row * row

        def into_constant(k):
            x = numbers(lib, 4, 3, seed=58).clone()
            x.narrow(0, 1, 2).narrow(1, 0, 2).mul_(k)
            return x

        root = numbers(lib, 4, 3, seed=55, grad=True)
        k = (numbers(lib, 2, 2, seed=56) + 3).requires_grad_()
        k2 = numbers(lib, 3, 2, seed=57, grad=True)
        check = lib.autograd
        return (check.gradcheck(writes, (root, k)), check.gradgradcheck(writes, (root, k)),
                check.gradcheck(from_zero, (k2,)), check.gradgradcheck(from_zero, (k2,)),
                check.gradcheck(into_constant, (k,)), check.gradgradcheck(into_constant, (k,)))

    both(program)


def test_grad_fn_of_a_written_view_asked_for_under_no_grad():
    def program(lib):
        a = numbers(lib, 4, 1, seed=58, grad=True)
        b = a * 2
        c = b.view_as(b)
        c[1][0] = 6.0
        with lib.no_grad():
            name = c.grad_fn.name()
        c.sum().backward()
        return name, c.grad_fn.name(), a.grad

    both(program)


def test_view_written_in_place_then_its_base_discarded():
    def program(lib):
        a = lib.arange(6.0, dtype=lib.float64).requires_grad_()
        b = a.narrow(0, 1, 3).clone().view(-1)
        b.sub_(2).relu_()
        c = b.clone()
        del b
        gc.collect()
        total = c.sum()
        total.backward()
        return total, a.grad, c.grad_fn.name()

    both(program)


def test_write_into_a_view_of_a_constant_backprops_through_the_result():
    def program(lib):
        a = lib.tensor([1.5, -4.0, 2.0], dtype=lib.float64)
        k = lib.tensor([0.5], dtype=lib.float64, requires_grad=True)
        written = a.narrow(0, 1, 1).mul_(k)
        written.sum().backward()
        return k.grad, a.is_leaf, a

    both(program)


# --- printing and var_mean ------------------------------------------------------------------------


def test_printed_grad_fn_of_leaves_clones_and_views_written_under_no_grad():
    def program(lib):
        a = lib.ones(2, requires_grad=True)
        seen = [repr(a), repr(a.clone())]
        with lib.no_grad():
            view = a[1:]
            view *= 3
        seen.append(repr(view))
        return seen

    both(program)


def test_var_mean_matches_var_and_mean_and_their_gradients():
    def program(lib):
        x = numbers(lib, 2, 3, 4, 5, seed=59, grad=True)
        y = numbers(lib, 2, 3, 4, 5, seed=59, grad=True)
        var, mean = lib.var_mean(x, dim=[1, 3], keepdim=False)
        var2, mean2 = y.var(dim=[1, 3]), y.mean(dim=[1, 3])
        weight = numbers(lib, 2, 4, seed=60)
        (var * mean * mean).backward(weight)
        (var2 * mean2 * mean2).backward(weight)
        agree = [bool(lib.allclose(p, q, rtol=1e-12, atol=0))
                 for p, q in ((var, var2), (mean, mean2), (x.grad, y.grad))]
        # (the reductions may sum in another order than PyTorch's: equal to 12 digits)
        digits = [[round(v, 12) for v in t.flatten().tolist()] for t in (var, mean, x.grad)]
        return var.grad_fn.name(), mean.grad_fn.name(), agree, digits

    both(program)
