"""The partitioned parallel kernels (``*_par``) against the naive reference and against the
serial kernels, bit for bit, plus the rules deciding when they run (size threshold, float
dtypes only, destinations without internal overlap, never in a forked child)."""
from __future__ import annotations

import os

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from conftest import budget
from jitgrad.kernels import _parallel, strided, strided_add, strided_copy
from jitgrad.kernels._accumulate_jit import _add_strided, _add_strided_par
from jitgrad.kernels._copy_jit import _copy_strided, _copy_strided_par
from jitgrad.kernels._layout import coalesce, order_for_transpose
from kernel_strategies import any_strides, buffer_for, nonoverlapping_strides

FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]
THREADS = numba.config.NUMBA_NUM_THREADS
needs_threads = pytest.mark.skipif(THREADS < 2, reason="one Numba thread: never parallel")


@pytest.fixture
def par_calls(monkeypatch):
    """Lower the size threshold so small arrays (fast to check naively) take the parallel
    path, and record which parallel kernels ran."""
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_NUMEL", 1024)
    monkeypatch.setattr(_parallel, "idle_cpus", lambda: 64)  # as on idle cores
    calls: list[str] = []
    for name in ("_copy_strided_par", "_add_strided_par"):
        real = getattr(strided, name)

        def spy(*args, real=real, name=name):
            calls.append(name)
            return real(*args)
        monkeypatch.setattr(strided, name, spy)
    return calls


def _layout(kind: str, rows: int, cols: int, dst_dtype, src_dtype, rng):
    """(dst buffer, dst strides, src buffer, src strides) for a (rows, cols) region at
    offset 0 of each buffer; buffers hold small half-integers (exact in float32)."""
    d_st, s_st, d_len, s_len = (cols, 1), (cols, 1), rows * cols, rows * cols
    if kind == "transposed":
        s_st = (1, rows)
    elif kind == "step_sliced":
        d_st = s_st = (2 * cols, 2)
        d_len = s_len = 2 * rows * cols
    elif kind == "broadcast_src":
        s_st, s_len = (0, 1), cols
    src = (rng.integers(-8, 9, size=s_len) * 0.5).astype(src_dtype)
    dst = (rng.integers(-4, 5, size=d_len) * 0.5).astype(dst_dtype)
    return dst, d_st, src, s_st


LAYOUTS = ["contiguous", "transposed", "step_sliced", "broadcast_src"]


@needs_threads
@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("dst_dtype", FLOATS)
@pytest.mark.parametrize("src_dtype", FLOATS)
@pytest.mark.parametrize("op", ["copy", "add"])
def test_parallel_path_matches_naive(par_calls, op, kind, dst_dtype, src_dtype):
    dst, d_st, src, s_st = _layout(kind, 300, 40, dst_dtype, src_dtype,
                                   np.random.default_rng(0))
    expected = dst.copy()
    ref, kernel = ((naive.strided_copy, strided_copy) if op == "copy"
                   else (naive.strided_add, strided_add))
    ref(expected, 0, d_st, src, 0, s_st, (300, 40))
    kernel(dst, 0, d_st, src, 0, s_st, (300, 40))
    assert par_calls, "the parallel kernel did not run"
    np.testing.assert_array_equal(dst, expected)


@settings(max_examples=budget(40), deadline=None)
@given(data=st.data(), rows=st.integers(128, 200), cols=st.integers(6, 12),
       dst_dtype=st.sampled_from(FLOATS), src_dtype=st.sampled_from(FLOATS))
def test_parallel_threshold_any_geometry_matches_naive(data, rows, cols, dst_dtype, src_dtype):
    sizes = (rows, cols)
    dst_strides = data.draw(nonoverlapping_strides(sizes))
    src_strides = data.draw(any_strides(sizes))
    src, src_off = data.draw(buffer_for(src_dtype, sizes, src_strides))
    dst, dst_off = data.draw(buffer_for(dst_dtype, sizes, dst_strides))
    mp = pytest.MonkeyPatch()
    mp.setattr(_parallel, "PARALLEL_MIN_NUMEL", 1024)
    mp.setattr(_parallel, "idle_cpus", lambda: 64)
    try:
        for ref, kernel in ((naive.strided_copy, strided_copy), (naive.strided_add, strided_add)):
            expected = dst.copy()
            ref(expected, dst_off, dst_strides, src, src_off, src_strides, sizes)
            kernel(dst, dst_off, dst_strides, src, src_off, src_strides, sizes)
            np.testing.assert_array_equal(dst, expected)
    finally:
        mp.undo()


@pytest.mark.parametrize("chunks", [2, 3, 5, 7])
@pytest.mark.parametrize("kind", LAYOUTS)
def test_chunked_kernels_are_bit_identical_to_serial(chunks, kind):
    """Any chunk count (more than the threads, odd splits of the outer dim) gives exactly
    the serial kernel's bytes, NaNs and signed zeros included."""
    rng = np.random.default_rng(chunks)
    sizes = (7 * 64 + 13, 9)
    dst, d_st, src, s_st = _layout(kind, *sizes, np.float64, np.float64, rng)
    src[rng.integers(src.size, size=3)] = np.nan
    src[rng.integers(src.size, size=3)] = -0.0
    s, (ds, ss) = coalesce(sizes, [d_st, s_st], drop_broadcast=True)
    order_for_transpose(s, ds, ss)
    geom = np.array([s, ds, ss], dtype=np.int64)
    if geom[0, 0] < 64 * chunks:
        pytest.skip("outer dim too small for this many chunks (the dispatcher never asks)")
    for serial, parallel in ((_copy_strided, _copy_strided_par), (_add_strided, _add_strided_par)):
        a, b = dst.copy(), dst.copy()
        serial(a, 0, src, 0, geom)
        parallel(b, 0, src, 0, geom, chunks)
        assert a.tobytes() == b.tobytes(), serial.__name__


@needs_threads
def test_parallel_only_for_floats_and_dense_destinations(par_calls):
    n = 40_000
    strided_copy(np.zeros(n, np.int64), 0, (1,), np.ones(n, np.int64), 0, (1,), (n,))
    strided_add(np.zeros(n), 0, (1,), np.ones(n, np.int64), 0, (1,), (n,))
    assert par_calls == []
    strided_copy(np.zeros(n), 0, (1,), np.ones(n, np.float32), 0, (1,), (n,))
    assert par_calls == ["_copy_strided_par"]


@needs_threads
def test_no_parallel_below_threshold_or_with_one_thread(par_calls):
    n = 1000  # below the lowered threshold of 1024
    strided_copy(np.zeros(n), 0, (1,), np.ones(n), 0, (1,), (n,))
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        strided_add(np.zeros(5000), 0, (1,), np.ones(5000), 0, (1,), (5000,))
    finally:
        numba.set_num_threads(before)
    assert par_calls == []


@needs_threads
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_stays_serial(par_calls):
    """GNU OpenMP aborts a forked child that launches a parallel region after its parent
    did; jitgrad's child must fall back to the serial kernels and finish."""
    n = 50_000
    dst, src = np.zeros(n), np.arange(n, dtype=np.float64)
    strided_copy(dst, 0, (1,), src, 0, (1,), (n,))
    assert par_calls == ["_copy_strided_par"]
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        ok = False
        try:
            out = np.zeros(n)
            strided_add(out, 0, (1,), src, 0, (1,), (n,))
            ok = bool((out == src).all()) and par_calls == ["_copy_strided_par"]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"child status {status}"


@needs_threads
def test_serial_when_no_other_core_is_idle(par_calls, monkeypatch):
    """A parallel region waits for its slowest thread: on a busy machine (no idle core
    besides ours) the kernels stay serial, and give the same bytes."""
    n = 50_000
    src = np.arange(n, dtype=np.float64)
    monkeypatch.setattr(_parallel, "idle_cpus", lambda: 0)
    out = np.zeros(n)
    strided_copy(out, 0, (1,), src, 0, (1,), (n,))
    strided_add(out, 0, (1,), src, 0, (1,), (n,))
    assert par_calls == []
    np.testing.assert_array_equal(out, 2 * src)
    monkeypatch.setattr(_parallel, "idle_cpus", lambda: 1)
    strided_copy(out, 0, (1,), src, 0, (1,), (n,))
    assert par_calls == ["_copy_strided_par"]


def test_idle_cpus_reads_the_machine():
    idle = _parallel.idle_cpus()
    assert isinstance(idle, int) and 0 <= idle < len(os.sched_getaffinity(0))


def test_chunks_never_exceed_idle_cores_plus_ours(monkeypatch):
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_NUMEL", 1024)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 8)
    for idle, expected in ((0, 1), (1, 2), (3, 4), (20, 8)):
        monkeypatch.setattr(_parallel, "idle_cpus", lambda idle=idle: idle)
        assert _parallel.chunks_for(1 << 20, 4096) == expected, idle
    assert _parallel.chunks_for(1 << 20, 64) == 1  # one chunk's worth of rows: serial


def test_pool_starts_with_sleeping_openmp_workers_and_restores_the_environment(monkeypatch):
    """GNU OpenMP's workers spin after a region and /proc/loadavg counts them: the next
    large add saw no idle core. The pool is started with OMP_WAIT_POLICY=PASSIVE, the
    variable set only while the pool loads (another OpenMP library keeps its default)."""
    from numba.np.ufunc import parallel

    seen = []
    monkeypatch.setattr(parallel, "_launch_threads", lambda: seen.append(os.environ.get("OMP_WAIT_POLICY")))
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setitem(_parallel._state, "pool", False)
    _parallel._launch_pool()
    assert seen == ["PASSIVE"] and "OMP_WAIT_POLICY" not in os.environ and _parallel._state["pool"]
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the user's choice is kept
    _parallel._launch_pool()
    assert seen == ["PASSIVE", "ACTIVE"] and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_the_first_parallel_chunking_starts_the_pool_once(monkeypatch):
    calls = []
    monkeypatch.setattr(_parallel, "_launch_pool", lambda: (calls.append(1), _parallel._state.update(pool=True)))
    monkeypatch.setattr(_parallel, "idle_cpus", lambda: 1)
    monkeypatch.setitem(_parallel._state, "pool", False)
    monkeypatch.setitem(_parallel._state, "forked", False)
    assert _parallel.chunks_for(1 << 22, 4096) >= 1
    assert _parallel.chunks_for(1 << 22, 4096) >= 1
    assert calls == [1]


def _after_region(monkeypatch, spinning: bool, ago: float, idle: int) -> int:
    """``chunks_for`` of a large add ``ago`` seconds after our own 2-thread region ended."""
    monkeypatch.setattr(_parallel, "idle_cpus", lambda: idle)
    monkeypatch.setattr(_parallel, "_cpus", lambda: 2)
    monkeypatch.setitem(_parallel._state, "pool", True)
    monkeypatch.setitem(_parallel._state, "forked", False)
    monkeypatch.setitem(_parallel._state, "spinning", spinning)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    _parallel.ran_parallel(2)
    monkeypatch.setattr(_parallel, "_last_region", [_parallel._last_region[0] - ago, _parallel._last_region[1]])
    return _parallel.chunks_for(1 << 22, 4096)


def test_our_own_spinning_workers_count_as_ours_just_after_our_region(monkeypatch):
    """In an OpenMP runtime whose workers spin (loaded before us, as by import torch),
    /proc/loadavg counts our last region's workers as busy: for SPIN_WINDOW they are ours."""
    assert _after_region(monkeypatch, spinning=True, ago=0.0, idle=0) == 2
    assert _after_region(monkeypatch, spinning=True, ago=10 * _parallel.SPIN_WINDOW, idle=0) == 1
    assert _after_region(monkeypatch, spinning=False, ago=0.0, idle=0) == 1  # (sleeping workers)
    assert _after_region(monkeypatch, spinning=True, ago=0.0, idle=1) == 2


@pytest.mark.parametrize("policy, loaded, spinning", [
    (None, False, False), (None, True, True), ("PASSIVE", True, False), ("active", False, True)])
def test_the_pool_knows_whether_its_workers_spin(monkeypatch, policy, loaded, spinning):
    from numba.np.ufunc import parallel

    monkeypatch.setattr(parallel, "_launch_threads", lambda: None)
    monkeypatch.setattr(_parallel, "_openmp_loaded", lambda: loaded)
    if policy is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", policy)
    monkeypatch.setitem(_parallel._state, "pool", False)
    monkeypatch.setitem(_parallel._state, "spinning", not spinning)
    _parallel._launch_pool()
    assert _parallel._state["spinning"] is spinning
