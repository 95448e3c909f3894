"""``python -m jitgrad bench``'s cold-start and busy-core tables: structure, and the
switches they use to force a kernel path (never the timings themselves)."""
from __future__ import annotations

import re

import numpy as np

from jitgrad.cli import bench_system
from jitgrad.cli import main as cli_main
from jitgrad.kernels import _parallel, strided_copy

TIME = r"[0-9.]+ ms"


def _table(out: str, first: str) -> list[dict[str, str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(dict(zip(header, re.split(r"\s{2,}", line.strip()))))
    return rows


def test_busy_core_table(capsys):
    assert cli_main(["bench", "--quick", "--only", "busy_core"]) == 0
    rows = _table(capsys.readouterr().out, "busy core")
    assert [r["busy core (n x n float32)"] for r in rows] == [
        "copy contiguous 512", "copy transposed 512", "add contiguous 512", "add transposed 512"]
    for r in rows:
        for col in ("policy", "serial", "NumPy"):
            assert re.fullmatch(TIME, r[col]), r
        assert float(r["policy/serial"]) > 0 and r["target"] == "<= 1.1"
        assert r["met"] in ("yes", "NO")


def test_cold_start_table(capsys):
    assert cli_main(["bench", "--quick", "--only", "cold_start"]) == 0
    rows = _table(capsys.readouterr().out, "cold start")
    assert [r["cold start"] for r in rows] == ["small", "one kernel", "kernels"]
    for r in rows:
        assert re.fullmatch(r"[0-9.]+ s", r["import + first backward"]), r
        assert float(r["MB over numpy+numba"]) > -50


def test_forced_paths_switch_and_restore(monkeypatch):
    calls: list[str] = []
    from jitgrad.kernels import strided

    for name in ("_copy_strided", "_copy_strided_par"):
        real = getattr(strided, name)
        monkeypatch.setattr(strided, name,
                            lambda *a, real=real, name=name: (calls.append(name), real(*a))[1])
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_NUMEL", 1024)
    n = 50_000
    before = (_parallel.PARALLEL_MIN_NUMEL, _parallel.idle_cpus)
    with bench_system.forced("serial"):
        strided_copy(np.zeros(n), 0, (1,), np.ones(n), 0, (1,), (n,))
    with bench_system.forced("parallel"):
        strided_copy(np.zeros(n), 0, (1,), np.ones(n), 0, (1,), (n,))
    assert (_parallel.PARALLEL_MIN_NUMEL, _parallel.idle_cpus) == before
    import numba

    second = "_copy_strided_par" if numba.get_num_threads() > 1 else "_copy_strided"
    assert calls == ["_copy_strided", second]


def test_interleaved_shuffles_the_order_and_takes_medians():
    calls: list[str] = []
    times = {n: iter([3.0, 1.0, 2.0] * 10) for n in "abc"}

    def run(name: str):
        return lambda: (calls.append(name), next(times[name]))[1]

    medians = bench_system._interleaved([(n, run(n)) for n in "abc"], 30)
    rounds = [calls[k:k + 3] for k in range(0, 90, 3)]
    assert all(sorted(r) == list("abc") for r in rounds)  # one run of each per round
    assert len({tuple(r) for r in rounds}) > 3  # not one order, nor a rotation of it
    after = {(r[i - 1] if i else None, r[i]) for r in rounds for i in range(3)}
    assert {("b", "a"), ("c", "a")} <= after  # no path always runs after the same one
    assert medians == {"a": 2.0, "b": 2.0, "c": 2.0}
