"""Small-op scenarios for ``python -m jitgrad bench`` (issue 11): the per-op overhead of the
programs people write around views — DP tables filled cell by cell, time steppers,
recursions over rows — and the forward passes of four such programs.

Each per-op scenario's build returns a callable that runs the op ``PER_OP_REPEAT`` times, so that ``bench.measure`` reports the median thread CPU time
per op, the libraries alternating in one process. The programs are written once against
the shared API of jitgrad and PyTorch (``lib`` is either module).

``objects_rows`` counts the objects each op leaves allocated while its results are kept
(as a DP table keeps them): the growth of ``gc.get_objects()`` (the objects that count
towards the garbage collector's thresholds) and of ``sys.getallocatedblocks()``.
"""

from __future__ import annotations

import gc
import json
import math
import subprocess
import sys
from typing import Any, Callable

Timed = Callable[[], Any]
Build = Callable[[Any], Callable[[], Any]]

PER_OP_REPEAT = 500
QUICK_REPEAT = 50


def _repeat(op: Callable[[], Any]) -> Timed:
    """``op`` run ``PER_OP_REPEAT`` times (also under ``--quick``: the report divides by it)."""
    def run() -> None:
        for _ in range(PER_OP_REPEAT):
            op()
    return run


# -- one op each: ``build(lib)`` prepares the operands and returns the op -----------------
def _index_int(lib: Any) -> Callable[[], Any]:
    R = lib.zeros(49, 61, dtype=lib.float64)
    return lambda: R[3, 4]


def _index_slice(lib: Any) -> Callable[[], Any]:
    R = lib.zeros(49, 61, dtype=lib.float64)
    return lambda: R[1:, 2:]


def _setitem_grad(lib: Any) -> Callable[[], Any]:
    R = lib.zeros(49, 61, dtype=lib.float64, requires_grad=True) * 1.0
    v = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
    return lambda: R.__setitem__((3, 4), v)


def _iadd_view(lib: Any) -> Callable[[], Any]:
    u = lib.zeros(130, dtype=lib.float64, requires_grad=True) * 1.0
    al = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
    return lambda: u[1:-1].__iadd__(al * (u[2:] - 2 * u[1:-1] + u[:-2]))


def _scalars(lib: Any) -> tuple[Any, Any, Any]:
    a = lib.tensor(1.0, dtype=lib.float64, requires_grad=True)
    return a, a * 2, a * 3


def _stack3(lib: Any) -> Callable[[], Any]:
    a, b, c = _scalars(lib)
    return lambda: lib.stack([a, b, c])


def _cat3(lib: Any) -> Callable[[], Any]:
    a = lib.ones(2, dtype=lib.float64, requires_grad=True)
    b, c = a * 2, a * 3
    return lambda: lib.cat([a, b, c])


def _logsumexp3(lib: Any) -> Callable[[], Any]:
    a, b, c = _scalars(lib)
    return lambda: lib.logsumexp(lib.stack([a, b, c]), 0)


def _arith(lib: Any) -> Callable[[], Any]:
    x = lib.ones(8, dtype=lib.float64, requires_grad=True)
    y = lib.ones(8, dtype=lib.float64)
    return lambda: x * 1.5 + y


def _sum8(lib: Any) -> Callable[[], Any]:
    x = lib.ones(8, dtype=lib.float64, requires_grad=True)
    return lambda: x.sum()


PER_OP: list[tuple[str, Build]] = [
    ("small.R[i,j]", _index_int),
    ("small.R[1:,2:]", _index_slice),
    ("small.R[i,j]=v_grad", _setitem_grad),
    ("small.u[1:-1]+=", _iadd_view),
    ("small.stack3", _stack3),
    ("small.cat3", _cat3),
    ("small.logsumexp3", _logsumexp3),
    ("small.x*1.5+y_grad", _arith),
    ("small.sum8", _sum8),
]


def per_op(build: Build) -> Callable[[Any, bool], Timed]:
    def scenario(lib: Any, quick: bool) -> Timed:
        return _repeat(build(lib))
    return scenario


# -- program forwards --------------------------------------------------------------------
def soft_dtw(lib: Any, quick: bool) -> Timed:
    """Soft-DTW (Cuturi & Blondel) between two series: the table filled cell by cell."""
    n, m = (8, 10) if quick else (24, 30)
    x = lib.randn(n, dtype=lib.float64, requires_grad=True)
    y = lib.randn(m, dtype=lib.float64)
    gamma = 0.5

    def forward() -> Any:
        D = (x[:, None] - y[None, :]) ** 2
        R = lib.full((n + 1, m + 1), float("inf"), dtype=lib.float64)
        R[0, 0] = 0.0
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                prev = lib.stack([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
                R[i, j] = D[i - 1, j - 1] - gamma * lib.logsumexp(-prev / gamma, 0)
        return R[n, m]
    return forward


def hmm_forward(lib: Any, quick: bool) -> Timed:
    """The HMM forward algorithm in log space, one row of the table per time step."""
    steps, k = (10, 4) if quick else (60, 8)
    log_a = lib.log_softmax(lib.randn(k, k, dtype=lib.float64, requires_grad=True), 1)
    log_b = lib.log_softmax(lib.randn(k, 5, dtype=lib.float64, requires_grad=True), 1)
    obs = [(3 * t + 1) % 5 for t in range(steps)]

    def forward() -> Any:
        alpha = lib.zeros(steps, k, dtype=lib.float64)
        alpha[0] = log_b[:, obs[0]] - math.log(k)
        for t in range(1, steps):
            alpha[t] = lib.logsumexp(alpha[t - 1][:, None] + log_a, 0) + log_b[:, obs[t]]
        return lib.logsumexp(alpha[steps - 1], 0)
    return forward


def heat_2d(lib: Any, quick: bool) -> Timed:
    """An explicit 2-D heat-equation stepper updating the interior in place."""
    size, steps = (12, 5) if quick else (32, 50)
    x = lib.rand(size, size, dtype=lib.float64, requires_grad=True)
    alpha = lib.tensor(0.2, dtype=lib.float64, requires_grad=True)

    def forward() -> Any:
        u = x * 1.0
        for _ in range(steps):
            lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
            u[1:-1, 1:-1] += alpha * lap
        return u.sum()
    return forward


def tridiagonal(lib: Any, quick: bool) -> Timed:
    """The Thomas algorithm: a forward sweep and a back substitution, element by element.
    Entries read back after being written are cloned (a product saves its operands, and a
    later write into the same vector would invalidate a saved view)."""
    n = 12 if quick else 64
    lower = lib.rand(n, dtype=lib.float64, requires_grad=True)
    diag = lib.rand(n, dtype=lib.float64, requires_grad=True) + 4.0
    upper = lib.rand(n, dtype=lib.float64, requires_grad=True)
    rhs = lib.rand(n, dtype=lib.float64, requires_grad=True)

    def forward() -> Any:
        cp = lib.zeros(n, dtype=lib.float64)
        dp = lib.zeros(n, dtype=lib.float64)
        out = lib.zeros(n, dtype=lib.float64)
        cp[0] = upper[0] / diag[0]
        dp[0] = rhs[0] / diag[0]
        for i in range(1, n):
            denom = diag[i] - lower[i] * cp[i - 1].clone()
            cp[i] = upper[i] / denom
            dp[i] = (rhs[i] - lower[i] * dp[i - 1].clone()) / denom
        out[n - 1] = dp[n - 1]
        for i in range(n - 2, -1, -1):
            out[i] = dp[i] - cp[i] * out[i + 1].clone()
        return out.sum()
    return forward


PROGRAMS: list[tuple[str, Callable[[Any, bool], Timed]]] = [
    ("program.soft_dtw.forward", soft_dtw),
    ("program.hmm.forward", hmm_forward),
    ("program.heat_2d.forward", heat_2d),
    ("program.tridiagonal.forward", tridiagonal),
]


def with_backward(program: Callable[[Any, bool], Timed]) -> Callable[[Any, bool], Timed]:
    """``program``'s forward and the backward of its result: one step of a fit."""
    def scenario(lib: Any, quick: bool) -> Timed:
        forward = program(lib, quick)
        return lambda: forward().backward()
    return scenario


# the same programs, forward and backward (reported beside the forwards: no target)
PROGRAMS_WITH_BACKWARD: list[tuple[str, Callable[[Any, bool], Timed]]] = [
    (name.replace(".forward", ".forward+backward"), with_backward(build)) for name, build in PROGRAMS]


# -- objects left allocated per op --------------------------------------------------------
OBJECT_COLUMNS = ["op", "lib", "gc objects/op", "blocks/op"]


def _objects_per_op(op: Callable[[], Any], n: int) -> tuple[float, float]:
    op()
    kept: list[Any] = []
    gc.collect()
    objects, blocks = len(gc.get_objects()), sys.getallocatedblocks()
    for _ in range(n):
        kept.append(op())
    objects, blocks = len(gc.get_objects()) - objects, sys.getallocatedblocks() - blocks
    del kept
    return (objects - 1) / n, (blocks - 1) / n  # less the list itself


def objects_rows(libs: dict[str, Any], quick: bool) -> list[dict[str, str]]:
    n = QUICK_REPEAT if quick else PER_OP_REPEAT
    rows = []
    for name, build in PER_OP:
        for lib_name, lib in libs.items():
            objects, blocks = _objects_per_op(build(lib), n)
            rows.append({"op": name, "lib": lib_name, "gc objects/op": f"{objects:.1f}",
                         "blocks/op": f"{blocks:.1f}"})
    return rows


# -- a long stepper: what the per-op rows' medians leave out ------------------------------
# The per-op rows time 500 statements after ``gc.collect()``: the collector's young
# collections count, its full ones (which walk every tracked object of the process,
# graph and imported modules alike) mostly do not. A stepper run for thousands of steps
# keeps its graph alive and pays them all. Each library runs in a fresh interpreter that
# imports only it (the other's modules would enlarge the heap the full collections walk).
LONG_COLUMNS = ["long stepper", "lib", "us/statement", "collector share", "jitgrad/PyTorch"]

_LONG_CHILD = r"""
import gc, json, sys, time
lib = __import__(sys.argv[1])
steps = int(sys.argv[2])
spent = [0.0, None]
def clock(phase, info):
    if phase == "start":
        spent[1] = time.process_time()
    else:
        spent[0] += time.process_time() - spent[1]
def run(n):
    u = lib.zeros(130, dtype=lib.float64, requires_grad=True) * 1.0
    al = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
    for _ in range(n):
        u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u
run(200)
gc.callbacks.append(clock)
times, shares = [], []
for _ in range(3):
    spent[0] = 0.0
    start = time.process_time()
    run(steps)
    total = time.process_time() - start
    times.append(total / steps)
    shares.append(spent[0] / total)
print(json.dumps({"s": sorted(times)[1], "share": sorted(shares)[1]}))
"""


def _long_once(lib_name: str, steps: int) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", _LONG_CHILD, lib_name, str(steps)], capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"bench: long-stepper subprocess ({lib_name}) failed (rc {proc.returncode}):\n"
                           f"{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def long_stepper_rows(libs: dict[str, Any], quick: bool) -> list[dict[str, str]]:
    """``u[1:-1] += al * (u[2:] - 2 * u[1:-1] + u[:-2])`` for 10,000 steps (1,000 quick), the
    graph kept: the process CPU time per statement (median of 3 runs, each in one fresh
    interpreter per library) and the share of it spent in the garbage collector."""
    steps = 1_000 if quick else 10_000
    measured = {name: _long_once(name, steps) for name in libs}
    rows = []
    for name, m in measured.items():
        ratio = m["s"] / measured["torch"]["s"] if "torch" in measured else None
        rows.append({"long stepper": f"u[1:-1] += ... x {steps}", "lib": name,
                     "us/statement": f"{m['s'] * 1e6:.1f}", "collector share": f"{m['share']:.0%}",
                     "jitgrad/PyTorch": "-" if ratio is None or name == "torch" else f"{ratio:.2f}"})
    return rows
