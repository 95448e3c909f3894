"""``python -m jitgrad bench``: the headline scenarios, jitgrad beside PyTorch and NumPy.

Every scenario is timed in one process with the libraries alternating (A/B/A/B...), after
untimed warm-up runs (so Numba kernels are loaded and PyTorch's pools are up), and the
median of the timed runs is reported: CPU time of the calling thread for the node-overhead
scenarios (both libraries run those on it alone), the wall clock for the others. Whatever a
sample needs first (a fresh autograd graph, the forward pass) is built before the clock
starts; only the scenario's operation is timed.
PyTorch runs at its default thread count. Peak memory of the backward scenarios is measured
in a fresh subprocess per (scenario, library): Linux's ``VmHWM`` is reset through
``/proc/self/clear_refs`` just before ``backward()`` and the extra over ``VmRSS`` at that
moment is reported. The asv suite (``asv_bench/benchmarks/bench_scenarios.py``) defines the
same workloads independently, so it can also run against older commits.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import jitgrad

from . import bench_rnn, bench_small_ops, bench_system

Timed = Callable[[], Any]


@dataclass(frozen=True)
class Scenario:
    """One row of the table. ``build(lib, quick)`` prepares a sample (untimed) and returns
    the callable to time; ``lib`` is the ``jitgrad`` or ``torch`` module."""

    name: str
    build: Callable[[Any, bool], Timed]
    target: float | None = None  # jitgrad/PyTorch time ratio to meet; None: reported only
    numpy: Callable[[bool], Timed] | None = None
    peak: bool = False  # measure the timed call's peak extra memory (backward scenarios)
    per: int = 1  # report time / per (per-node overhead)
    unit: str = ""
    repeats: int = 7
    # time the calling thread's CPU (``time.thread_time``) instead of the wall clock: for
    # work that runs on the calling thread alone (both libraries' backward of tiny tensors),
    # so that other processes on a shared machine do not stretch the figure
    cpu_clock: bool = False


def _size(quick: bool, full: int, small: int) -> int:
    return small if quick else full


def _row_fill_graph(lib: Any, quick: bool) -> tuple[Any, Any]:
    rows, cols = _size(quick, 1024, 64), _size(quick, 4096, 512)
    buf = lib.zeros(rows, cols)
    src = lib.randn(rows, cols, requires_grad=True)
    return buf, src


def row_fill_forward(lib: Any, quick: bool) -> Timed:
    buf, src = _row_fill_graph(lib, quick)

    def forward() -> None:
        for i in range(buf.shape[0]):
            buf[i].copy_(src[i] * 2)
    return forward


def row_fill(lib: Any, quick: bool) -> Timed:
    buf, src = _row_fill_graph(lib, quick)
    for i in range(buf.shape[0]):
        buf[i].copy_(src[i] * 2)
    return buf.sum().backward


def strided_inplace(lib: Any, quick: bool) -> Timed:
    n = _size(quick, 4096, 256)
    x = lib.randn(n, n, requires_grad=True)
    b = x * 1.0
    b[::2, 1:-1].mul_(2)
    return b.sum().backward


def dtype_copy(lib: Any, quick: bool) -> Timed:
    n = _size(quick, 4096, 256)
    src = lib.randn(n, n, dtype=lib.float64, requires_grad=True)
    dst = lib.zeros(n, n, dtype=lib.float32)
    dst.copy_(src * 1.0)
    return (dst * 1.0).sum().backward


def _transpose_size(quick: bool) -> int:
    return _size(quick, 4096, 512)


def transpose_copy(lib: Any, quick: bool) -> Timed:
    n = _transpose_size(quick)
    a = lib.randn(n, n)
    dst = lib.zeros(n, n)
    dst.fill_(1.0)  # (its pages written before the timing, as NumPy's below: the copy is timed, not first-touch faults)
    return lambda: dst.copy_(a.t())


def transpose_copy_numpy(quick: bool) -> Timed:
    n = _transpose_size(quick)
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    d = np.ones((n, n), np.float32)
    return lambda: np.copyto(d, a.T)


def fanout(lib: Any, quick: bool) -> Timed:
    n = _size(quick, 2048, 128)
    x = lib.randn(n, n, requires_grad=True)
    loss = (x * 1.0).sum()
    for k in range(1, 8):
        loss = loss + (x * (1.0 + k)).sum()
    return loss.backward


CHAIN = 1000  # as asv_bench/benchmarks/bench_engine.py: alternate `* 1.0001` and `+ 0.5`


def _chain(x: Any, length: int) -> Any:
    y = x
    for i in range(length):
        y = y * 1.0001 if i % 2 == 0 else y + 0.5
    return y.sum()


# the chain keeps its length under --quick (a few ms): the report divides by ``CHAIN``
def node_forward(lib: Any, quick: bool) -> Timed:
    x = lib.randn(8, requires_grad=True)
    return lambda: _chain(x, CHAIN)


def node_backward(lib: Any, quick: bool) -> Timed:
    return _chain(lib.randn(8, requires_grad=True), CHAIN).backward


SCENARIOS = [
    Scenario("row_fill", row_fill, 0.02, peak=True, repeats=3),
    Scenario("row_fill.forward", row_fill_forward, repeats=3),
    Scenario("strided_inplace", strided_inplace, 0.3, peak=True),
    Scenario("dtype_copy", dtype_copy, 0.7, peak=True),
    Scenario("transpose_copy", transpose_copy, 0.8, numpy=transpose_copy_numpy, repeats=15),
    Scenario("fanout", fanout, 1.0, peak=True),
    Scenario("node_overhead.forward", node_forward, 2.0, per=CHAIN, unit="/node", repeats=15,
             cpu_clock=True),
    Scenario("node_overhead.backward", node_backward, 1.2, per=CHAIN, unit="/node", repeats=15,
             cpu_clock=True),
]
# issue 11: per-op overhead of small ops (target 1.2) and forwards of programs made of them
SCENARIOS += [
    Scenario(name, bench_small_ops.per_op(build), 1.2, per=bench_small_ops.PER_OP_REPEAT,
             unit="/op", repeats=9, cpu_clock=True)
    for name, build in bench_small_ops.PER_OP
] + [
    Scenario(name, build, 1.5, repeats=5, cpu_clock=True)
    for name, build in bench_small_ops.PROGRAMS
] + [
    Scenario(name, build, None, repeats=5, cpu_clock=True)
    for name, build in bench_small_ops.PROGRAMS_WITH_BACKWARD
]

# recurrent layers' forward + backward (bench_rnn.py); PyTorch's CPU LSTM is one fused kernel
SCENARIOS += [Scenario(name, build, 3.0, repeats=9, cpu_clock=True) for name, build in bench_rnn.LAYERS]

# tables of their own, after the scenarios: see bench_system.py
SYSTEM_TABLES: dict[str, tuple[Callable[[bool], list[dict[str, str]]], list[str]]] = {
    "cold_start": (bench_system.cold_start_rows, bench_system.COLD_COLUMNS),
    "busy_core": (bench_system.busy_core_rows, bench_system.BUSY_COLUMNS),
    "small_ops_objects": (lambda quick: bench_small_ops.objects_rows(_libraries(), quick),
                          bench_small_ops.OBJECT_COLUMNS),
    "long_stepper": (lambda quick: bench_small_ops.long_stepper_rows(_libraries(), quick),
                     bench_small_ops.LONG_COLUMNS),
}


def _libraries() -> dict[str, Any]:
    libs: dict[str, Any] = {"jitgrad": jitgrad}
    try:
        import torch
    except ImportError:
        return libs
    libs["torch"] = torch
    return libs


def _seed(libs: dict[str, Any]) -> None:
    for lib in libs.values():
        lib.manual_seed(0)


def measure(sc: Scenario, libs: dict[str, Any], quick: bool) -> dict[str, float]:
    """Median seconds (divided by ``sc.per``) per library; runs alternate between libraries."""
    builders: dict[str, Callable[[], Timed]] = {
        name: (lambda lib=lib: sc.build(lib, quick)) for name, lib in libs.items()}
    if sc.numpy is not None:
        builders["numpy"] = lambda: sc.numpy(quick)
    _seed(libs)
    repeats = 2 if quick else sc.repeats
    clock = time.thread_time if sc.cpu_clock else time.perf_counter
    samples: dict[str, list[float]] = {name: [] for name in builders}
    for i in range(1 + repeats):  # round 0 warms up and is not timed
        for name, build in builders.items():
            run = build()
            gc.collect()
            start = clock()
            run()
            elapsed = clock() - start
            if i > 0:
                samples[name].append(elapsed)
            del run
    return {name: statistics.median(s) / sc.per for name, s in samples.items()}


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"bench: no {key} in /proc/self/status")


def peak_in_this_process(sc: Scenario, lib: Any, quick: bool) -> float:
    """MB the timed call adds at its peak over the RSS it starts with (Linux only)."""
    _seed({"lib": lib})
    sc.build(lib, quick)()  # warm: kernels loaded, pools started
    run = sc.build(lib, quick)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    rss = _status_kb("VmRSS")
    run()
    return (_status_kb("VmHWM") - rss) / 1024


def peak_in_subprocess(name: str, lib: str, quick: bool) -> float | None:
    """Peak extra MB of scenario ``name`` for ``lib``, in a fresh interpreter; None if the
    platform cannot measure it."""
    if not os.path.exists("/proc/self/clear_refs"):
        return None
    cmd = [sys.executable, "-m", "jitgrad", "bench", "--peak-of", f"{name}:{lib}"]
    proc = subprocess.run(cmd + (["--quick"] if quick else []), capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"bench: peak-memory subprocess for {name}/{lib} failed "
                           f"(rc {proc.returncode}):\n{proc.stderr[-2000:]}")
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["peak_mb"])


def _fmt_time(seconds: float | None, unit: str) -> str:
    if seconds is None:
        return "-"
    for scale, suffix in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= scale or suffix == "us":
            return f"{seconds / scale:.3g} {suffix}{unit}"
    raise AssertionError("unreachable")


COLUMNS = ["scenario", "jitgrad", "PyTorch", "NumPy", "jitgrad/PyTorch", "target", "met",
           "peak MB jitgrad", "peak MB PyTorch"]


def table_rows(scenarios: list[Scenario], libs: dict[str, Any], quick: bool,
               peaks: bool = True) -> list[dict[str, str]]:
    rows = []
    for sc in scenarios:
        t = measure(sc, libs, quick)
        ratio = t["jitgrad"] / t["torch"] if "torch" in t else None
        peak = {lib: peak_in_subprocess(sc.name, lib, quick) if sc.peak and peaks else None
                for lib in ("jitgrad", "torch") if lib in libs}
        met = "-"
        if sc.target is not None and ratio is not None:
            ok = ratio <= sc.target
            if sc.name == "strided_inplace" and None not in peak.values():
                ok = ok and peak["jitgrad"] <= peak["torch"]  # "with no more peak memory"
            met = "yes" if ok else "NO"
        rows.append({
            "scenario": sc.name, "jitgrad": _fmt_time(t["jitgrad"], sc.unit),
            "PyTorch": _fmt_time(t.get("torch"), sc.unit),
            "NumPy": _fmt_time(t.get("numpy"), sc.unit),
            "jitgrad/PyTorch": "-" if ratio is None else f"{ratio:.3f}",
            "target": "-" if sc.target is None else f"<= {sc.target:g}", "met": met,
            "peak MB jitgrad": "-" if peak.get("jitgrad") is None else f"{peak['jitgrad']:.1f}",
            "peak MB PyTorch": "-" if peak.get("torch") is None else f"{peak['torch']:.1f}",
        })
        print(f"  measured {sc.name}", file=sys.stderr, flush=True)
    return rows


def format_table(rows: list[dict[str, str]], columns: list[str] = COLUMNS) -> str:
    widths = {c: max([len(c)] + [len(r[c]) for r in rows]) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns),
             "  ".join("-" * widths[c] for c in columns)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in columns) for r in rows]
    return "\n".join(lines)


def plot(rows: list[dict[str, str]], path: str) -> bool:
    """Bar chart of jitgrad/PyTorch ratios with each target as a line; False without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    shown = [r for r in rows if r["jitgrad/PyTorch"] != "-"]
    fig, ax = plt.subplots(figsize=(1.2 * len(shown) + 2, 4))
    xs = range(len(shown))
    ax.bar(xs, [float(r["jitgrad/PyTorch"]) for r in shown], color="tab:blue")
    for x, r in zip(xs, shown):
        if r["target"] != "-":
            ax.hlines(float(r["target"].split()[-1]), x - 0.4, x + 0.4, colors="tab:red")
    ax.set_xticks(list(xs), [r["scenario"] for r in shown], rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("time jitgrad / PyTorch (red: target)")
    fig.tight_layout()
    fig.savefig(path)
    return True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    names = [sc.name for sc in SCENARIOS] + list(SYSTEM_TABLES)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and 2 timed runs (a CI smoke test, not a measurement)")
    parser.add_argument("--only", choices=names, action="append", metavar="NAME",
                        help=f"run only this scenario (repeatable): {', '.join(names)}")
    parser.add_argument("--plot", metavar="OUT.png", help="draw the ratios (needs matplotlib)")
    parser.add_argument("--no-peak", action="store_true",
                        help="skip the peak-memory subprocesses")
    parser.add_argument("--peak-of", help=argparse.SUPPRESS)  # internal: NAME:LIB
    parser.add_argument("--compile", action="store_true",
                        help="jitgrad.compile vs eager jitgrad and PyTorch (bench_compile.py)")
    parser.add_argument("--torch-compile", action="store_true",
                        help="with --compile: also torch.compile (its compile takes minutes here)")


def run_from_args(args: argparse.Namespace) -> int:
    by_name = {sc.name: sc for sc in SCENARIOS}
    if getattr(args, "compile", False):
        from .bench_compile import run as run_compile

        return run_compile(args.quick, args.torch_compile)
    if args.peak_of:
        name, lib = args.peak_of.split(":")
        module = jitgrad if lib == "jitgrad" else _libraries()[lib]
        print(json.dumps({"peak_mb": peak_in_this_process(by_name[name], module, args.quick)}))
        return 0
    libs = _libraries()
    import numba

    print(f"jitgrad {jitgrad.__version__}, numba {numba.__version__} "
          f"({numba.get_num_threads()} threads), numpy {np.__version__}", end="")
    if "torch" in libs:
        print(f", torch {libs['torch'].__version__} "
              f"({libs['torch'].get_num_threads()} threads)")
    else:
        print("\nPyTorch is not installed: showing jitgrad and NumPy only (no ratios).")
    print(f"median of {'2' if args.quick else 'N'} alternating runs after a warm-up run"
          f"{' (--quick: small sizes, not a measurement)' if args.quick else ''}")
    scenarios = [by_name[n] for n in args.only if n in by_name] if args.only else SCENARIOS
    rows = table_rows(scenarios, libs, args.quick, peaks=not args.no_peak)
    if scenarios:
        print(format_table(rows))
    for name, (make_rows, columns) in SYSTEM_TABLES.items():
        if not args.only or name in args.only:
            print()
            print(format_table(make_rows(args.quick), columns))
    if args.plot:
        if plot(rows, args.plot):
            print(f"plot written to {args.plot}")
        else:
            print(f"--plot: matplotlib is not installed, no plot written to {args.plot} "
                  "(pip install matplotlib)", file=sys.stderr)
    return 0
