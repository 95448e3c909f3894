"""Hostile arguments: every public buffer kernel raises a named, typed error and leaves
its buffers untouched, before any jitted code runs."""
from __future__ import annotations

import numpy as np
import pytest

from jitgrad.kernels import fill, scatter, strided_add, strided_copy

KERNELS = ["strided_copy", "strided_add", "scatter", "fill"]


def call(kernel, dst, dst_offset, dst_strides, sizes, src, src_offset, src_strides):
    if kernel == "strided_copy":
        strided_copy(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)
    elif kernel == "strided_add":
        strided_add(dst, dst_offset, dst_strides, src, src_offset, src_strides, sizes)
    elif kernel == "scatter":
        try:
            block = src[:40].reshape(sizes)
        except (TypeError, ValueError, AttributeError):
            block = src
        scatter(dst, dst_offset, dst_strides, sizes, block, accumulate=True)
    else:
        fill(dst, dst_offset, dst_strides, sizes, 3.0)


def valid():
    return dict(dst=np.zeros(40), dst_offset=0, dst_strides=(10, 1), sizes=(4, 10),
                src=np.ones(40), src_offset=0, src_strides=(10, 1))


ro = np.zeros(40)
ro.flags.writeable = False

DST_CASES = [  # (overrides, exception, message fragment)
    (dict(sizes=(-1, 10)), ValueError, "sizes must be >= 0"),
    (dict(dst_strides=(10, -1)), ValueError, "strides must be >= 0"),
    (dict(dst_offset=-1), ValueError, "offset must be >= 0"),
    (dict(dst_offset=1), IndexError, "reaches element 40 but the buffer has 40 elements"),
    (dict(sizes=(4, 2**40)), IndexError, "reaches element"),
    (dict(sizes=(4, 2**70)), IndexError, "reaches element"),
    (dict(dst_strides=(10, 1, 1)), ValueError, "3 strides"),
    (dict(dst_strides=(10.0, 1)), TypeError, "must be an integer"),
    (dict(sizes=(True, 10)), TypeError, "must be an integer"),
    (dict(dst_offset=None), TypeError, "dst_offset must be an integer"),
    (dict(dst_offset=0.0), TypeError, "dst_offset must be an integer"),
    (dict(sizes="ab"), TypeError, "sequence of integers"),
    (dict(sizes=4), TypeError, "sequence of integers"),
    (dict(dst=np.zeros((4, 10))), ValueError, "must be 1-D"),
    (dict(dst=np.zeros(80)[::2]), ValueError, "C-contiguous"),
    (dict(dst=np.zeros(40, np.int32)), TypeError, "dtype must be one of"),
    (dict(dst=np.zeros(40, object)), TypeError, "dtype must be one of"),
    (dict(dst=[0.0] * 40), TypeError, "must be a numpy.ndarray"),
    (dict(dst=ro), ValueError, "read-only"),
]

SRC_CASES = [
    (dict(src_strides=(10, -1)), ValueError, "strides must be >= 0"),
    (dict(src_offset=-2), ValueError, "offset must be >= 0"),
    (dict(src_offset=1), IndexError, "source geometry reaches element 40"),
    (dict(src_strides=(2**62, 1)), IndexError, "source geometry reaches element"),
    (dict(src_strides=(1,)), ValueError, "1 strides"),
    (dict(src_offset=np.float64(0)), TypeError, "src_offset must be an integer"),
    (dict(src=np.ones((40, 1))), ValueError, "must be 1-D"),
    (dict(src=np.ones(40, np.int32)), TypeError, "dtype must be one of"),
    (dict(src=np.ones(80)[::2]), ValueError, "C-contiguous"),
]


def _check(kernel, overrides, exc, fragment):
    args = valid()
    args.update(overrides)
    buffers = [a for a in (args["dst"], args["src"]) if isinstance(a, np.ndarray)]
    before = [b.copy() for b in buffers]
    with pytest.raises(exc) as info:
        call(kernel, **args)
    assert str(info.value).startswith(kernel + ":"), str(info.value)
    assert fragment in str(info.value), str(info.value)
    for b, old in zip(buffers, before):
        np.testing.assert_array_equal(b, old)


@pytest.mark.parametrize("kernel", KERNELS)
def test_empty_geometry_past_the_end_touches_nothing(kernel):
    """PyTorch's slicing can leave an empty view's offset past the end (``x[1:, 1]`` of a
    (1, 2) tensor has offset 3): an empty geometry is valid wherever it starts."""
    args = valid()
    args.update(sizes=(0, 10), dst_offset=41, src=np.ones(0), src_offset=57)
    before = args["dst"].copy()
    call(kernel, **args)
    np.testing.assert_array_equal(args["dst"], before)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("overrides,exc,fragment", DST_CASES)
def test_hostile_destination(kernel, overrides, exc, fragment):
    _check(kernel, overrides, exc, fragment)


@pytest.mark.parametrize("kernel", ["strided_copy", "strided_add"])
@pytest.mark.parametrize("overrides,exc,fragment", SRC_CASES)
def test_hostile_source(kernel, overrides, exc, fragment):
    _check(kernel, overrides, exc, fragment)


def test_numpy_integers_are_accepted_and_empty_touches_nothing():
    dst = np.zeros(40)
    strided_copy(dst, np.int64(0), (np.int32(10), 1), np.ones(40), 0, (10, 1),
                 [np.uint8(4), 10])
    assert dst.all()
    dst = np.zeros(3)
    strided_copy(dst, 3, (1, 2**70), np.ones(1), 1, (5, 5), (0, 2**70))  # empty: no-op
    fill(dst, 3, (1,), (0,), 1.0)
    assert not dst.any()


def test_fill_rejects_bad_values():
    dst = np.zeros(3, np.int64)
    with pytest.raises(ValueError, match="fill: cannot convert value nan to int64"):
        fill(dst, 0, (1,), (3,), float("nan"))
    with pytest.raises(TypeError, match="fill: value must be a real scalar"):
        fill(dst, 0, (1,), (3,), "1")
    assert not dst.any()
