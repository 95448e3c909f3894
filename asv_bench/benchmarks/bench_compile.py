"""``jitgrad.compile`` against eager jitgrad: forward + backward of the demo's heat problem
and of a soft-DTW table (the workloads of ``python -m jitgrad bench --compile``). ``setup``
traces and warms, so neither tracing nor Numba compilation is timed."""

from __future__ import annotations

import jitgrad

try:
    from jitgrad.cli.bench_compile import dtw_workload, heat_workload, step
except ImportError:  # an older commit without jitgrad.compile
    heat_workload = dtw_workload = step = None


class CompiledVsEager:
    params = (["heat_128x100", "soft_dtw_24x30"], ["eager", "compiled"])
    param_names = ["workload", "mode"]
    timeout = 300

    def setup(self, workload: str, mode: str) -> None:
        if step is None:
            raise NotImplementedError("jitgrad.compile is not in this commit")
        make = (lambda: heat_workload(jitgrad, 128, 100)) if workload.startswith("heat") \
            else (lambda: dtw_workload(jitgrad, 24, 30))
        fn, inputs = make()
        if mode == "compiled":
            fn = jitgrad.compile(fn)
        self.run = step(fn, inputs)
        self.run()  # trace, compile, warm

    def time_forward_backward(self, workload: str, mode: str) -> None:
        self.run()

    def peakmem_forward_backward(self, workload: str, mode: str) -> None:
        self.run()


try:
    from jitgrad.cli.bench_compile import first_calls
except ImportError:  # an older commit
    first_calls = None


class CompileFirstCall:
    """The heat problem's first compiled call (trace + compile + forward + backward) in a new
    process, CPU seconds: with an empty Numba cache (the interpreter compiles) and from the
    disk cache (``python -m jitgrad bench --compile`` prints the same, wall-clock too)."""

    timeout = 600
    unit = "seconds"

    def setup_cache(self) -> tuple[float, float]:
        if first_calls is None:
            raise NotImplementedError("jitgrad.compile's first-call probe is not in this commit")
        cold, warm = first_calls(1)
        return cold[0][3], warm[0][3]

    def track_cold_cache_cpu_seconds(self, measured: tuple[float, float]) -> float:
        return measured[0]

    def track_warm_cache_cpu_seconds(self, measured: tuple[float, float]) -> float:
        return measured[1]
