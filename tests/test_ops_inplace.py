"""In-place elementwise ops (``add_``, ``mul_``, ``exp_``, ... and ``+=``, ``*=``, ...) against
PyTorch: values, gradients and second derivatives through in-place ops on non-leaf tensors,
the result-type rule (a result that cannot be cast raises and changes nothing), the version
counter (bumped exactly once), the leaf check, saved tensors invalidated by an in-place op,
and the broadcast and memory-overlap refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from grad_oracle import check, check_error

TOL = 1e-12
RNG = np.random.default_rng(11)
A34 = RNG.standard_normal((3, 4))
B34 = RNG.standard_normal((3, 4))
A4 = RNG.standard_normal(4)
A31 = RNG.standard_normal((3, 1))
A0 = np.array(0.6)
P34 = np.abs(A34) + 0.2
P4 = np.abs(A4) + 0.3
KINKS = np.array([-2.0, -0.5, 0.0, 0.0, 0.5, 2.0])
E03 = np.zeros((0, 3))
F32 = RNG.standard_normal(5).astype(np.float32)


def _inplace(op):
    """A program: ``y = x * 1`` (a non-leaf), then ``op(y, *others)``, returning ``y`` (and
    checking that the op returned ``y`` itself)."""
    def program(L, x, *others):
        y = x * 1
        out = op(L, y, *others)
        assert out is y
        return y
    return program


def _iadd(L, y, b):
    y += b
    return y


def _isub(L, y, b):
    y -= 2 * b
    return y


def _imul(L, y, b):
    y *= b
    return y


def _idiv(L, y, b):
    y /= b
    return y


def _ipow(L, y):
    y **= 3
    return y


def _ipow_tensor(L, y, b):
    y **= b
    return y


CASES = {
    "add_": (lambda L, y, b: y.add_(b), A34, B34),
    "add_bcast": (lambda L, y, b: y.add_(b), A34, A4),
    "add_alpha": (lambda L, y, b: y.add_(b, alpha=-0.5), A34, A31),
    "add_scalar": (lambda L, y: y.add_(2.5), A34),
    "add_0d_other": (lambda L, y, b: y.add_(b), A34, A0),
    "add_into_0d": (lambda L, y, b: y.add_(b), A0, np.array(1.25)),
    "add_empty": (lambda L, y, b: y.add_(b), E03, A0),
    "iadd": (_iadd, A34, A4),
    "sub_": (lambda L, y, b: y.sub_(b), A34, B34),
    "sub_alpha": (lambda L, y, b: y.sub_(b, alpha=3), A34, A4),
    "isub": (_isub, A34, A31),
    "mul_": (lambda L, y, b: y.mul_(b), A34, B34),
    "mul_bcast": (lambda L, y, b: y.mul_(b), A34, A31),
    "mul_scalar": (lambda L, y: y.mul_(-1.5), A34),
    "imul": (_imul, A34, A0),
    "div_": (lambda L, y, b: y.div_(b), A34, P34),
    "div_scalar": (lambda L, y: y.div_(4), A34),
    "idiv": (_idiv, A34, P4),
    "pow_": (lambda L, y: y.pow_(2), A34),
    "pow_frac": (lambda L, y: y.pow_(1.5), P34),
    "pow_tensor": (lambda L, y, b: y.pow_(b), P34, B34),
    "pow_tensor_bcast": (lambda L, y, b: y.pow_(b), P34, A4),
    "ipow": (_ipow, A34),
    "ipow_tensor": (_ipow_tensor, P34, A0),
    "neg_": (lambda L, y: y.neg_(), A34),
    "exp_": (lambda L, y: y.exp_(), A34),
    "log_": (lambda L, y: y.log_(), P34),
    "sqrt_": (lambda L, y: y.sqrt_(), P34),
    "sin_": (lambda L, y: y.sin_(), A34),
    "cos_": (lambda L, y: y.cos_(), A34),
    "tanh_": (lambda L, y: y.tanh_(), A34),
    "sigmoid_": (lambda L, y: y.sigmoid_(), A34),
    "relu_": (lambda L, y: y.relu_(), KINKS),
    "abs_": (lambda L, y: y.abs_(), A34),
    "clamp_": (lambda L, y: y.clamp_(-0.5, 0.5), KINKS),
    "clamp_min": (lambda L, y: y.clamp_(min=0.0), KINKS),
    "clamp_tensors": (lambda L, y, lo: y.clamp_(lo, lo + 1), A34, A31),
    "clamp_tensor_max": (lambda L, y, hi: y.clamp_(max=hi), A34, A4),
    # chains, and ops on results of in-place ops
    # (an op whose backward saves its result must come last: a later write would invalidate it)
    "chain": (lambda L, y, b: y.mul_(b).add_(y.detach()).mul_(b).tanh_(), A34, B34),
    "chain_unary": (lambda L, y: y.sin_().abs_().log_().neg_().clamp_(0.1, 2).sqrt_(), A34),
    "chain_mixed": (lambda L, y, b: y.pow_(2).div_(b).clamp_(-1, 1).sub_(b, alpha=0.5).exp_(), A34, P34),
    "float32": (lambda L, y: y.mul_(3).sub_(1).exp_(), F32),
}

# PyTorch's second derivative of abs is a ZeroTensor (no data); checked to first order
FIRST_ORDER_ONLY = {"abs_", "chain_unary"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    op, *arrays = CASES[name]
    rtol = 2e-5 if any(a.dtype == np.float32 for a in arrays) else TOL
    check(_inplace(op), *arrays, rtol=rtol, double=name not in FIRST_ORDER_ONLY)


SHAPES_0D_EMPTY = {
    "exp_": lambda L, y: y.exp_(), "log_": lambda L, y: y.log_(), "sqrt_": lambda L, y: y.sqrt_(),
    "sin_": lambda L, y: y.sin_(), "cos_": lambda L, y: y.cos_(), "tanh_": lambda L, y: y.tanh_(),
    "sigmoid_": lambda L, y: y.sigmoid_(), "relu_": lambda L, y: y.relu_(), "neg_": lambda L, y: y.neg_(),
    "pow_2": lambda L, y: y.pow_(2), "pow_rsqrt": lambda L, y: y.pow_(-0.5), "pow_cube": lambda L, y: y.pow_(3),
    "pow_0": lambda L, y: y.pow_(0), "clamp_": lambda L, y: y.clamp_(0.2, 0.5), "mul_": lambda L, y: y.mul_(y.detach().clone()),
}


@pytest.mark.parametrize("data", [np.array(0.7), np.zeros((2, 0))], ids=["0d", "empty"])
@pytest.mark.parametrize("name", sorted(SHAPES_0D_EMPTY))
def test_inplace_on_0d_and_empty_tensors(name, data):
    check(_inplace(SHAPES_0D_EMPTY[name]), data, rtol=TOL)


@st.composite
def self_and_other_shapes(draw):
    """A shape for ``self`` and one that broadcasts to it (possibly fewer dims, 0-d)."""
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))
    other = [1 if draw(st.booleans()) else s for s in shape]
    return shape, tuple(other[draw(st.integers(0, len(other))):])


RANDOM_INPLACE = {
    "add_": lambda L, y, b: y.add_(b, alpha=0.5), "sub_": lambda L, y, b: y.sub_(b),
    "mul_": lambda L, y, b: y.mul_(b), "div_": lambda L, y, b: y.div_(b.abs() + 0.5),
    "pow_": lambda L, y, b: y.abs_().pow_(b), "clamp_": lambda L, y, b: y.clamp_(b - 0.3, b + 0.3),
    "iadd_mul_": lambda L, y, b: _imul(L, _iadd(L, y, b), b),
}


@settings(max_examples=budget(100), derandomize=True)
@given(self_and_other_shapes(), st.sampled_from(sorted(RANDOM_INPLACE)), st.integers(0, 2**32 - 1))
def test_random_broadcasting_inplace_matches_pytorch(shapes, name, seed):
    rng = np.random.default_rng(seed)
    y, b = (rng.standard_normal(s) + 0.1 for s in shapes)
    check(_inplace(RANDOM_INPLACE[name]), y, b, rtol=TOL, seed=seed)


def _plain_then(op):
    """``y`` does not require grad; ``op`` writes a grad-requiring operand into it."""
    def program(L, w, x):
        y = L.zeros(w.shape, dtype=w.dtype) + 1.5
        op(y, w, x)
        return y
    return program


@pytest.mark.parametrize("op", [
    lambda y, w, x: y.mul_(w),
    lambda y, w, x: y.div_(w),
    lambda y, w, x: y.add_(w, alpha=2).mul_(x),
    lambda y, w, x: y.pow_(w),
    lambda y, w, x: y.clamp_(w, x),
], ids=["mul_", "div_", "add_mul_", "pow_", "clamp_"])
def test_writing_a_tensor_that_requires_grad_into_one_that_does_not(op):
    ours, theirs = check(_plain_then(op), P34, P34 + 1, rtol=TOL)
    assert ours.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.parametrize("op", sorted(set(CASES) - {"chain", "chain_unary", "chain_mixed", "float32"}))
def test_version_bumps_once_and_node_matches_pytorch(op):
    program, *arrays = CASES[op]
    seen = []
    for lib in (jitgrad, torch):
        inputs = [lib.from_numpy(a.copy()) for a in arrays]
        y = inputs[0].requires_grad_() * 1
        version = y._version
        out = program(lib, y, *inputs[1:])
        seen.append((out is y, y._version - version, y.grad_fn.name(), y.is_leaf))
    assert seen[0] == seen[1]
    assert seen[0][:2] == (True, 1)


# -- the result-type rule, for every dtype pair ------------------------------------------------
DTYPES = ["float32", "float64", "int64", "bool"]
VALUES = {"float32": [1.5, -2.25], "float64": [0.1, -3.7], "int64": [3, -2], "bool": [True, False]}
SCALARS = {"float": 2.5, "int": 3, "bool": True}
OTHERS = [("tensor", d) for d in DTYPES] + [("0d", d) for d in DTYPES] + [("scalar", s) for s in SCALARS]
BINARY_INPLACE = {
    "add_": lambda y, o: y.add_(o), "sub_": lambda y, o: y.sub_(o), "mul_": lambda y, o: y.mul_(o),
    "div_": lambda y, o: y.div_(o), "pow_": lambda y, o: y.pow_(o),
    "iadd": lambda y, o: y.__iadd__(o), "imul": lambda y, o: y.__imul__(o),
    "clamp_": lambda y, o: y.clamp_(o, None) if not isinstance(o, bool) else y.clamp_(min=o),
}
UNARY_INPLACE = ["exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_", "abs_", "neg_"]


def _operand(lib, kind, dtype):
    if kind == "scalar":
        return SCALARS[dtype]
    data = VALUES[dtype] if kind == "tensor" else VALUES[dtype][0]
    return lib.tensor(data, dtype=getattr(lib, dtype))


def _outcome(fn):
    try:
        return fn(), None
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        return None, exc


def _assert_same_inplace(program, describe):
    """Run ``program(lib)`` -> (self, thunk) on both libraries; both raise (same family, and
    jitgrad's self keeps its data and version) or both write the same values."""
    ours_self, ours_fn = program(jitgrad)
    theirs_self, theirs_fn = program(torch)
    before, version = ours_self.detach().numpy().copy(), ours_self._version
    _, ours_err = _outcome(ours_fn)
    _, theirs_err = _outcome(theirs_fn)
    if theirs_err is not None or ours_err is not None:
        assert ours_err is not None, f"{describe}: PyTorch raised {theirs_err!r}, jitgrad did not"
        assert theirs_err is not None, f"{describe}: jitgrad raised {ours_err!r}, PyTorch did not"
        assert type(ours_err).__mro__[-3] is type(theirs_err).__mro__[-3] or isinstance(
            ours_err, type(theirs_err).__mro__[-3]), (describe, ours_err, theirs_err)
        np.testing.assert_array_equal(ours_self.detach().numpy(), before, err_msg=describe)
        assert ours_self._version == version, describe
        return
    assert ours_self.dtype.name == str(theirs_self.dtype).replace("torch.", ""), describe
    rtol = {np.float32: 1e-6, np.float64: 1e-15}.get(ours_self.dtype.type, 0)  # exp/log/tanh: an ulp
    np.testing.assert_allclose(ours_self.detach().numpy(), theirs_self.detach().numpy(), rtol=rtol, err_msg=describe)
    assert ours_self._version == version + 1, describe


@pytest.mark.parametrize("op", sorted(BINARY_INPLACE))
def test_inplace_result_type_rule_matches_pytorch(op):
    """PyTorch's rule: the promoted result type must cast to self's dtype (no float into an
    integer tensor, nothing but bool into a bool tensor); a refused write changes nothing."""
    fn = BINARY_INPLACE[op]
    for self_dtype, (kind, dtype) in itertools.product(DTYPES, OTHERS):
        def program(lib, self_dtype=self_dtype, kind=kind, dtype=dtype):
            y = lib.tensor(VALUES[self_dtype], dtype=getattr(lib, self_dtype))
            other = _operand(lib, kind, dtype)
            return y, lambda: fn(y, other)
        _assert_same_inplace(program, f"{self_dtype}.{op}({kind} {dtype})")


@pytest.mark.parametrize("op", UNARY_INPLACE)
def test_unary_inplace_result_types_match_pytorch(op):
    for dtype in DTYPES:
        def program(lib, dtype=dtype):
            y = lib.tensor(VALUES[dtype], dtype=getattr(lib, dtype))
            return y, lambda: getattr(y, op)()
        _assert_same_inplace(program, f"{dtype}.{op}()")


def test_refused_cast_message_names_op_and_types():
    y = jitgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match=r"mul_: result type float32 can't be cast to the desired output type int64"):
        y.mul_(1.5)
    assert y.tolist() == [1, 2] and y._version == 0


# -- autograd's refusals and the version counter ------------------------------------------------
@pytest.mark.parametrize("op", ["add_", "mul_", "exp_", "clamp_", "pow_", "neg_", "iadd"])
def test_leaf_that_requires_grad_is_refused(op):
    call = {
        "add_": lambda x: x.add_(1), "mul_": lambda x: x.mul_(2), "exp_": lambda x: x.exp_(),
        "clamp_": lambda x: x.clamp_(0, 1), "pow_": lambda x: x.pow_(2), "neg_": lambda x: x.neg_(),
        "iadd": lambda x: x.__iadd__(1),
    }[op]
    err = check_error(lambda L, x: call(x), A34)
    assert "a leaf Variable that requires grad is being used in an in-place operation" in str(err)


def test_leaf_may_be_written_under_no_grad():
    for lib in (jitgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            x.mul_(3).add_(1)
        assert x.tolist() == [4.0, 7.0] and x.is_leaf and x.grad_fn is None and x._version == 2


def test_inplace_under_no_grad_keeps_the_old_history():
    def program(L, x):
        y = x * 2
        with L.no_grad():
            y.mul_(3)
        return y
    check(program, A34, rtol=TOL)


SAVED = {
    # (program, the in-place op the message must name)
    "exp_result": (lambda L, x: _modify_then_backward(L, x, lambda y: y.exp(), lambda z, y: z.add_(1)), "add_"),
    "sin_input": (lambda L, x: _modify_then_backward(L, x, lambda y: y.sin(), lambda z, y: y.mul_(2)), "mul_"),
    "mul_other": (lambda L, x: _modify_then_backward(L, x, lambda y: y * x, lambda z, y: y.div_(3)), "div_"),
    "exp_then_exp_": (lambda L, x: _modify_then_backward(L, x, lambda y: y.exp(), lambda z, y: z.exp_()), "exp_"),
    "tanh_then_sigmoid_": (lambda L, x: _modify_then_backward(L, x, lambda y: y.tanh_(), lambda z, y: y.sigmoid_()), "sigmoid_"),
    "pow_then_sub_": (lambda L, x: _modify_then_backward(L, x, lambda y: y ** 3, lambda z, y: y.sub_(1)), "sub_"),
    "mul_self": (lambda L, x: _modify_then_backward(L, x, lambda y: y, lambda z, y: y.mul_(y)), "mul_"),
    "mul_detached_self": (lambda L, x: _modify_then_backward(L, x, lambda y: y, lambda z, y: y.mul_(y.detach())), "mul_"),
    "div_self": (lambda L, x: _modify_then_backward(L, x, lambda y: y, lambda z, y: y.div_(y)), "div_"),
    "pow_self": (lambda L, x: _modify_then_backward(L, x, lambda y: y, lambda z, y: y.pow_(y)), "pow_"),
    "clamp_bound": (lambda L, x: _modify_then_backward(L, x, lambda y: x.clamp(y, y + 1), lambda z, y: y.relu_()), "relu_"),
    "maximum": (lambda L, x: _modify_then_backward(L, x, lambda y: L.maximum(y, x), lambda z, y: y.abs_()), "abs_"),
}


def _modify_then_backward(L, x, forward, modify):
    y = x * 1
    z = forward(y)
    modify(z, y)
    z.sum().backward()


@pytest.mark.parametrize("name", sorted(SAVED))
def test_saved_tensor_modified_in_place_is_refused_in_backward(name):
    program, op = SAVED[name]
    errors = []
    for lib in (jitgrad, torch):
        x = lib.tensor(P4, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            program(lib, x)
        errors.append(str(info.value))
        assert x.grad is None
    ours = errors[0]
    assert "one of the variables needed for gradient computation has been modified by an inplace operation" in ours
    assert f"The last in-place write to its memory was {op} at" in ours and __file__ in ours


def test_add_self_in_place_needs_nothing_saved():
    def program(L, x):
        y = x * 1
        y.add_(y)
        return y
    check(program, A34, rtol=TOL)


# -- broadcasting and memory overlap ------------------------------------------------------------
REFUSED = {
    "other_grows_self": lambda L, x: x.clone().add_(L.ones(2, 3, 4, dtype=L.float64)),
    "other_grows_self_dim": lambda L, x: x.clone()[:1].mul_(x.detach()),
    "clamp_bound_grows_self": lambda L, x: x.clone()[0].clamp_(x.detach()),
    "pow_exponent_grows_self": lambda L, x: x.clone()[:, :1].pow_(x.detach()),
    "partial_overlap_rows": lambda L, x: _partial(L, x, lambda v: v[1:].add_(v[:2])),
    "partial_overlap_transpose": lambda L, x: _partial(L, x, lambda v: v.view(4, 3).mul_(v.t())),
    "partial_overlap_bcast_row": lambda L, x: _partial(L, x, lambda v: v.sub_(v[0])),
    "partial_overlap_div": lambda L, x: _partial(L, x, lambda v: v[:2].div_(v[1:])),
    "expanded_self": lambda L, x: x.clone()[:1].expand(3, 4).add_(1),
    "expanded_self_unary": lambda L, x: x.clone()[:, :1].expand(3, 4).exp_(),
    "leaf_view": lambda L, x: x[0].mul_(2),
}


def _partial(L, x, write):
    v = x.detach().clone()
    return write(v)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_writes_match_pytorch(name):
    check_error(REFUSED[name], A34)


ALLOWED = {
    "same_tensor": lambda L, v: v.mul_(v),
    "same_elements_other_view": lambda L, v: v.add_(v.view(3, 4)),
    "disjoint_halves": lambda L, v: v[:1].mul_(v[2:]),
    "interleaved_not_dense": lambda L, v: v[:, ::2].add_(v[:, 1::2]),  # PyTorch: "too hard", allowed
    "overlap_not_dense": lambda L, v: v[:, :2].sub_(v[:, 1:3]),
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_allowed_aliasing_writes_match_pytorch(name):
    """Operands on self's memory that PyTorch accepts compute as if out of place (for the
    "too hard" layouts PyTorch's result may depend on its loop order; these cases do not)."""
    def program(L, x):
        v = x.detach().clone()
        ALLOWED[name](L, v)
        return v
    check(program, A34, rtol=TOL)


def test_aliasing_write_pytorch_finds_too_hard_computes_out_of_place():
    """``v[:, :3] *= v[:, :3].t()``: PyTorch does not check layouts that are not dense and
    its result depends on its loop order; jitgrad computes the product first, then writes."""
    data = np.arange(12.0).reshape(3, 4)
    v = jitgrad.tensor(data)
    v[:, :3].mul_(v[:, :3].t())
    expected = data.copy()
    expected[:, :3] = data[:, :3] * data[:, :3].T
    np.testing.assert_array_equal(v.detach().numpy(), expected)


def test_an_operand_read_after_pytorch_writes_it_is_read_first_here():
    """Deliberate difference (README): ``w[:, 1:].add_(w[:, :-1])`` on a 4x5 table. PyTorch
    checks overlap only between dense layouts; here its loop reads each column after
    writing it (a running sum along the rows) while its backward is the out-of-place
    formula's. jitgrad reads the operand first, as out of place, and its gradient is the
    gradient of those values (central differences)."""
    data = np.sin(np.arange(20.0).reshape(4, 5) * 0.37)
    t = torch.tensor(data)
    t[:, 1:].add_(t[:, :-1])
    np.testing.assert_allclose(t.numpy()[:, 1:], np.cumsum(data, axis=1)[:, 1:])  # PyTorch's order

    def program(x):
        w = x.clone()
        w[:, 1:].add_(w[:, :-1])
        return w.sin()

    x = jitgrad.tensor(data, requires_grad=True)
    expected = data.copy()
    expected[:, 1:] = data[:, 1:] + data[:, :-1]
    np.testing.assert_array_equal(program(x).detach().numpy(), np.sin(expected))
    assert jitgrad.autograd.gradcheck(program, (x,))


@pytest.mark.parametrize("op", ["iand", "ior", "ixor", "and_", "or_", "xor_"])
def test_bitwise_inplace_matches_pytorch(op):
    fn = {"iand": lambda y, o: y.__iand__(o), "ior": lambda y, o: y.__ior__(o),
          "ixor": lambda y, o: y.__ixor__(o), "and_": lambda y, o: y.bitwise_and_(o),
          "or_": lambda y, o: y.bitwise_or_(o), "xor_": lambda y, o: y.bitwise_xor_(o)}[op]
    for self_dtype, (kind, dtype) in itertools.product(DTYPES, OTHERS):
        def program(lib, self_dtype=self_dtype, kind=kind, dtype=dtype):
            y = lib.tensor(VALUES[self_dtype], dtype=getattr(lib, self_dtype))
            other = _operand(lib, kind, dtype)
            return y, lambda: fn(y, other)
        _assert_same_inplace(program, f"{self_dtype}.{op}({kind} {dtype})")


def test_augmented_bitwise_assignment_is_in_place():
    m = jitgrad.tensor([True, False, True])
    alias = m
    m &= jitgrad.tensor([True, True, False])
    m |= jitgrad.tensor([False, True, False])
    m ^= True
    assert m is alias and m._version == 3 and m.tolist() == [False, False, True]


def test_augmented_assignment_is_in_place():
    x = jitgrad.tensor([1.0, 2.0])
    y = x
    y += 1
    y -= 0.5
    y *= 2
    y /= 3
    y **= 2
    assert y is x and x._version == 5
    np.testing.assert_allclose(x.detach().numpy(), ((np.array([1.0, 2.0]) + 0.5) * 2 / 3) ** 2)
    i = jitgrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i /= 2
    assert i.tolist() == [1, 2] and i._version == 0
