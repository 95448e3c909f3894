"""``python -m jitgrad demo``: the inverse heat problem converges, its gradients through
in-place view updates equal PyTorch's for the identical program, and the CLI runs."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
from conftest import budget
from jitgrad.cli import demo, heat
from jitgrad.cli.progress import Progress

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"n": 64, "steps": 40, "iters": 60}


def _grads(lib, problem, u0, theta):
    """Loss and gradients w.r.t. ``u0`` and ``theta`` (alpha through the sigmoid), as the demo fits."""
    u0_t = lib.tensor(u0, dtype=lib.float64, requires_grad=True)
    theta_t = lib.tensor(theta, dtype=lib.float64, requires_grad=True)
    observed = [lib.tensor(o, dtype=lib.float64) for o in problem.observed]
    loss, _ = heat.objective(lib, problem, u0_t, heat.alpha_of(lib, theta_t), observed)
    loss.backward()
    return loss.item(), theta_t.grad.item(), np.array(u0_t.grad.detach().numpy())


@settings(max_examples=budget(8))
@given(n=st.integers(8, 40), steps=st.integers(4, 30), theta=st.floats(-3.0, 3.0), seed=st.integers(0, 99))
def test_gradient_equals_torch_for_the_same_program(n, steps, theta, seed):
    problem = heat.make_problem(n, steps, seed)
    u0 = np.random.default_rng(seed).standard_normal(n - 2)
    ours, theirs = _grads(jitgrad, problem, u0, theta), _grads(torch, problem, u0, theta)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-13)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-11, atol=1e-16)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-11, atol=1e-16)


def test_forward_matches_numpy_reference():
    """``simulate`` (in-place writes into views) against the plain NumPy loop of ``make_problem``."""
    problem = heat.make_problem(32, 12, seed=0)
    noise_free = heat.make_problem(32, 12, seed=0)
    rng = np.random.default_rng(0)
    for o in noise_free.observed:
        o -= heat.NOISE * rng.standard_normal(o.shape)  # undo the same noise draws
    with jitgrad.no_grad():
        snaps = heat.simulate(jitgrad, jitgrad.tensor(problem.u0_true, dtype=jitgrad.float64),
                              jitgrad.tensor(problem.alpha_true, dtype=jitgrad.float64),
                              problem.steps, problem.observe)
    assert len(snaps) == heat.SNAPSHOTS
    for s, o in zip(snaps, noise_free.observed):
        np.testing.assert_allclose(s.detach().numpy(), o, rtol=0, atol=1e-14)


def test_simulate_leaves_u0_untouched_and_snapshots_independent():
    u0 = jitgrad.tensor(np.linspace(0.0, 1.0, 10), dtype=jitgrad.float64, requires_grad=True)
    before = u0.detach().numpy().copy()
    snaps = heat.simulate(jitgrad, u0, jitgrad.tensor(0.4, dtype=jitgrad.float64), 8, (2, 8))
    np.testing.assert_array_equal(u0.detach().numpy(), before)
    assert not np.allclose(snaps[0].detach().numpy(), snaps[1].detach().numpy())
    assert snaps[1].grad_fn is not None


def test_demo_converges():
    out = io.StringIO()
    result = demo.run(**SMALL, out=out, compare=False)
    assert result.alpha_error < 0.05, out.getvalue()
    assert result.u0_error < 0.8 * result.u0_start_error, out.getvalue()
    assert result.losses[-1] < result.losses[0] / 5
    for name, auto, fd in result.grad_checks:
        assert auto == pytest.approx(fd, rel=1e-6), name
    text = out.getvalue()
    for expected in ["Gradient check", "d loss / d alpha", "Fitting", "alpha: recovered", "relative L2 error"]:
        assert expected in text


def test_main_prints_the_pytorch_comparison(capsys):
    assert demo.main(["--n", "16", "--steps", "8", "--iters", "2", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "max |gradient difference|" in text and "jitgrad takes" in text


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_plot_writes_png(tmp_path):
    path = tmp_path / "heat.png"
    demo.run(n=16, steps=8, iters=2, plot_path=str(path), out=io.StringIO(), compare=False)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    out, path = io.StringIO(), tmp_path / "heat.png"
    demo.run(n=16, steps=8, iters=2, plot_path=str(path), out=out, compare=False)
    assert "pip install matplotlib" in out.getvalue() and not path.exists()


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="at least 8, got 4"):
        heat.make_problem(4, 10, 0)
    with pytest.raises(ValueError, match="steps must be at least"):
        heat.make_problem(16, 2, 0)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_and_in_a_log():
    tty = _Terminal()
    bar = Progress(20, tty, width=10)
    for i in range(1, 21):
        bar.update(i, "x")
    assert tty.getvalue().count("\r") == 20 and tty.getvalue().endswith("[##########] 20/20  x\n")
    log = io.StringIO()
    lines = Progress(20, log)
    for i in range(1, 21):
        lines.update(i, "x")
    assert "\r" not in log.getvalue() and len(log.getvalue().splitlines()) == 10


@pytest.mark.parametrize("args", [["demo", "--n", "32", "--steps", "20", "--iters", "5"], ["demo", "--tour"]])
def test_cli_smoke(args):
    proc = subprocess.run([sys.executable, "-m", "jitgrad", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def test_runs_without_pytorch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    out = io.StringIO()
    demo.run(n=16, steps=8, iters=2, out=out)
    assert "no side-by-side gradient comparison" in out.getvalue()
    assert "PyTorch is not installed: skipping the timing" in out.getvalue()
