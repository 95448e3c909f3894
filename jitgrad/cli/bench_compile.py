"""``python -m jitgrad bench --compile``: ``jitgrad.compile`` beside eager jitgrad, PyTorch
eager and ``torch.compile``, on the demo's heat problem (n=128, 100 steps) and a 48x60
soft-DTW table, forward + backward, in one process (alternating runs, median after warm-up);
then the first call's trace + compile time in new processes, cold (a fresh Numba cache
directory) and warm (the same directory again: the interpreter loads from disk), wall-clock
and CPU seconds (CPU is the load-independent one on a shared machine).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

import numpy as np

import jitgrad
from . import heat

BIG = 1e10  # soft-DTW's border ("infinity", finite so exp and its gradient stay exact)


def soft_dtw_and_table(lib: Any, x: Any, y: Any, gamma: float) -> tuple[Any, Any]:
    """Soft-DTW's table filled cell by cell in place (notebooks/02 and 04): the value and
    the table (two outputs, one a view of the other)."""
    n, m = x.shape[0], y.shape[0]
    cost = (x.reshape(n, 1) - y.reshape(1, m)) ** 2
    D = lib.full((n + 1, m + 1), BIG, dtype=x.dtype)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = lib.stack([D[i - 1, j - 1], D[i - 1, j], D[i, j - 1]])
            D[i, j] = cost[i - 1, j - 1] - gamma * lib.logsumexp(-prev / gamma, dim=0)
    return D[n, m], D


def soft_dtw(lib: Any, x: Any, y: Any, gamma: float) -> Any:
    """Soft-DTW's value (``soft_dtw_and_table`` without the table)."""
    return soft_dtw_and_table(lib, x, y, gamma)[0]


def _tensor(lib: Any, a: Any, grad: bool = False) -> Any:
    a = np.asarray(a, np.float64)
    if lib is jitgrad:
        return jitgrad.tensor(a, dtype=jitgrad.float64, requires_grad=grad)
    return lib.tensor(a, dtype=lib.float64, requires_grad=grad)


def heat_workload(lib: Any, n: int = 128, steps: int = 100) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """``(loss(u0, theta), (u0, theta))`` for the demo's objective."""
    problem = heat.make_problem(n, steps, seed=0)
    observed = [_tensor(lib, o) for o in problem.observed]

    def loss(u0: Any, theta: Any) -> Any:
        return heat.objective(lib, problem, u0, heat.alpha_of(lib, theta), observed)[0]

    u0 = _tensor(lib, np.random.default_rng(1).standard_normal(n - 2) * 0.1, True)
    theta = _tensor(lib, heat.theta_of(heat.ALPHA_START), True)
    return loss, (u0, theta)


def dtw_workload(lib: Any, n: int = 48, m: int = 60) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    rng = np.random.default_rng(2)
    y = _tensor(lib, rng.standard_normal(m))

    def loss(x: Any) -> Any:
        return soft_dtw(lib, x, y, 0.1)

    return loss, (_tensor(lib, rng.standard_normal(n), True),)


def step(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> Callable[[], None]:
    def run() -> None:
        for t in inputs:
            t.grad = None
        fn(*inputs).backward()
    return run


def median_times(runs: dict[str, Callable[[], None]], repeats: int) -> dict[str, float]:
    for run in runs.values():  # warm-up (compiles, pools)
        run()
    samples: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in samples.items()}


def _first_call(make: Callable[[Any], tuple[Callable[..., Any], tuple[Any, ...]]], lib: Any,
                compiler: Callable[[Any], Any]) -> tuple[Callable[[], None], float]:
    fn, inputs = make(lib)
    compiled = compiler(fn)
    t0 = time.perf_counter()
    step(compiled, inputs)()
    return step(compiled, inputs), time.perf_counter() - t0


def scenario(name: str, make: Any, quick: bool, torch_compile: bool) -> list[str]:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a test dependency
        torch = None
    runs: dict[str, Callable[[], None]] = {}
    fn, inputs = make(jitgrad)
    runs["jitgrad eager"] = step(fn, inputs)
    runs["jitgrad.compile"], first = _first_call(make, jitgrad, jitgrad.compile)
    notes = [f"jitgrad.compile first call (trace + lower + run): {first * 1e3:.0f} ms"]
    if torch is not None:
        fn_t, inputs_t = make(torch)
        runs["torch eager"] = step(fn_t, inputs_t)
        if torch_compile:
            try:
                runs["torch.compile"], first_t = _first_call(make, torch, torch.compile)
                notes.append(f"torch.compile first call (compile + run): {first_t:.1f} s")
            except Exception as exc:  # noqa: BLE001 - report, do not fail the bench
                notes.append(f"torch.compile failed here: {type(exc).__name__}: {str(exc)[:120]}")
        else:
            notes.append("torch.compile not run (--torch-compile: its compile takes minutes here)")
    times = median_times(runs, 2 if quick else 7)
    ref = times.get("torch eager")
    lines = [name]
    for k, v in times.items():
        ratio = f"  ({v / ref:.3f}x PyTorch eager)" if ref else ""
        lines.append(f"  {k:<16} {v * 1e3:9.2f} ms{ratio}")
    return lines + ["  " + n for n in notes]


# The first call in a new process: loading the compiler (and Numba with it), then
# ``jitgrad.compile(fn)`` through the first forward + backward (trace, lowering, the
# interpreter's compile or cache load, run); wall-clock and this process's CPU seconds.
_PROBE = """
import time, jitgrad
from jitgrad.cli.bench_compile import heat_workload, step
fn, inputs = heat_workload(jitgrad)
t0, c0 = time.perf_counter(), time.process_time()
import jitgrad.compiler.compiled
t1, c1 = time.perf_counter(), time.process_time()
step(jitgrad.compile(fn), inputs)()
print(t1 - t0, c1 - c0, time.perf_counter() - t1, time.process_time() - c1)
"""


def first_call_in_subprocess(cache_dir: str) -> tuple[float, ...]:
    """``(load wall, load cpu, first call wall, first call cpu)`` seconds of the heat
    problem in a new process whose Numba cache is ``cache_dir``."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(jitgrad.__file__)))  # (this jitgrad)
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=path)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    return tuple(float(v) for v in out.stdout.strip().splitlines()[-1].split())


def first_calls(repeats: int) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
    """Cold (each in a new, empty cache directory) and warm (a second process on the cache
    the cold one filled) first calls."""
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(first_call_in_subprocess(cache))
            warm.append(first_call_in_subprocess(cache))
    return cold, warm


def run(quick: bool = False, torch_compile: bool = False) -> int:
    print("jitgrad.compile: forward + backward, median of alternating runs after a warm-up")
    heat_n, heat_steps = (32, 20) if quick else (128, 100)
    dtw_n, dtw_m = (8, 10) if quick else (48, 60)
    for line in scenario(f"heat n={heat_n}, {heat_steps} steps",
                         lambda lib: heat_workload(lib, heat_n, heat_steps), quick, torch_compile):
        print(line)
    for line in scenario(f"soft-DTW {dtw_n}x{dtw_m}",
                         lambda lib: dtw_workload(lib, dtw_n, dtw_m), quick, torch_compile=False):
        print(line)
    cold, warm = first_calls(1 if quick else 3)
    show = lambda runs: ", ".join(f"{r[2]:.2f} s ({r[3]:.2f} s CPU)" for r in runs)  # noqa: E731
    print("heat n=128, first call (trace + compile + forward + backward) in a new process:")
    print(f"  empty Numba cache (the interpreter compiles, once per machine): {show(cold)}")
    print(f"  from the disk cache:                                            {show(warm)}")
    load = [r[0] for r in cold + warm]
    print(f"  (before it, loading the compiler and Numba: {min(load):.2f}-{max(load):.2f} s)")
    return 0
