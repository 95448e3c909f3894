"""``python -m jitgrad info`` and ``python -m jitgrad warmup``."""

from __future__ import annotations

import glob
import os
import sys
import time

import numba
import numpy as np

import jitgrad
from jitgrad.kernels import registry


def _cached_on_disk(kernel: registry.KernelInfo, cache_dir: str) -> int:
    """How many compiled signatures of ``kernel`` numba's on-disk cache holds."""
    func = kernel.dispatcher.py_func
    stem = os.path.splitext(os.path.basename(func.__code__.co_filename))[0]
    pattern = os.path.join(cache_dir, f"{stem}.{func.__qualname__}-*.nbc")
    return len(glob.glob(pattern))


def run() -> int:
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = "not installed (needed only by the tests and benchmarks)"
    cache_dir = registry.cache_dir()
    print(f"jitgrad  {jitgrad.__version__}  ({os.path.dirname(jitgrad.__file__)})")
    print(f"numba    {numba.__version__}")
    print(f"numpy    {np.__version__}")
    print(f"torch    {torch_version}")
    print(f"python   {sys.version.split()[0]}")
    print(f"threads  {numba.get_num_threads()} numba threads (NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}), "
          f"{os.cpu_count()} CPUs")
    writable = os.access(cache_dir, os.W_OK) if os.path.isdir(cache_dir) else "not created yet"
    print(f"kernel cache  {cache_dir}  (writable: {writable})")
    print("kernels: signatures cached on disk of those jitgrad uses, and loaded in this process")
    total = cached = 0
    for kernel in registry.kernels():
        n, c = len(kernel.signatures), _cached_on_disk(kernel, cache_dir)
        total, cached = total + n, cached + min(c, n)
        extra = f" (+{c - n} lazily compiled, e.g. read-only sources)" if c > n else ""
        print(f"  {kernel.name:<26} {min(c, n):>3}/{n:<3} cached, "
              f"{len(kernel.dispatcher.signatures)} loaded{extra}")
    if cached < total:
        print("run `python -m jitgrad warmup` to compile the rest ahead of time")
    return 0


def warmup() -> int:
    print(f"jitgrad: compiling kernels into {registry.cache_dir()} (loaded from there afterwards)")
    start = time.perf_counter()

    def progress(i: int, n: int, name: str) -> None:
        print(f"  [{i}/{n}] {name} ... ({time.perf_counter() - start:.1f}s)", flush=True)

    registry.warmup(progress)
    from ..compiler import warmup as warm_compile  # jitgrad.compile's tape interpreters

    print(f"  jitgrad.compile tape interpreters ... ({time.perf_counter() - start:.1f}s)", flush=True)
    warm_compile()
    print(f"done in {time.perf_counter() - start:.1f}s")
    return 0
