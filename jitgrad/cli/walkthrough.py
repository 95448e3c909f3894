"""``python -m jitgrad demo --tour`` (or ``tour``): a walk through strided views, in-place
writes through them, and the kernels underneath, with timings against NumPy."""

from __future__ import annotations

import textwrap
import time
from typing import Callable

import numpy as np

import jitgrad
from jitgrad import kernels


def _geometry(name: str, t: jitgrad.Tensor) -> None:
    print(f"  {name:<28} shape {str(list(t.shape)):<12} strides {str(t.stride()):<10} "
          f"offset {t.storage_offset():<3} view of base: {t._is_view()}")


def _best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    fn()  # warm: compile or load the kernel before timing
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run() -> int:
    print("1. A base tensor and views of it: no data is copied, only geometry changes.")
    base = jitgrad.arange(12.0).view(3, 4).clone()  # clone: a base that is not itself a view
    print(base)
    views = {
        "base": base,
        "base[1:, ::2]": base[1:, ::2],
        "base.t()": base.t(),
        "base.t()[1]": base.t()[1],
        "base.diagonal()": base.diagonal(),
        "base[0].unfold(0, 2, 1)": base[0].unfold(0, 2, 1),
        "base[:, :1].expand(3, 5)": base[:, :1].expand(3, 5),
    }
    for name, view in views.items():
        _geometry(name, view)

    print("\n2. An in-place write through a view lands in the base; the version counter is shared.")
    v = base[1:, ::2]
    print(f"  before: base._version = {base._version}, v._version = {v._version}")
    v.fill_(-1.0)
    base.t()[3].copy_(jitgrad.tensor([100.0, 200.0, 300.0]))
    print("  after v.fill_(-1) and base.t()[3].copy_([100, 200, 300]):")
    print(base)
    print(f"  base._version = {base._version}, v._version = {v._version}")

    print("\n3. Writes whose result would depend on their order are refused:")
    for label, write in [
        ("base[0].unfold(0, 2, 1).copy_(...)", lambda: base[0].unfold(0, 2, 1).copy_(jitgrad.ones(3, 2))),
        ("base[1:].copy_(base[:-1])", lambda: base[1:].copy_(base[:-1])),
    ]:
        try:
            write()
        except RuntimeError as exc:
            wrapped = textwrap.fill(f"RuntimeError: {exc}", 96, subsequent_indent="      ")
            print(f"  {label}\n    {wrapped}")
    print("  (fill_, zero_ and assigning a scalar are allowed: every write stores the same value)")

    print("\n4. The Numba kernels underneath, against NumPy (best of 5, after warm-up):")
    n = 2048
    src = np.random.default_rng(0).random((n, n), dtype=np.float32)
    dst = np.empty_like(src)
    flat_dst, flat_src = dst.reshape(-1), src.reshape(-1)
    cases = [
        ("contiguous copy", (n, 1), (n, 1), lambda: np.copyto(dst, src)),
        ("transposed copy", (n, 1), (1, n), lambda: np.copyto(dst, src.T)),
    ]
    for label, dst_strides, src_strides, numpy_fn in cases:
        ours = _best_of(lambda: kernels.strided_copy(
            flat_dst, 0, dst_strides, flat_src, 0, src_strides, (n, n)))
        theirs = _best_of(numpy_fn)
        gbps = 2 * src.nbytes / ours / 1e9
        print(f"  {label:<18} {n}x{n} float32: jitgrad {ours * 1e3:6.2f} ms ({gbps:5.1f} GB/s), "
              f"NumPy {theirs * 1e3:6.2f} ms  -> ratio {ours / theirs:.2f}")
    ours = _best_of(lambda: kernels.strided_add(flat_dst, 0, (n, 1), flat_src, 0, (n, 1), (n, n)))
    theirs = _best_of(lambda: np.add(dst, src, out=dst))
    print(f"  {'accumulate +=':<18} {n}x{n} float32: jitgrad {ours * 1e3:6.2f} ms, "
          f"NumPy {theirs * 1e3:6.2f} ms  -> ratio {ours / theirs:.2f}")
    print("\nNext: `python -m jitgrad demo` differentiates through writes like these; "
          "`python -m jitgrad info` shows the kernel cache.")
    return 0
