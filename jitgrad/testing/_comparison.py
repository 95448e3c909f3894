"""``assert_close``: compare (nested) tensors and numbers the way ``torch.testing.assert_close``
does, with its default tolerances per dtype and its ``AssertionError`` messages.

Two passes, as in PyTorch: first the inputs are walked (sequences by position, mappings by
key) and every leaf pair is checked to be comparable; a structural problem (lengths, keys,
types, tolerances) raises at once and ignores ``msg``. Then the leaf pairs are compared in
order and the first mismatch raises, with ``msg`` replacing (a string) or rewriting (a
callable) the generated message.
"""

from __future__ import annotations

import cmath
import collections.abc
from typing import Any, Callable

import numpy as np

from .. import dtypes
from ..creation import as_tensor
from ..ops.closeness import isclose
from ..ops.promotion import promote_types
from ..tensor import Tensor

Msg = str | Callable[[str], str] | None

# (rtol, atol) by dtype; a dtype not listed is compared exactly
TOLERANCES: dict[np.dtype, tuple[float, float]] = {
    dtypes.float16: (1e-3, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
}
# a Python number is compared with the tolerances of the dtype PyTorch gives it
_NUMBER_DTYPES: dict[type, np.dtype] = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.float64}


class Failure(Exception):
    """A failed check: the exception type and message to raise, and where in the nested input
    (keys and positions) it happened."""

    def __init__(self, kind: type[Exception], message: str, where: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where

    def to_error(self, msg: Msg = None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(str([key]) for key in self.where)
        return self.kind(msg(text) if callable(msg) else text)


def _tolerances(kinds: tuple[np.dtype, ...], rtol: float | None, atol: float | None,
                where: tuple[Any, ...]) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise Failure(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.", where)
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [TOLERANCES.get(kind, (0.0, 0.0)) for kind in kinds]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


def _difference_lines(kind: str, diff: Any, index: tuple[int, ...] | None, tol: float, exact: bool) -> str:
    line = f"{kind.title()} difference: {diff}" if index is None else f"Greatest {kind} difference: {diff} at index {index}"
    return line if exact else f"{line} (up to {tol} allowed)"


def mismatch_message(what: str, extra: str, abs_diff: Any, abs_at: tuple[int, ...] | None,
                     rel_diff: Any, rel_at: tuple[int, ...] | None, rtol: float, atol: float) -> str:
    """PyTorch's message for values that are not close: header, ``extra``, the greatest
    absolute and relative differences (with the allowed tolerances unless both are zero)."""
    exact = rtol == 0 and atol == 0
    return "\n".join([
        f"{what} are not {'equal' if exact else 'close'}!", "", extra,
        _difference_lines("absolute", abs_diff, abs_at, atol, exact),
        _difference_lines("relative", rel_diff, rel_at, rtol, exact),
    ])


def scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None,
                            rel_diff, None, rtol, atol)


def tensor_message(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, rtol: float, atol: float) -> str:
    """Counts the mismatches and finds the greatest differences among them (in the compared
    dtype; integers and bools as int64, their relative difference in the default float dtype)."""
    total = matches.size
    wrong = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    a, e, ok = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[ok] = 0
        if abs_diff.dtype.kind == "i":  # integer / integer divides in the default float dtype
            rel_diff = abs_diff.astype(dtypes.DEFAULT_FLOAT) / np.abs(e).astype(dtypes.DEFAULT_FLOAT)
        else:
            rel_diff = abs_diff / np.abs(e)
        rel_diff[ok] = 0
    abs_at, rel_at = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))  # argmax: the first NaN, else the first greatest
    return mismatch_message("Tensor-likes", extra, abs_diff[abs_at].item(), _unravel(abs_at, matches.shape),
                            rel_diff[rel_at].item(), _unravel(rel_at, matches.shape), rtol, atol)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape))


class NumberPair:
    """Two Python (or NumPy scalar) numbers; bools are compared by identity."""

    def __init__(self, actual: Any, expected: Any, where: tuple[Any, ...], rtol: float | None,
                 atol: float | None, equal_nan: bool, check_dtype: bool) -> None:
        self.actual, self.expected, self.where = actual, expected, where
        self.rtol, self.atol = _tolerances(tuple(_NUMBER_DTYPES[type(x)] for x in (actual, expected)), rtol, atol, where)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            raise Failure(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", self.where)
        if a == e or (self.equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        raise Failure(AssertionError, scalar_message(a, e, self.rtol, self.atol), self.where)


class TensorPair:
    """Two tensors (or two objects of related types that ``as_tensor`` accepts, e.g. NumPy arrays)."""

    def __init__(self, actual: Tensor, expected: Tensor, where: tuple[Any, ...], rtol: float | None,
                 atol: float | None, equal_nan: bool, check_dtype: bool, check_stride: bool) -> None:
        self.actual, self.expected, self.where = actual, expected, where
        self.rtol, self.atol = _tolerances((actual.dtype, expected.dtype), rtol, atol, where)
        self.equal_nan, self.check_dtype, self.check_stride = equal_nan, check_dtype, check_stride

    def _attribute(self, name: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            raise Failure(AssertionError, f"The values for attribute '{name}' do not match: {ours} != {theirs}.", self.where)

    def compare(self) -> None:
        a, e = self.actual.detach(), self.expected.detach()
        self._attribute("shape", a.shape, e.shape)
        if self.check_stride:
            self._attribute("stride()", a.stride(), e.stride())
        if self.check_dtype:
            self._attribute("dtype", _dtype_name(a.dtype), _dtype_name(e.dtype))
        if a.dtype != e.dtype:
            common = promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        matches = isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan).numpy()
        if matches.all():
            return
        if a.dim() == 0:
            message = scalar_message(a.item(), e.item(), self.rtol, self.atol)
        else:
            message = tensor_message(a.numpy(), e.numpy(), matches, self.rtol, self.atol)
        raise Failure(AssertionError, message, self.where)


class NonePair:
    def __init__(self, actual: Any, expected: Any, where: tuple[Any, ...]) -> None:
        self.actual, self.expected, self.where = actual, expected, where

    def compare(self) -> None:
        if self.actual is not None or self.expected is not None:
            raise Failure(AssertionError, f"None mismatch: {self.actual} is not {self.expected}", self.where)


class BoolPair(NonePair):
    def compare(self) -> None:
        if self.actual is not self.expected:
            raise Failure(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}", self.where)


def _dtype_name(dtype: np.dtype) -> str:
    return f"jitgrad.{dtypes.bool_.name if dtype == dtypes.bool_ else dtype.name}"


def _number(x: Any) -> Any:
    return x.item() if isinstance(x, np.number) else x


def _tensor_like(x: Any) -> Tensor | None:
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except Exception:  # noqa: BLE001 - anything as_tensor refuses is simply not a tensor-like
        return None


def _leaf(actual: Any, expected: Any, where: tuple[Any, ...], allow_subclasses: bool, **options: Any) -> Any:
    """The pair comparing two leaves (the first kind that accepts both), or TypeError."""
    if actual is None or expected is None:
        return NonePair(actual, expected, where)
    if all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        return BoolPair(bool(actual), bool(expected), where)
    if all(isinstance(x, (int, float, complex, np.number)) and not isinstance(x, bool) for x in (actual, expected)):
        return NumberPair(_number(actual), _number(expected), where, options["rtol"], options["atol"],
                          options["equal_nan"], options["check_dtype"])
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if related and (allow_subclasses or type(actual) is type(expected)):
        a, e = _tensor_like(actual), _tensor_like(expected)
        if a is not None and e is not None:
            return TensorPair(a, e, where, **options)
    raise Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.", where)


def leaf_pairs(actual: Any, expected: Any, where: tuple[Any, ...] = (), **options: Any) -> list[Any]:
    """Every leaf pair of two nested inputs, in comparison order (mapping keys sorted when
    they can be); a structural mismatch raises ``Failure`` at once."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where)
        return [pair for i in range(len(actual)) for pair in leaf_pairs(actual[i], expected[i], (*where, i), **options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ours, theirs = set(actual.keys()), set(expected.keys())
        if ours != theirs:
            raise Failure(AssertionError, "The keys of the mappings do not match:\n"
                          f"Missing keys in the actual mapping: {sorted(theirs - ours)}\n"
                          f"Additional keys in the actual mapping: {sorted(ours - theirs)}", where)
        try:
            keys = sorted(ours)
        except TypeError:
            keys = list(ours)
        return [pair for k in keys for pair in leaf_pairs(actual[k], expected[k], (*where, k), **options)]
    return [_leaf(actual, expected, where, **options)]


def _is_sequence(x: Any) -> bool:
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def assert_close(
    actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
    atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
    check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False, msg: Msg = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close: tensors of one
    shape (and dtype, unless ``check_dtype=False``) with ``|actual - expected| <= atol + rtol *
    |expected|`` elementwise, or numbers, or sequences/mappings of them. Omitted tolerances
    are the loosest of the dtypes' defaults (float16 1e-3/1e-5, float32 1.3e-6/1e-5, float64
    1e-7/1e-7, exact otherwise). ``check_device`` and ``check_layout`` are accepted (jitgrad
    has one device and one layout)."""
    __tracebackhide__ = True
    del check_device, check_layout
    try:
        pairs = leaf_pairs(actual, expected, allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                           equal_nan=equal_nan, check_dtype=check_dtype, check_stride=check_stride)
    except Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except Failure as failure:
            raise failure.to_error(msg) from None
