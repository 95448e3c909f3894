"""jitgrad._formatting against PyTorch 2.13's tensor repr, which is the oracle here."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import budget
from jitgrad._formatting import format_tensor, get_printoptions, printoptions, set_printoptions

F32, F64, I64, BOOL = torch.float32, torch.float64, torch.int64, torch.bool
DEFAULT_DTYPES = (F32, I64, BOOL)


@pytest.fixture(autouse=True)
def _reset_printoptions() -> Iterator[None]:
    yield
    torch.set_printoptions(profile="default", sci_mode=None)
    set_printoptions(profile="default", sci_mode=None)


def both_printoptions(**kwargs: object) -> None:
    torch.set_printoptions(**kwargs)  # type: ignore[arg-type]
    set_printoptions(**kwargs)  # type: ignore[arg-type]


def torch_suffixes(t: torch.Tensor) -> list[str]:
    if t.grad_fn is not None:
        return [f"grad_fn=<{type(t.grad_fn).__name__}>"]
    return ["requires_grad=True"] if t.requires_grad else []


def ours(t: torch.Tensor, prefix: str = "tensor(") -> str:
    return format_tensor(
        t.detach().numpy(),
        default_dtype=t.dtype in DEFAULT_DTYPES,
        dtype_name=str(t.dtype).removeprefix("torch."),
        suffixes=torch_suffixes(t),
        prefix=prefix,
    )


def torch_repr_with_jitgrad_names(t: torch.Tensor) -> str:
    """torch's repr, with "jitgrad." put into the dtype suffix *before* torch lays it out.

    "jitgrad." is two characters longer than "torch.", so replacing the word in torch's
    finished repr can leave a line at 81-82 columns where torch (with its own, shorter
    name) would have kept it within linewidth. We apply torch's suffix-wrapping rule to
    the text we actually print; see test_suffix_wrap_measures_jitgrad_names.
    """
    original = torch._tensor_str._add_suffixes

    def renamed(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
        suffixes = [s.replace("torch.", "jitgrad.") for s in suffixes]
        return original(tensor_str, suffixes, indent, force_newline)

    torch._tensor_str._add_suffixes = renamed
    try:
        return repr(t)
    finally:
        torch._tensor_str._add_suffixes = original


def expected(t: torch.Tensor) -> str:
    return torch_repr_with_jitgrad_names(t)


def assert_same(t: torch.Tensor) -> None:
    assert ours(t) == expected(t)


def seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, dtype: torch.dtype = F32, seed: int = 0, scale: float = 1.0) -> torch.Tensor:
    return (torch.randn(*shape, generator=seeded(seed), dtype=F64) * scale).to(dtype)


NAN, INF = math.nan, math.inf

# Values for 0-d and 1-d float cases; each runs as float32 and float64.
FLOAT_VALUES: list[object] = [
    3.0, -2.5, 0.0, -0.0, NAN, INF, -INF, 1e10, 1e-10, 123456.789, 0.1,
    [1.0, 2.0, 3.0], [1.5, -2.25], [0.1, 0.2, 0.3], [0.12345, 2.00005, -0.00015],
    [1e-5, 1.0], [1e9, 1.0], [1.0, 1001.0], [1.0, 1000.0], [0.5, 500.0], [0.5, 500.5],
    [1e8], [1.0000001e8], [1e-4], [9.9e-5], [1e20, 1.0], [123456789.0, 1.5],
    [NAN, INF, -INF], [1.0, NAN], [0.5, NAN, -INF], [-0.0, 0.0], [-0.0, 1.5], [-0.0, 1.0],
    [0.0, 0.0], [1e-30, 1.0], [3.0e38, -1.0], [-1e-5, 1e5], [100.0, -5.0, 12.0],
    [0.00005, 0.5], [-0.00004, 0.0004], [2.5e-3, 7.0], [1e-3, 0.99999], [99999.5, 0.5],
    [[1.0, NAN], [INF, -0.0]], [[1e12, 0.0], [-0.0, NAN]],
]  # fmt: skip
FLOAT64_ONLY: list[object] = [[1e300, 1e-300], [5e-324, 1.0], [1.7e308, -1.7e308], 1e-320]
INT_VALUES: list[object] = [
    5, -7, 0, [1, -100, 12345], [0], [2**62, -(2**62)], [-(2**63), 2**63 - 1], [[1, 2], [30, -4]],
]
BOOL_VALUES: list[object] = [True, False, [True, False], [[True], [False]], [False, False]]

VALUE_CASES = (
    [(v, d) for v in FLOAT_VALUES for d in (F32, F64)]
    + [(v, F64) for v in FLOAT64_ONLY]
    + [(v, I64) for v in INT_VALUES]
    + [(v, BOOL) for v in BOOL_VALUES]
)


@pytest.mark.parametrize(("value", "dtype"), VALUE_CASES, ids=[f"{v}-{d}" for v, d in VALUE_CASES])
def test_values_match_torch(value: object, dtype: torch.dtype) -> None:
    assert_same(torch.tensor(value, dtype=dtype))


SHAPE_CASES: dict[str, Callable[[torch.dtype], torch.Tensor]] = {
    # wide rows that wrap at linewidth 80
    "wrap_1d": lambda d: randn(50, dtype=d),
    "wrap_1d_sci": lambda d: randn(30, dtype=d, scale=1e6),
    "wrap_int_mode": lambda d: torch.arange(40, dtype=d),
    "wrap_2d": lambda d: randn(3, 30, dtype=d),
    "wrap_3d": lambda d: torch.arange(2 * 3 * 25, dtype=d).reshape(2, 3, 25) - 70,
    # nesting
    "2d": lambda d: randn(4, 3, dtype=d),
    "3d": lambda d: randn(2, 3, 4, dtype=d),
    "4d": lambda d: randn(2, 2, 2, 2, dtype=d),
    "4d_sci": lambda d: randn(2, 1, 3, 2, dtype=d, scale=1e-6),
    "singletons": lambda d: randn(1, 1, 1, dtype=d),
    "3d_nonfinite": lambda d: torch.tensor([[[1.0, NAN], [INF, 2.5]], [[-INF, 0.0], [-0.0, 3.0]]], dtype=d),
    # summarised (numel > 1000)
    "sum_1d": lambda d: torch.arange(1001, dtype=d),
    "sum_1d_randn": lambda d: randn(1001, dtype=d),
    "sum_2d": lambda d: randn(40, 40, dtype=d),
    "sum_rows_only": lambda d: randn(3, 1001, dtype=d),
    "sum_cols_only": lambda d: randn(1001, 2, dtype=d),
    "sum_3d": lambda d: randn(10, 10, 11, dtype=d),
    "sum_3d_arange": lambda d: torch.arange(2000, dtype=d).reshape(2, 10, 100),
    "sum_4d": lambda d: randn(7, 7, 7, 7, dtype=d),
    # the 1e-9 is not shown, so it must not switch the shown elements to sci mode
    "sum_hidden_outlier": lambda d: torch.ones(1001, dtype=d).index_fill(0, torch.tensor([500]), 1e-9),
    # empty
    "empty_1d": lambda d: torch.empty(0, dtype=d),
    "empty_2d": lambda d: torch.empty(0, 3, dtype=d),
    "empty_3d": lambda d: torch.empty(2, 0, 3, dtype=d),
    "empty_4d": lambda d: torch.empty(1, 2, 3, 0, dtype=d),
}  # fmt: skip


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("case", list(SHAPE_CASES))
def test_float_shapes_match_torch(case: str, dtype: torch.dtype) -> None:
    assert_same(SHAPE_CASES[case](dtype))


INT_BOOL_CASES: dict[str, Callable[[], torch.Tensor]] = {
    "int_wrap": lambda: torch.arange(100) * 37 - 1000,
    "int_3d": lambda: torch.arange(24).reshape(2, 3, 4) - 12,
    "int_4d": lambda: torch.arange(16).reshape(2, 2, 2, 2),
    "int_sum": lambda: torch.arange(2000).reshape(40, 50),
    "int_sum_3d": lambda: torch.arange(3000).reshape(10, 10, 30) * -3,
    "bool_3d": lambda: torch.arange(24).reshape(2, 3, 4) % 3 == 0,
    "bool_wrap": lambda: torch.arange(40) % 2 == 0,
    "bool_sum": lambda: torch.arange(1500).reshape(30, 50) % 7 == 0,
    "empty_int": lambda: torch.empty(0, dtype=I64),
    "empty_int_2d": lambda: torch.empty(0, 3, dtype=I64),
    "empty_bool": lambda: torch.empty(0, dtype=BOOL),
    "empty_bool_3d": lambda: torch.empty(3, 0, 2, dtype=BOOL),
}


@pytest.mark.parametrize("case", list(INT_BOOL_CASES))
def test_int_bool_shapes_match_torch(case: str) -> None:
    assert_same(INT_BOOL_CASES[case]())


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("n", range(1, 13))
def test_suffix_placement_matches_torch(n: int, dtype: torch.dtype) -> None:
    # Lengths around the 80-column limit decide whether the suffixes start a new line.
    leaf = randn(n, dtype=dtype, seed=n).requires_grad_()
    assert_same(leaf)
    assert_same(leaf * 2)
    assert_same(leaf.sum())
    assert_same(randn(n, 3, dtype=dtype, seed=n).requires_grad_() * 2)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_empty_requires_grad_matches_torch(dtype: torch.dtype) -> None:
    assert_same(torch.empty(0, dtype=dtype, requires_grad=True))
    assert_same(torch.empty(0, 4, dtype=dtype, requires_grad=True) * 3)


def test_suffix_wrap_measures_jitgrad_names() -> None:
    # Known difference from a plain "torch." -> "jitgrad." replace of torch's repr: the
    # suffixes wrap according to the length of what we print. Here torch's last line is
    # 79 columns; with the longer name it would be 81, so the grad_fn moves down a line.
    t = torch.tensor([[1.3227, 0.5338, 0.1234]], dtype=F64, requires_grad=True) * 1
    naive = repr(t).replace("torch.", "jitgrad.")
    assert naive == "tensor([[1.3227, 0.5338, 0.1234]], dtype=jitgrad.float64, grad_fn=<MulBackward0>)"
    assert ours(t) == (
        "tensor([[1.3227, 0.5338, 0.1234]], dtype=jitgrad.float64,\n"
        "       grad_fn=<MulBackward0>)"
    )
    assert ours(t) == expected(t)


def test_custom_suffixes_and_prefix() -> None:
    text = format_tensor(np.array([1.0, 2.0], np.float32), default_dtype=True, dtype_name="float32",
                         suffixes=["grad_fn=<MulBackward0>"], prefix="Parameter(")  # fmt: skip
    assert text == "Parameter([1., 2.], grad_fn=<MulBackward0>)"


class MyTensor(torch.Tensor):
    pass


@pytest.mark.parametrize("dtype", [F32, F64])
def test_prefix_sets_indent_like_torch_subclass(dtype: torch.dtype) -> None:
    # torch prints a subclass as "MyTensor(" and indents by that prefix's length.
    t = randn(3, 30, dtype=dtype).as_subclass(MyTensor)
    assert ours(t, prefix="MyTensor(") == expected(t)


OPTION_CASES: list[dict[str, object]] = [
    {"precision": 2}, {"precision": 6}, {"precision": 0}, {"sci_mode": True}, {"sci_mode": False},
    {"linewidth": 40}, {"linewidth": 200}, {"threshold": 5}, {"threshold": 5, "edgeitems": 1},
    {"edgeitems": 1}, {"edgeitems": 0}, {"threshold": 5, "edgeitems": 0}, {"profile": "short"},
    {"profile": "full"}, {"threshold": math.inf}, {"precision": 10, "linewidth": 60},
]  # fmt: skip
OPTION_TENSORS: dict[str, Callable[[], torch.Tensor]] = {
    "randn": lambda: randn(3, 4, 5),
    "randn64_big": lambda: randn(30, 40, dtype=F64),
    "big_values": lambda: randn(10, scale=1e9),
    "int_floats": lambda: torch.arange(12, dtype=F64).reshape(3, 4) * 1e7,
    "nonfinite": lambda: torch.tensor([1.0, NAN, -0.0, INF]),
    "ints": lambda: torch.arange(30).reshape(2, 15),
    "bools": lambda: torch.arange(1200) % 3 == 0,
    "scalar": lambda: torch.tensor(2.5),
    "sum_1d": lambda: torch.arange(1100.0),
}


@pytest.mark.parametrize("tensor", list(OPTION_TENSORS))
@pytest.mark.parametrize("options", OPTION_CASES, ids=[str(o) for o in OPTION_CASES])
def test_printoptions_match_torch(options: dict[str, object], tensor: str) -> None:
    both_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same(OPTION_TENSORS[tensor]())


def test_printoptions_context_manager_restores() -> None:
    before = get_printoptions()
    with printoptions(precision=1, sci_mode=True):
        assert format_tensor(np.array([1.25]), default_dtype=False, dtype_name="float64") == (
            "tensor([1.2e+00], dtype=jitgrad.float64)"
        )
    assert get_printoptions() == before


def test_sci_mode_is_reset_when_not_passed() -> None:
    # As in torch: every call overwrites sci_mode, the other options persist.
    set_printoptions(sci_mode=True, precision=3)
    set_printoptions(linewidth=70)
    assert get_printoptions() == dict(precision=3, threshold=1000, edgeitems=3, linewidth=70, sci_mode=None)


def test_rejects_unsupported_dtype() -> None:
    with pytest.raises(TypeError, match="complex"):
        format_tensor(np.zeros(2, np.complex64), default_dtype=True, dtype_name="complex64")
    with pytest.raises(ValueError, match="profile"):
        set_printoptions(profile="tiny")


# ---------------------------------------------------------------- Hypothesis

_NUMPY = {F32: np.float32, F64: np.float64, I64: np.int64, BOOL: np.bool_}


def float_values() -> st.SearchStrategy[float]:
    return st.one_of(
        st.integers(-(10**6), 10**6).map(float),  # integer-valued floats
        st.floats(-10, 10, allow_nan=False),
        st.floats(1e-30, 1e-5).flatmap(lambda x: st.sampled_from([x, -x])),  # tiny
        st.floats(1e7, 1e30).flatmap(lambda x: st.sampled_from([x, -x])),  # huge
        st.sampled_from([NAN, INF, -INF, 0.0, -0.0, 1e8, 1e-4, 1000.0, 0.5]),
        st.floats(allow_nan=True, allow_infinity=True),
    )


def palette(dtype: torch.dtype) -> st.SearchStrategy[list[object]]:
    values: st.SearchStrategy[object]
    if dtype == BOOL:
        values = st.booleans()
    elif dtype == I64:
        values = st.one_of(st.integers(-20, 20), st.integers(-(2**63), 2**63 - 1))
    else:
        values = float_values()
    return st.lists(values, min_size=1, max_size=6)


SHAPES = st.one_of(
    st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple),
    st.sampled_from([(1100,), (11, 100), (10, 11, 10), (2, 550)]),  # summarised
)


@st.composite
def tensors(draw: st.DrawFn, dtype: torch.dtype) -> torch.Tensor:
    shape = draw(SHAPES)
    pal = draw(palette(dtype))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    with np.errstate(over="ignore"):  # huge float64 -> float32 inf is fine: torch sees the same
        choices = np.array(pal, dtype=object if dtype == I64 else None).astype(_NUMPY[dtype])
    t = torch.from_numpy(np.asarray(choices[rng.integers(0, len(choices), size=shape)]))
    if dtype.is_floating_point and draw(st.booleans()):
        t.requires_grad_()
        if draw(st.booleans()):
            t = t * 1
    return t


@pytest.mark.parametrize("dtype", [F32, F64, I64, BOOL])
@settings(max_examples=budget(300), deadline=None)
@given(data=st.data())
def test_hypothesis_matches_torch(dtype: torch.dtype, data: st.DataObject) -> None:
    assert_same(data.draw(tensors(dtype)))


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 1, 10, 50, 1000, math.inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(10, 120),
        "sci_mode": st.sampled_from([True, False, None]),
    },
)


@pytest.mark.parametrize("dtype", [F32, F64, I64, BOOL])
@settings(max_examples=budget(150), deadline=None)
@given(data=st.data(), options=OPTIONS)
def test_hypothesis_printoptions_match_torch(dtype: torch.dtype, data: st.DataObject, options: dict) -> None:
    t = data.draw(tensors(dtype))
    both_printoptions(**options)
    try:
        assert_same(t)
    finally:  # the autouse fixture runs once per test, not once per example
        both_printoptions(profile="default", sci_mode=None)


# -- the dtypes added with issue 10: float16, int8, int16, int32, uint8 -----------------------
F16 = torch.float16
NEW_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32)


def _fits(value: object, dtype: torch.dtype) -> bool:
    info = torch.iinfo(dtype)
    flat = np.asarray(value).reshape(-1)
    return bool(np.all((flat >= info.min) & (flat <= info.max)))


NEW_DTYPE_CASES = [(v, F16) for v in FLOAT_VALUES] + [
    (v, d) for d in NEW_INT_DTYPES for v in [*INT_VALUES, [255, 0, 7], [-128, 127]] if _fits(v, d)
]


@pytest.mark.parametrize(("value", "dtype"), NEW_DTYPE_CASES, ids=[f"{v}-{d}" for v, d in NEW_DTYPE_CASES])
def test_new_dtype_values_match_torch(value: object, dtype: torch.dtype) -> None:
    assert_same(torch.tensor(value, dtype=dtype))


@pytest.mark.parametrize("dtype", [F16, *NEW_INT_DTYPES])
def test_new_dtype_shapes_and_empty_match_torch(dtype: torch.dtype) -> None:
    big = (torch.arange(2000) % 100).to(dtype)  # summarised
    for t in (big, big.reshape(40, 50), torch.zeros(0, 3, dtype=dtype), torch.ones(3, 4, dtype=dtype)):
        assert_same(t)
    assert_same(randn(30, dtype=F16, scale=50.0))


def test_jitgrad_reprs_of_new_dtypes_match_torch() -> None:
    import jitgrad

    for name in ("float16", "uint8", "int8", "int16", "int32"):
        data = [[1.5, -2.0], [3.25, 0.0]] if name == "float16" else [[1, 2], [3, 4]]
        ours_t = jitgrad.tensor(data, dtype=getattr(jitgrad, name))
        theirs = torch.tensor(data, dtype=getattr(torch, name))
        assert repr(ours_t) == torch_repr_with_jitgrad_names(theirs)
