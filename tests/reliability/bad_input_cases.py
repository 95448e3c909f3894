"""The bad-input battery: one row per hostile call (see ``test_bad_input.py``).

Each case is ``Case(name, setup, call, family, fragments, torch)``:

``setup``
    Python source run with ``lib`` bound to ``jitgrad`` (and, when compared, to ``torch``),
    ``np`` to NumPy and ``jk`` to ``jitgrad.kernels``; it binds the tensors the call uses.
``call``
    One expression that must raise. Everything ``setup`` bound is snapshotted before it
    (values, sizes, strides, offset, ``_version``, ``requires_grad``, ``.grad``) and must be
    unchanged after it: an operation that raises has written nothing.
``family``
    The built-in exception family jitgrad must raise (``IndexError``, ``ValueError``,
    ``TypeError`` or ``RuntimeError``; subclasses count, other exceptions do not).
``fragments``
    Substrings the message must contain: the operation's name and the offending values.
``torch``
    ``"same"``: run the same code on PyTorch; if PyTorch raises, its family must match.
    ``None``: not comparable (jitgrad-only API, or PyTorch goes ahead on purpose, e.g. it only
    warns about writes into read-only NumPy memory). A family name: PyTorch raises that
    family and jitgrad deliberately raises ``family`` instead (the reason is in a comment).
"""
from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    name: str
    setup: str
    call: str
    family: str
    fragments: tuple[str, ...]
    torch: str | None = "same"


X6 = "x = lib.arange(6.0)"
X23 = "x = lib.arange(6.0).reshape(2, 3).clone()"
I23 = "x = lib.tensor([[1, 2, 3], [4, 5, 6]])"
READ_ONLY = "a = np.arange(6.0).reshape(2, 3); a.flags.writeable = False; x = lib.from_numpy(a)"
LEAF = "w = lib.ones(3, requires_grad=True); y = w * 2.0"
BUF = "d = np.zeros(40); s = np.ones(40)"

CASES: list[Case] = [
    # -- malformed geometry ------------------------------------------------------------------
    Case("view_negative_size", X6, "x.view(-2, 3)", "RuntimeError", ("view", "-2")),
    Case("view_two_inferred", X6, "x.view(-1, -1)", "RuntimeError", ("view", "-1")),
    Case("view_wrong_numel", X6, "x.view(4, 2)", "RuntimeError", ("view", "[4, 2]", "6")),
    Case("view_incompatible_strides", X23, "x.t().view(6)", "RuntimeError", ("view",)),
    Case("reshape_negative_size", X6, "x.reshape(-3, 2)", "RuntimeError", ("reshape", "-3")),
    Case("reshape_wrong_numel", X6, "x.reshape(5)", "RuntimeError", ("reshape", "[5]", "6")),
    Case("as_strided_negative_size", X6, "x.as_strided((-1,), (1,))", "RuntimeError",
         ("as_strided", "-1")),
    Case("as_strided_negative_stride", X6, "x.as_strided((2,), (-1,), 3)", "RuntimeError",
         ("as_strided", "-1")),
    Case("as_strided_past_end", X6, "x.as_strided((3,), (3,))", "RuntimeError",
         ("as_strided", "[3]", "6")),
    Case("as_strided_2_40_elements", X6, "x.as_strided((2**40,), (1,))", "RuntimeError",
         ("as_strided", str(2**40))),
    Case("as_strided_2_40_squared", X6, "x.as_strided((2**40, 2**40), (0, 0))", "RuntimeError",
         ("as_strided", str(2**40))),
    # PyTorch fails earlier, parsing the argument (TypeError: overflow unpacking long long).
    Case("as_strided_2_70_size", X6, "x.as_strided((2**70,), (0,))", "RuntimeError",
         ("as_strided", str(2**70)), "TypeError"),
    Case("expand_numel_overflow", X6 + "; y = x[:1]", "y.expand(2**40, 2**40)", "RuntimeError",
         ("expand", str(2**40))),
    Case("expand_numel_overflow_2d", X6 + "; y = x[:1]", "y.expand(2**62, 2)", "RuntimeError",
         ("expand", str(2**62))),
    Case("as_strided_huge_stride", X6, "x.as_strided((2, 2), (2**62, 1))", "RuntimeError",
         ("as_strided", str(2**62))),
    Case("as_strided_offset_past_end", X6, "x.as_strided((2,), (1,), 10)", "RuntimeError",
         ("as_strided", "10")),
    Case("as_strided_negative_offset", X6, "x.as_strided((2,), (1,), -1)", "RuntimeError",
         ("as_strided", "-1")),
    Case("as_strided_rank_mismatch", X6, "x.as_strided((2, 3), (1,))", "RuntimeError",
         ("as_strided", "2", "1")),
    Case("as_strided_float_size", X6, "x.as_strided((2.5,), (1,))", "TypeError",
         ("as_strided", "float")),
    Case("as_strided_of_view_past_end", X6 + "; v = x[2:]", "v.as_strided((5,), (1,), 2)",
         "RuntimeError", ("as_strided", "6")),
    Case("expand_negative_size", X6 + "; y = x[:1]", "y.expand(-2)", "RuntimeError",
         ("expand", "-2")),
    Case("expand_non_singleton", X23, "x.expand(4, 3)", "RuntimeError", ("expand", "4", "2")),
    Case("expand_fewer_dims", X23, "x.expand(3)", "RuntimeError", ("expand", "(1)", "(2)")),
    Case("narrow_past_end", X6, "x.narrow(0, 4, 5)", "RuntimeError", ("narrow", "4", "5")),
    Case("narrow_negative_length", X6, "x.narrow(0, 1, -1)", "RuntimeError", ("narrow", "-1")),
    Case("unfold_size_too_big", X6, "x.unfold(0, 7, 1)", "RuntimeError", ("unfold", "7", "6")),
    Case("unfold_step_zero", X6, "x.unfold(0, 2, 0)", "RuntimeError", ("unfold", "0")),
    Case("diagonal_same_dims", X23, "x.diagonal(0, 1, 1)", "RuntimeError", ("diagonal", "1")),
    Case("split_size_zero", X6, "x.split(0)", "RuntimeError", ("split", "0")),
    Case("chunk_zero", X6, "x.chunk(0)", "RuntimeError", ("chunk", "0")),
    Case("zeros_negative", "", "lib.zeros(2, -1)", "RuntimeError", ("zeros", "-1")),
    Case("full_negative", "", "lib.full((-3,), 1.0)", "RuntimeError", ("full", "-3")),
    # -- invalid dims -------------------------------------------------------------------------
    Case("sum_dim_out_of_range", X23, "x.sum(5)", "IndexError", ("sum", "5")),
    Case("select_dim_out_of_range", X23, "x.select(2, 0)", "IndexError", ("select", "2")),
    Case("select_index_out_of_range", X23, "x.select(0, 7)", "IndexError", ("select", "7")),
    Case("transpose_dim_out_of_range", X23, "x.transpose(0, -3)", "IndexError",
         ("transpose", "-3")),
    Case("permute_repeated_dim", X23, "x.permute(0, 0)", "RuntimeError", ("permute", "0")),
    Case("permute_wrong_count", X23, "x.permute(0,)", "RuntimeError", ("permute",)),
    Case("unsqueeze_dim_out_of_range", X23, "x.unsqueeze(4)", "IndexError", ("unsqueeze", "4")),
    Case("squeeze_dim_out_of_range", X23, "x.squeeze(3)", "IndexError", ("squeeze", "3")),
    Case("movedim_out_of_range", X23, "x.movedim(0, 5)", "IndexError", ("movedim", "5")),
    Case("unbind_dim_out_of_range", X23, "x.unbind(2)", "IndexError", ("unbind", "2")),
    Case("softmax_dim_out_of_range", X23, "x.softmax(2)", "IndexError", ("softmax", "2")),
    Case("cat_dim_out_of_range", X23, "lib.cat([x, x], 3)", "IndexError", ("cat", "3")),
    # -- invalid indices -----------------------------------------------------------------------
    Case("getitem_int_out_of_range", X23, "x[5]", "IndexError", ("5", "size 2")),
    Case("getitem_negative_out_of_range", X23, "x[:, -4]", "IndexError", ("-4", "size 3")),
    Case("getitem_too_many", X23, "x[0, 0, 0]", "IndexError", ("too many indices",)),
    Case("getitem_float", X23, "x[1.5]", "IndexError", ("float",)),
    Case("getitem_string", X23, "x['a']", "TypeError", ("str",)),
    Case("getitem_step_zero", X23, "x[::0]", "ValueError", ("step",)),
    Case("getitem_negative_step", X23, "x[::-1]", "ValueError", ("step", "greater than zero")),
    Case("getitem_tensor_out_of_range", X23 + "; i = lib.tensor([0, 9])", "x[i]", "IndexError",
         ("9", "size 2")),
    Case("getitem_list_out_of_range", X23, "x[[0, -3]]", "IndexError", ("-3", "size 2")),
    Case("getitem_bool_mask_mismatch", X23 + "; m = lib.tensor([True, False, True])", "x[m]",
         "IndexError", ("[3]", "[2")),
    Case("getitem_float_tensor_index", X23 + "; i = lib.tensor([0.0])", "x[i]", "IndexError",
         ("float",)),
    # -- shape mismatches in writes ------------------------------------------------------------
    Case("copy_shape_mismatch", X23 + "; s = lib.ones(4)", "x.copy_(s)", "RuntimeError",
         ("copy_", "[4]", "[2, 3]")),
    Case("copy_needs_resize", X23 + "; s = lib.ones(3, 2, 3)", "x.copy_(s)", "RuntimeError",
         ("copy_", "[3, 2, 3]", "[2, 3]")),
    Case("copy_into_view_mismatch", X23 + "; v = x[0]; s = lib.ones(2)", "v.copy_(s)",
         "RuntimeError", ("copy_", "[2]", "[3]")),
    Case("setitem_shape_mismatch", X23 + "; s = lib.ones(4)", "x.__setitem__(0, s)",
         "RuntimeError", ("__setitem__", "[4]", "[3]")),
    Case("setitem_out_of_range", X23, "x.__setitem__(7, 1.0)", "IndexError", ("7", "size 2")),
    Case("setitem_advanced_out_of_range", X23 + "; i = lib.tensor([0, 5])",
         "x.__setitem__(i, 1.0)", "IndexError", ("5", "size 2")),
    Case("setitem_advanced_shape_mismatch", X23 + "; i = lib.tensor([0, 1]); s = lib.ones(3, 3)",
         "x.__setitem__(i, s)", "RuntimeError", ("[3, 3]", "[2, 3]")),
    Case("index_put_out_of_range", X23 + "; i = lib.tensor([3]); s = lib.ones(3)",
         "x.index_put_((i,), s)", "IndexError", ("3", "size 2")),
    Case("index_put_values_mismatch", X23 + "; i = lib.tensor([0]); s = lib.ones(4)",
         "x.index_put_((i,), s)", "RuntimeError", ("[4]",)),
    Case("add_needs_resize", X6 + "; s = lib.ones(2, 6)", "x.add_(s)", "RuntimeError",
         ("add_", "[6]", "[2, 6]")),
    Case("mul_needs_resize", X23 + "; s = lib.ones(3, 1, 1)", "x.mul_(s)", "RuntimeError",
         ("mul_", "[2, 3]", "[3, 2, 3]")),
    Case("sub_shape_mismatch", X23 + "; s = lib.ones(4)", "x.sub_(s)", "RuntimeError",
         ("sub_", "[4]")),
    Case("div_needs_resize_view", X23 + "; v = x[0]; s = lib.ones(2, 3)", "v.div_(s)",
         "RuntimeError", ("div_", "[3]", "[2, 3]")),
    Case("fill_non_scalar_tensor", X23 + "; s = lib.ones(2)", "x.fill_(s)", "RuntimeError",
         ("fill_", "1 dimension")),
    # -- wrong types ---------------------------------------------------------------------------
    Case("tensor_from_string", "", "lib.tensor('abc')", "TypeError", ("tensor", "str")),
    Case("tensor_from_bytes", "", "lib.tensor(b'abc')", "TypeError", ("tensor", "bytes")),
    Case("tensor_from_object_array", "", "lib.tensor(np.array([object()]))", "TypeError",
         ("tensor", "object")),
    Case("tensor_from_ragged", "", "lib.tensor([[1.0], [2.0, 3.0]])", "ValueError",
         ("tensor", "ragged")),
    Case("tensor_from_mixed_str", "", "lib.tensor([1.0, 'a'])", "TypeError", ("tensor", "str")),
    # (PyTorch's RuntimeError: no dtype to infer from None or a dict)
    Case("tensor_from_none", "", "lib.tensor(None)", "RuntimeError", ("tensor", "NoneType")),
    Case("tensor_from_dict", "", "lib.tensor({'a': 1})", "RuntimeError", ("tensor", "dict")),
    Case("zeros_string_size", "", "lib.zeros('a')", "TypeError", ("zeros", "str")),
    Case("zeros_none_size", "", "lib.zeros(None)", "TypeError", ("zeros", "None")),
    Case("zeros_float_size", "", "lib.zeros(2.5)", "TypeError", ("zeros", "float")),
    Case("from_numpy_list", "", "lib.from_numpy([1.0, 2.0])", "TypeError", ("from_numpy", "list")),
    Case("from_numpy_object", "", "lib.from_numpy(np.array([None, 1]))", "TypeError",
         ("from_numpy", "object")),
    Case("add_string", X23, "x + 'a'", "TypeError", ("add", "str")),
    Case("add_none", X23, "x.add_(None)", "TypeError", ("add_", "None")),
    Case("mul_inplace_string", X23, "x.mul_('a')", "TypeError", ("mul_", "str")),
    Case("fill_string", X23, "x.fill_('a')", "TypeError", ("fill_", "str")),
    Case("fill_none", X23, "x.fill_(None)", "TypeError", ("fill_", "None")),
    Case("copy_from_list", X23, "x.copy_([1.0, 2.0, 3.0])", "TypeError", ("copy_", "list")),
    Case("copy_from_none", X23, "x.copy_(None)", "TypeError", ("copy_", "None")),
    Case("setitem_string_value", X23, "x.__setitem__(0, 'a')", "TypeError", ("str",)),
    Case("setitem_none_value", X23, "x.__setitem__(0, None)", "TypeError", ("None",)),
    Case("view_string_size", X6, "x.view('a')", "TypeError", ("view", "str")),
    Case("expand_none", X6, "x.expand(None)", "TypeError", ("expand", "None")),
    Case("narrow_float_start", X6, "x.narrow(0, 1.5, 2)", "TypeError", ("narrow", "float")),
    # -- requires_grad on non-float ------------------------------------------------------------
    Case("requires_grad_int_tensor", "", "lib.tensor([1, 2], requires_grad=True)",
         "RuntimeError", ("require gradients", "int64")),
    Case("requires_grad_bool_tensor", "x = lib.tensor([True, False])", "x.requires_grad_()",
         "RuntimeError", ("require gradients", "bool")),
    Case("requires_grad_zeros_int", "", "lib.zeros(3, dtype=lib.int64, requires_grad=True)",
         "RuntimeError", ("require gradients", "int64")),
    Case("requires_grad_off_non_leaf", LEAF, "y.requires_grad_(False)", "RuntimeError",
         ("requires_grad", "leaf")),
    # -- integer in-place ops with float results -----------------------------------------------
    Case("int_div_", I23, "x.div_(2)", "RuntimeError", ("div_", "int64")),
    Case("int_mul_float_scalar", I23, "x.mul_(1.5)", "RuntimeError", ("mul_", "int64")),
    Case("int_add_float_tensor", I23 + "; s = lib.ones(3)", "x.add_(s)", "RuntimeError",
         ("add_", "int64")),
    Case("int_sub_float_scalar", I23, "x.sub_(0.5)", "RuntimeError", ("sub_", "int64")),
    Case("int_exp_", I23, "x.exp_()", "RuntimeError", ("exp_", "int64")),
    Case("int_sqrt_", I23, "x.sqrt_()", "RuntimeError", ("sqrt_", "int64")),
    Case("int_sigmoid_", I23, "x.sigmoid_()", "RuntimeError", ("sigmoid_", "int64")),
    Case("int_pow_half", I23, "x.pow_(0.5)", "RuntimeError", ("pow_", "int64")),
    Case("int_view_div_", I23 + "; v = x[:, 1:]", "v.div_(3)", "RuntimeError", ("div_", "int64")),
    Case("bool_add_int", "x = lib.tensor([True, False])", "x.add_(1)", "RuntimeError",
         ("add_", "bool")),
    # -- read-only NumPy memory (PyTorch only warns and writes) -------------------------------
    Case("readonly_fill_", READ_ONLY, "x.fill_(1.0)", "RuntimeError", ("fill_", "read-only"), None),
    Case("readonly_zero_", READ_ONLY, "x.zero_()", "RuntimeError", ("zero_", "read-only"), None),
    Case("readonly_copy_", READ_ONLY + "; s = lib.ones(2, 3, dtype=lib.float64)", "x.copy_(s)",
         "RuntimeError", ("copy_", "read-only"), None),
    Case("readonly_setitem", READ_ONLY, "x.__setitem__(0, 5.0)", "RuntimeError",
         ("__setitem__", "read-only"), None),
    Case("readonly_add_", READ_ONLY, "x.add_(1.0)", "RuntimeError", ("add_", "read-only"), None),
    Case("readonly_view_mul_", READ_ONLY + "; v = x.t()[1:]", "v.mul_(2.0)", "RuntimeError",
         ("mul_", "read-only"), None),
    Case("readonly_as_strided_copy_", READ_ONLY + "; v = x.as_strided((2,), (2,), 1)",
         "v.copy_(lib.ones(2, dtype=lib.float64))", "RuntimeError", ("copy_", "read-only"), None),
    Case("readonly_index_put_", READ_ONLY + "; i = lib.tensor([1])",
         "x.index_put_((i,), lib.ones(3, dtype=lib.float64))", "RuntimeError",
         ("index_put_", "read-only"), None),
    Case("readonly_exp_", READ_ONLY, "x.exp_()", "RuntimeError", ("exp_", "read-only"), None),
    # -- autograd misuse -----------------------------------------------------------------------
    Case("inplace_on_leaf_requiring_grad", "w = lib.ones(3, requires_grad=True)", "w.add_(1.0)",
         "RuntimeError", ("leaf", "requires grad")),
    Case("backward_non_scalar", LEAF, "y.backward()", "RuntimeError", ("grad can be implicitly",)),
    Case("backward_grad_shape_mismatch", LEAF, "y.backward(lib.ones(4))", "RuntimeError",
         ("[4]", "[3]")),
    Case("backward_twice", LEAF + "; z = (w * w).sum(); z.backward()", "z.backward()",
         "RuntimeError", ("second time",)),
    Case("backward_after_version_bump",
         "w = lib.ones(3, requires_grad=True); y = w * 1.0; z = (y * y).sum(); y.add_(1.0)",
         "z.backward()", "RuntimeError", ("modified by an inplace operation", "version")),
    Case("backward_no_grad_fn", "x = lib.ones(3)", "x.sum().backward()", "RuntimeError",
         ("does not require grad",)),
    # -- kernels called directly (no PyTorch counterpart) -------------------------------------
    Case("kernel_copy_past_end", BUF, "jk.strided_copy(d, 1, (10, 1), s, 0, (10, 1), (4, 10))",
         "IndexError", ("strided_copy", "40"), None),
    Case("kernel_copy_2_40", BUF, "jk.strided_copy(d, 0, (1,), s, 0, (1,), (2**40,))",
         "IndexError", ("strided_copy", str(2**40)), None),
    Case("kernel_copy_stride0_2_62", BUF, "jk.strided_copy(d, 0, (0, 0), s, 0, (0, 0), (2**31, 2**31))",
         "ValueError", ("strided_copy", "2**62"), None),
    Case("kernel_add_negative_stride", BUF, "jk.strided_add(d, 39, (-1,), s, 0, (1,), (40,))",
         "ValueError", ("strided_add", "-1"), None),
    Case("kernel_add_internal_overlap", BUF, "jk.strided_add(d, 0, (1, 1), s, 0, (2, 1), (4, 2))",
         "ValueError", ("strided_add", "internal overlap"), None),
    Case("kernel_scatter_block_shape", BUF + "; b = np.ones((3, 3))",
         "jk.scatter(d, 0, (10, 1), (4, 10), b)", "ValueError", ("scatter", "(3, 3)"), None),
    Case("kernel_fill_offset_past_end", BUF, "jk.fill(d, 40, (1,), (1,), 1.0)", "IndexError",
         ("fill", "40"), None),
    Case("kernel_fill_readonly", BUF + "; d.flags.writeable = False",
         "jk.fill(d, 0, (1,), (40,), 1.0)", "ValueError", ("fill", "read-only"), None),
    Case("kernel_fill_int_overflow", "d = np.zeros(4, np.int64)", "jk.fill(d, 0, (1,), (4,), 2**70)",
         "ValueError", ("fill", str(2**70)), None),
    Case("kernel_copy_strides_as_floats", BUF,
         "jk.strided_copy(d, 0, (1.0,), s, 0, (1,), (40,))", "TypeError", ("strided_copy", "1.0"),
         None),
    Case("kernel_overlap_bad_geometry", "", "jk.has_internal_overlap((2, -1), (1, 1))",
         "ValueError", ("-1",), None),
]
