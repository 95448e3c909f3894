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
