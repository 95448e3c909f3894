"""The registry compiles every kernel and reports what is compiled and where it is cached."""
from __future__ import annotations

import os
import subprocess
import sys

from jitgrad.kernels import registry


def test_warmup_reports_progress_and_compiles_everything():
    calls = []
    registry.warmup(lambda i, n, name: calls.append((i, n, name)))
    infos = registry.kernels()
    assert calls == [(i, len(infos), k.name) for i, k in enumerate(infos, start=1)]
    compiled = registry.compiled()
    assert set(compiled) == {k.name for k in infos}
    for k in infos:
        assert len(compiled[k.name]) >= len(k.signatures) > 0, k.name


def test_cache_dir_is_a_directory_numba_uses():
    path = registry.cache_dir()
    assert isinstance(path, str) and os.path.isdir(path)
    assert any(f.endswith(".nbi") for f in os.listdir(path))


def test_registry_lists_the_parallel_kernels_for_float_pairs():
    infos = {k.name: k for k in registry.kernels()}
    for name in ("copy_strided_par", "add_strided_par"):
        sigs = infos[name].signatures
        assert len(sigs) == 4, name  # (float32|float64) x (float32|float64)
        assert {(str(s[0].dtype), str(s[2].dtype)) for s in sigs} == {
            ("float32", "float32"), ("float32", "float64"),
            ("float64", "float32"), ("float64", "float64")}


PROBE = ("import numpy as np\n"
         "from jitgrad import kernels\n"
         "kernels.fill(np.zeros(4), 0, (1,), (4,), 1.0)\n")


def test_first_compile_prints_one_notice_and_a_warm_cache_none(tmp_path):
    """A real compile (empty NUMBA_CACHE_DIR) says so on stderr, naming the kernel, its
    signature and the cache directory; the second run loads from the cache silently."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    notices = [line for line in runs[0].stderr.splitlines() if line.startswith("jitgrad:")]
    assert len(notices) == 1, runs[0].stderr
    assert notices[0].startswith("jitgrad: compiling Numba kernel fill_strided for "
                                 "(array(float64, 1d, C), int64")
    assert f"(first run only; cached in {tmp_path}" in notices[0]
    assert "jitgrad:" not in runs[1].stderr


def test_notice_is_silenced_inside_quiet_and_ignores_other_packages(capsys):
    """``warmup`` reports per kernel, so it silences the per-signature notices."""
    from numba import njit
    from numba.core import event

    from jitgrad.kernels import _compile_notice, _copy_jit

    def fire(dispatcher):
        ev = event.Event("numba:compile", event.EventStatus.START,
                         data={"dispatcher": dispatcher, "args": ("float64",)})
        _compile_notice._CompileNotice().on_start(ev)
        return capsys.readouterr().err

    assert "compiling Numba kernel fill_strided for (float64)" in fire(_copy_jit._fill_strided)
    with _compile_notice.quiet():
        assert fire(_copy_jit._fill_strided) == ""
    assert fire(njit(lambda x: x)) == ""  # somebody else's kernel
