"""``python -m jitgrad demo``: recover the diffusivity and the initial state of a 1-D heat
equation from noisy snapshots, by gradient descent through a solver that updates its state
in place through views (the problem itself is in ``heat.py``)."""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

import numpy as np

import jitgrad
import jitgrad.optim
from jitgrad.kernels import registry

from . import heat
from .progress import Progress

FD_STEP = 1e-6
LR_U0, LR_THETA = 0.05, 0.1


@dataclass
class DemoResult:
    alpha: float
    alpha_true: float
    u0: np.ndarray
    u0_true: np.ndarray
    u0_start_error: float
    u0_error: float
    losses: list[float] = field(default_factory=list)
    grad_checks: list[tuple[str, float, float]] = field(default_factory=list)  # (name, autograd, fd)
    fit_seconds: float = 0.0

    @property
    def alpha_error(self) -> float:
        return abs(self.alpha - self.alpha_true) / self.alpha_true


def _relative_l2(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _leaf(lib: Any, value: Any) -> Any:
    return lib.tensor(value, dtype=lib.float64, requires_grad=True)


def _observed(lib: Any, problem: heat.HeatProblem) -> list[Any]:
    return [lib.tensor(o, dtype=lib.float64) for o in problem.observed]


def gradients(lib: Any, problem: heat.HeatProblem, u0: np.ndarray, alpha: float) -> tuple[float, float, np.ndarray]:
    """``(loss, d loss/d alpha, d loss/d u0)`` from one forward and backward pass in ``lib``."""
    u0_t, alpha_t = _leaf(lib, u0), _leaf(lib, alpha)
    loss, _ = heat.objective(lib, problem, u0_t, alpha_t, _observed(lib, problem))
    loss.backward()
    return loss.item(), alpha_t.grad.item(), np.array(u0_t.grad.numpy())


def _loss_value(problem: heat.HeatProblem, u0: np.ndarray, alpha: float, observed: list[Any]) -> float:
    with jitgrad.no_grad():
        u0_t = jitgrad.tensor(u0, dtype=jitgrad.float64)
        loss, _ = heat.objective(jitgrad, problem, u0_t, jitgrad.tensor(alpha, dtype=jitgrad.float64), observed)
    return loss.item()


def gradient_check(problem: heat.HeatProblem, u0: np.ndarray, alpha: float,
                   entries: tuple[int, ...]) -> list[tuple[str, float, float]]:
    """Autograd against central finite differences, for ``alpha`` and some ``u0`` entries."""
    _, g_alpha, g_u0 = gradients(jitgrad, problem, u0, alpha)
    observed = _observed(jitgrad, problem)
    fd = (_loss_value(problem, u0, alpha + FD_STEP, observed)
          - _loss_value(problem, u0, alpha - FD_STEP, observed)) / (2 * FD_STEP)
    checks = [("d loss / d alpha", g_alpha, fd)]
    for i in entries:
        up, down = u0.copy(), u0.copy()
        up[i] += FD_STEP
        down[i] -= FD_STEP
        fd = (_loss_value(problem, up, alpha, observed) - _loss_value(problem, down, alpha, observed)) / (2 * FD_STEP)
        checks.append((f"d loss / d u0[{i}]", float(g_u0[i]), fd))
    return checks


def fit(problem: heat.HeatProblem, iters: int, out: TextIO) -> tuple[np.ndarray, float, list[float], float]:
    """Adam on ``(u0, theta)`` from the starting guess; returns ``(u0, alpha, losses, seconds)``."""
    u0 = _leaf(jitgrad, problem.observed[0])
    theta = _leaf(jitgrad, heat.theta_of(heat.ALPHA_START))
    opt = jitgrad.optim.Adam([{"params": [u0], "lr": LR_U0}, {"params": [theta], "lr": LR_THETA}])
    observed = _observed(jitgrad, problem)
    progress = Progress(iters, out)
    losses = []
    step = compiled_objective(problem, observed)  # traced once, then replayed by Numba
    start = time.perf_counter()
    for i in range(iters):
        opt.zero_grad()
        loss, misfit, alpha = step(u0, theta)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        progress.update(i + 1, f"loss {losses[-1]:.4e}  misfit/noise^2 {misfit.item() / heat.NOISE**2:6.2f}  "
                               f"alpha {alpha.item():.4f}")
    seconds = time.perf_counter() - start
    with jitgrad.no_grad():
        alpha_final = heat.alpha_of(jitgrad, theta).item()
    return u0.detach().numpy().copy(), alpha_final, losses, seconds


def compiled_objective(problem: heat.HeatProblem, observed: list[Any]) -> Any:
    """``(loss, misfit, alpha)`` of ``(u0, theta)`` through ``jitgrad.compile``."""

    def objective(u0: Any, theta: Any) -> tuple[Any, Any, Any]:
        alpha = heat.alpha_of(jitgrad, theta)
        return (*heat.objective(jitgrad, problem, u0, alpha, observed), alpha)

    return jitgrad.compile(objective)


def _median_seconds(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm: kernels compiled/loaded, allocator and caches primed
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def compare_gradients(problem: heat.HeatProblem, u0: np.ndarray, alpha: float, out: TextIO) -> None:
    """Gradients of the identical program run by PyTorch, side by side with ours."""
    torch = _torch()
    if torch is None:
        print("  (PyTorch is not installed: no side-by-side gradient comparison)", file=out)
        return
    ours, theirs = gradients(jitgrad, problem, u0, alpha), gradients(torch, problem, u0, alpha)
    scale = max(abs(theirs[1]), float(np.abs(theirs[2]).max()))
    diff = max(abs(ours[1] - theirs[1]), float(np.abs(ours[2] - theirs[2]).max()))
    print(f"  PyTorch {torch.__version__} running the identical program: max |gradient difference| "
          f"{diff:.1e} (largest gradient {scale:.1e})", file=out)


def compare_speed(problem: heat.HeatProblem, u0: np.ndarray, alpha: float, out: TextIO, repeat: int = 5) -> None:
    """Median time of one forward+backward in jitgrad and in PyTorch, both warm."""
    torch = _torch()
    if torch is None:
        print("  PyTorch is not installed: skipping the timing (pip install torch).", file=out)
        return
    t_ours = _median_seconds(lambda: gradients(jitgrad, problem, u0, alpha), repeat)
    t_theirs = _median_seconds(lambda: gradients(torch, problem, u0, alpha), repeat)
    step = compiled_objective(problem, _observed(jitgrad, problem))
    u0_t, theta_t = _leaf(jitgrad, u0), _leaf(jitgrad, heat.theta_of(alpha))
    t_compiled = _median_seconds(lambda: step(u0_t, theta_t)[0].backward(), repeat)
    print(f"  n={problem.n}, {problem.steps} steps, median of {repeat} warm runs: jitgrad eager {t_ours * 1e3:.1f} ms, "
          f"jitgrad.compile {t_compiled * 1e3:.2f} ms, PyTorch {t_theirs * 1e3:.1f} ms (jitgrad takes "
          f"{t_ours / t_theirs:.1f}x as long eager, {t_compiled / t_theirs:.2f}x compiled)", file=out)


def _cached_kernels() -> int:
    """Compiled kernel signatures in Numba's on-disk cache (to tell compiling from loading)."""
    try:
        return len(glob.glob(os.path.join(registry.cache_dir(), "*.nbc")))
    except RuntimeError:  # a numba without the cache path: report as "loaded"
        return 0


def plot(path: str, problem: heat.HeatProblem, result: DemoResult, out: TextIO) -> bool:
    """Initial state true vs recovered, observed vs fitted snapshots, loss curve."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"  --plot {path}: matplotlib is not installed; install it with "
              "`pip install matplotlib` (or `pip install -e .[notebooks]`).", file=out)
        return False
    x = np.arange(1, problem.n - 1) / (problem.n - 1)
    with jitgrad.no_grad():
        fitted = heat.simulate(jitgrad, jitgrad.tensor(result.u0, dtype=jitgrad.float64),
                               jitgrad.tensor(result.alpha, dtype=jitgrad.float64),
                               problem.steps, problem.observe)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    axes[0].plot(x, result.u0_true, "k-", label="true u0")
    axes[0].plot(x, problem.observed[0], ":", color="gray", label="starting guess")
    axes[0].plot(x, result.u0, "C3--", label="recovered u0")
    axes[0].set_title(f"initial state (rel. L2 error {result.u0_error:.1%})")
    for i, (obs, fit_) in enumerate(zip(problem.observed, fitted)):
        axes[1].plot(x, obs, ".", ms=2, color=f"C{i}")
        axes[1].plot(x, fit_.numpy(), "-", color=f"C{i}", label=f"step {problem.observe[i]}")
    axes[1].set_title(f"snapshots: observed (dots), fitted (lines); alpha {result.alpha:.4f} "
                      f"(true {result.alpha_true})")
    axes[2].semilogy(result.losses)
    axes[2].set_title("loss")
    axes[2].set_xlabel("iteration")
    for ax in axes[:2]:
        ax.set_xlabel("x")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"  wrote {path}", file=out)
    return True


def run(n: int = 128, steps: int = 100, iters: int = 100, seed: int = 0, plot_path: str | None = None,
        out: TextIO | None = None, compare: bool = True) -> DemoResult:
    """The whole demo; prints as it goes and returns the numbers."""
    out = out if out is not None else sys.stdout
    if iters < 1:
        raise ValueError(f"demo: iters must be at least 1, got {iters}")
    problem = heat.make_problem(n, steps, seed)
    print("jitgrad demo: an inverse problem through an in-place PDE solver", file=out)
    print(f"  1-D heat equation on {n} points, {steps} explicit steps, each one in-place write into views:\n"
          "      u[1:-1] += alpha * (u[2:] - 2 * u[1:-1] + u[:-2])\n"
          f"  data: {heat.SNAPSHOTS} snapshots (after steps {', '.join(map(str, problem.observe))}) of "
          f"{len(heat.BUMPS)} diffusing Gaussian bumps, noise std {heat.NOISE}; true alpha {problem.alpha_true}\n"
          f"  unknowns: alpha = {heat.ALPHA_MAX} * sigmoid(theta) and u0 ({n - 2} values, smoothness penalty "
          f"{problem.smoothness:g}),\n  starting from alpha {heat.ALPHA_START} and u0 = the first snapshot; "
          f"Adam (lr {LR_U0} for u0, {LR_THETA} for theta)", file=out)

    print("\n1. Gradient check at the starting point, against central differences "
          f"(h = {FD_STEP:g})", file=out, flush=True)
    cached_before, start = _cached_kernels(), time.perf_counter()
    u0_start = problem.observed[0]
    peak = int(np.argmax(np.abs(u0_start)))
    checks = gradient_check(problem, u0_start, heat.ALPHA_START, (peak, (n - 2) // 8))
    for name, auto, fd in checks:
        rel = abs(auto - fd) / max(abs(fd), 1e-300)
        print(f"  {name:<18} autograd {auto: .10e}   finite diff {fd: .10e}   rel. diff {rel:.1e}", file=out)
    compiled = _cached_kernels() - cached_before
    kernels_note = (f"first run: compiled {compiled} Numba kernel signatures, cached on disk for next time"
                    if compiled > 0 else "Numba kernels loaded from the on-disk cache")
    print(f"  ({time.perf_counter() - start:.1f} s; {kernels_note})", file=out)
    if compare:
        compare_gradients(problem, u0_start, heat.ALPHA_START, out)

    print(f"\n2. Fitting: {iters} Adam iterations", file=out, flush=True)
    u0, alpha, losses, seconds = fit(problem, iters, out)
    result = DemoResult(alpha, problem.alpha_true, u0, problem.u0_true,
                        _relative_l2(u0_start, problem.u0_true), _relative_l2(u0, problem.u0_true),
                        losses, checks, seconds)
    print(f"  {iters} iterations in {seconds:.1f} s ({seconds / max(iters, 1) * 1e3:.0f} ms each); "
          f"loss {losses[0]:.4e} -> {losses[-1]:.4e}", file=out)

    print("\n3. Result", file=out)
    print(f"  alpha: recovered {alpha:.4f}, true {problem.alpha_true} (error {result.alpha_error:.2%}; "
          f"started at {heat.ALPHA_START})", file=out)
    print(f"  u0: relative L2 error {result.u0_error:.2%} (starting guess: {result.u0_start_error:.2%})", file=out)

    if compare:
        print("\n4. Speed: the same forward+backward in PyTorch", file=out, flush=True)
        compare_speed(problem, u0, alpha, out)
    if plot_path:
        plot(plot_path, problem, result, out)
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, default=128, help="grid points (default 128)")
    parser.add_argument("--steps", type=int, default=100, help="explicit time steps (default 100)")
    parser.add_argument("--iters", type=int, default=100, help="Adam iterations (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="noise seed (default 0)")
    parser.add_argument("--plot", metavar="OUT.png", help="save a figure (needs matplotlib)")


def run_from_args(args: argparse.Namespace) -> int:
    """Run with parsed ``--n/--steps/--iters/--seed/--plot``; bad sizes exit 2 with a message."""
    if args.iters < 1:
        print(f"python -m jitgrad demo: error: --iters must be at least 1, got {args.iters}", file=sys.stderr)
        return 2
    try:
        run(args.n, args.steps, args.iters, args.seed, args.plot)
    except ValueError as exc:
        print(f"python -m jitgrad {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitgrad demo", description=__doc__)
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))

if __name__ == "__main__":
    sys.exit(main())
