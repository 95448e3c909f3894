"""The registry compiles every kernel and reports what is compiled and where it is cached."""
from __future__ import annotations

import os

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
