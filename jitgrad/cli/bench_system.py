"""Two tables of ``python -m jitgrad bench`` beside the scenarios (issue 11).

``cold_start``: ``import jitgrad`` plus a first backward in a fresh interpreter that has
already imported NumPy and Numba (the baseline), with a warm cache: the seconds and the
resident memory (``VmRSS``) added over that baseline. ``small`` never reaches a kernel;
``kernels`` writes into strided views of 512x512 tensors, so its first backward loads
Numba's runtime and the kernels it needs (``jitgrad/kernels/_lazy.py``); ``one kernel``
calls one tiny kernel and nothing else: the floor any first kernel call pays (LLVM starts,
Numba's runtime and the kernel load from the cache: ~24 MB here, against ~50 MB for a
one-line ``@njit(cache=True)``, see ``jitgrad/kernels/_lazy.py``). Each figure is the
median of 3 fresh processes, after one untimed process that fills the caches.

``busy_core``: the large copy/add kernels while another process spins on a core, through
the path jitgrad picks (``policy``, see ``jitgrad/kernels/_parallel.py``), forced serial,
forced parallel (every Numba thread), and NumPy, each the median of 27 runs interleaved
one by one in an order shuffled every round (``_interleaved``). The target is ``policy`` within 10% of
the serial kernel: a parallel region waits for its descheduled thread.
"""
from __future__ import annotations

import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Iterator

import numpy as np

from ..kernels import _parallel, strided_add, strided_copy

COLD_TARGET_S = 0.5
COLD_TARGET_MB = 40.0
BUSY_TARGET = 1.10

_CHILD = r"""
import json, sys, time
def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
import numpy, numba
start, base = time.perf_counter(), rss_mb()
import jitgrad
imported = time.perf_counter()
if sys.argv[1] == "one kernel":
    jitgrad.kernels.fill(numpy.zeros(8), 0, (1,), (8,), 1.0)
else:
    n = 4 if sys.argv[1] == "small" else 512
    x = jitgrad.randn(n, n, dtype=jitgrad.float64, requires_grad=True)
    b = x * 1.0
    b[::2, 1:].mul_(2)
    b.t()[0].copy_(x[0] * 3)
    b.sum().backward()
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "total_s": done - start,
                  "mb": rss_mb() - base}))
"""


def _cold_once(program: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, program], capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"bench: cold-start subprocess ({program}) failed "
                           f"(rc {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


COLD_COLUMNS = ["cold start", "import jitgrad", "import + first backward",
                "MB over numpy+numba", "target", "met"]


def cold_start_rows(quick: bool) -> list[dict[str, str]]:
    rows = []
    for program in ("small", "one kernel", "kernels"):
        _cold_once(program)  # fills numba's and Python's caches: not timed
        runs = [_cold_once(program) for _ in range(1 if quick else 3)]
        imp = statistics.median(r["import_s"] for r in runs)
        total = statistics.median(r["total_s"] for r in runs)
        mb = statistics.median(r["mb"] for r in runs)
        ok = total <= COLD_TARGET_S and mb <= COLD_TARGET_MB
        rows.append({
            "cold start": program, "import jitgrad": f"{imp:.3f} s",
            "import + first backward": f"{total:.3f} s", "MB over numpy+numba": f"{mb:.1f}",
            "target": f"<= {COLD_TARGET_S:g} s, <= {COLD_TARGET_MB:g} MB",
            "met": "yes" if ok else "NO",
        })
        print(f"  measured cold_start {program}", file=sys.stderr, flush=True)
    return rows


@contextlib.contextmanager
def forced(path: str) -> Iterator[None]:
    """Run the kernels' ``serial`` or ``parallel`` path whatever the policy says
    (``policy``: unchanged)."""
    saved = _parallel.PARALLEL_MIN_NUMEL, _parallel.idle_cpus
    if path == "serial":
        _parallel.PARALLEL_MIN_NUMEL = 1 << 62
    elif path == "parallel":
        _parallel.idle_cpus = lambda: 1 << 10  # type: ignore[assignment]
    try:
        yield
    finally:
        _parallel.PARALLEL_MIN_NUMEL, _parallel.idle_cpus = saved  # type: ignore[assignment]


def _kernel_cases(n: int) -> dict[str, tuple[Callable[[], None], Callable[[], None]]]:
    """name -> (jitgrad kernel call, NumPy equivalent), float32 (n, n) regions."""
    rng = np.random.default_rng(0)
    src = rng.standard_normal(n * n, dtype=np.float32)
    dst = np.zeros(n * n, np.float32)
    sizes, rows, cols = (n, n), (n, 1), (1, n)
    d2, s2 = dst.reshape(sizes), src.reshape(sizes)
    return {
        "copy contiguous": (lambda: strided_copy(dst, 0, rows, src, 0, rows, sizes),
                            lambda: np.copyto(d2, s2)),
        "copy transposed": (lambda: strided_copy(dst, 0, rows, src, 0, cols, sizes),
                            lambda: np.copyto(d2, s2.T)),
        "add contiguous": (lambda: strided_add(dst, 0, rows, src, 0, rows, sizes),
                           lambda: np.add(d2, s2, out=d2)),
        "add transposed": (lambda: strided_add(dst, 0, rows, src, 0, cols, sizes),
                           lambda: np.add(d2, s2.T, out=d2)),
    }


def _timed(run: Callable[[], None], path: str | None) -> float:
    """Wall seconds of one ``run()`` through the kernels' ``path`` (None: NumPy's twin)."""
    with forced(path) if path is not None else contextlib.nullcontext():
        start = time.perf_counter()
        run()
        return time.perf_counter() - start


def _interleaved(runs: list[tuple[str, Callable[[], float]]], rounds: int) -> dict[str, float]:
    """Median of each timed run over ``rounds`` rounds, one run of each per round in an
    order shuffled every round (seeded): a change in the machine's load over the
    measurement (other processes come and go on a shared machine) falls on every path
    alike, and no path always runs right after the same other one (a rotating order would
    keep every path's predecessor fixed). With a core busy the policy runs the serial
    kernel, so ``policy``/``serial`` measures only this noise and the policy's ~2 us."""
    samples: dict[str, list[float]] = {name: [] for name, _ in runs}
    order = list(runs)
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        shuffle(order)
        for name, run in order:
            samples[name].append(run())
    return {name: statistics.median(s) for name, s in samples.items()}


BUSY_COLUMNS = ["busy core (n x n float32)", "policy", "serial", "parallel", "NumPy",
                "policy/serial", "parallel/serial", "target", "met"]


def busy_core_rows(quick: bool) -> list[dict[str, str]]:
    from numba import get_num_threads

    n = 512 if quick else 2048
    rounds = 3 if quick else 27
    paths = ["policy", "serial"] + (["parallel"] if get_num_threads() > 1 else [])
    cases = _kernel_cases(n)
    for kernel, _ in cases.values():  # load every kernel and signature before timing
        for path in paths:
            with forced(path):
                kernel()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    rows = []
    try:
        time.sleep(0.2)  # let it start spinning
        for name, (kernel, numpy_twin) in cases.items():
            runs = [(p, lambda p=p: _timed(kernel, p)) for p in paths]
            t = _interleaved(runs + [("numpy", lambda: _timed(numpy_twin, None))], rounds)
            ratio = t["policy"] / t["serial"]
            rows.append({
                "busy core (n x n float32)": f"{name} {n}",
                "policy": f"{t['policy'] * 1e3:.2f} ms", "serial": f"{t['serial'] * 1e3:.2f} ms",
                "parallel": f"{t['parallel'] * 1e3:.2f} ms" if "parallel" in t else "-",
                "NumPy": f"{t['numpy'] * 1e3:.2f} ms", "policy/serial": f"{ratio:.2f}",
                "parallel/serial": f"{t['parallel'] / t['serial']:.2f}" if "parallel" in t else "-",
                "target": f"<= {BUSY_TARGET:g}", "met": "yes" if ratio <= BUSY_TARGET else "NO",
            })
            print(f"  measured busy_core {name}", file=sys.stderr, flush=True)
    finally:
        spinner.kill()
        spinner.wait()
    return rows
