"""Side-by-side checks of what writing the compatibility programs (tests/compat/programs)
turned up: each runs a small piece of one program with ``lib=torch`` and ``lib=jitgrad``."""

from __future__ import annotations

import warnings

import numpy as np

import pytest

from compat_helpers import both


def _warnings_of(lib, f):
    before = lib.is_warn_always_enabled()
    lib.set_warn_always(True)  # PyTorch warns once per process otherwise
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f()
    finally:
        lib.set_warn_always(before)
    return [str(w.message).split("(Triggered")[0].strip() for w in caught]


@pytest.mark.parametrize("grad_mode", ["no_grad", "enabled"])
def test_float_of_tensor_requiring_grad_warns_only_with_grad_mode_on(grad_mode):
    """LBFGS's step calls float(loss) under no_grad: PyTorch says nothing there."""
    def program(lib):
        x = lib.tensor([2.0], dtype=lib.float64, requires_grad=True) * 3
        mode = lib.no_grad() if grad_mode == "no_grad" else lib.enable_grad()
        with mode:
            return _warnings_of(lib, lambda: (float(x), int(x), x.item()))
    both(program)


def _combined_schedule(lib, kind):
    params = [lib.zeros(2, requires_grad=True) for _ in range(2)]
    opt = lib.optim.SGD([{"params": [params[0]], "lr": 0.5}, {"params": [params[1]], "lr": 0.1}])
    sched = lib.optim.lr_scheduler
    if kind == "warmup_cosine":
        combined = sched.SequentialLR(opt, [sched.LinearLR(opt, start_factor=0.2, total_iters=3),
                                            sched.CosineAnnealingLR(opt, T_max=6, eta_min=0.01)], milestones=[3])
    elif kind == "three_phases":
        combined = sched.SequentialLR(opt, [sched.ConstantLR(opt, factor=0.5, total_iters=2),
                                            sched.ExponentialLR(opt, gamma=0.8),
                                            sched.StepLR(opt, step_size=2, gamma=0.5)], milestones=[2, 7])
    else:
        combined = sched.ChainedScheduler([sched.ExponentialLR(opt, gamma=0.9),
                                           sched.MultiStepLR(opt, milestones=[3, 6], gamma=0.5)])
    history = [combined.get_last_lr()]
    for _ in range(14):
        opt.step()
        combined.step()
        history.append(combined.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == history[-1]
    state = combined.state_dict()
    members = [sorted(k for k in s if k != "_get_lr_called_within_step") for s in state["_schedulers"]]
    return history, sorted(state), members, state["last_epoch"]  # (PyTorch's flag for a warning left out)


@pytest.mark.parametrize("kind", ["warmup_cosine", "three_phases", "chained"])
def test_sequential_and_chained_schedulers(kind):
    """logistic_sgd warms up with LinearLR, then anneals: the learning rates equal PyTorch's bit
    for bit, and so do the state_dict's keys (its members' included)."""
    both(lambda lib: _combined_schedule(lib, kind))


def test_sequential_lr_errors():
    def program(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        other = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        s = lib.optim.lr_scheduler
        errors = []
        for make in (lambda: s.SequentialLR(opt, [s.StepLR(opt, 2), s.StepLR(opt, 3)], milestones=[1, 2]),
                     lambda: s.SequentialLR(opt, [s.StepLR(opt, 2), s.StepLR(other, 3)], milestones=[1]),
                     lambda: s.ChainedScheduler([s.ReduceLROnPlateau(opt)]),
                     lambda: s.SequentialLR(opt, [], milestones=[])):
            try:
                make()
            except (TypeError, ValueError) as e:
                errors.append((type(e).__name__, str(e).split(" has ")[0]))
        return errors
    both(program)


def test_distributions_reexports_its_transforms():
    """normalizing_flow imports AffineTransform and friends from torch.distributions itself."""
    import torch

    import jitgrad

    names = set(torch.distributions.transforms.__all__) & set(dir(jitgrad.distributions.transforms))
    assert {"AffineTransform", "ComposeTransform", "Transform", "identity_transform"} <= names
    for name in names:
        assert getattr(jitgrad.distributions, name) is getattr(jitgrad.distributions.transforms, name)
        assert name in jitgrad.distributions.__all__

    def program(lib):
        d = lib.distributions
        base = d.Independent(d.Normal(lib.zeros(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64)), 1)
        shift = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        flow = d.TransformedDistribution(base, [d.AffineTransform(shift, 2.0, event_dim=1), d.ExpTransform()])
        x = lib.tensor([[1.5, 0.25], [0.5, 3.0]], dtype=lib.float64)
        lp = flow.log_prob(x)
        (grad,) = lib.autograd.grad(lp.sum(), shift)
        return lp, grad
    both(program)


def test_set_printoptions_is_public():
    def program(lib):
        lib.set_printoptions(precision=2, sci_mode=False)
        try:
            return str(lib.tensor([1.23456, 2.5e-5, 300.0]))
        finally:
            lib.set_printoptions(profile="default")
    both(program)


@pytest.mark.parametrize("dtype,norm_type", [("float64", 2.0), ("float64", 1.0), ("float64", 3.0),
                                             ("float64", float("inf")), ("float32", float("inf"))])
def test_clip_grad_norm_rounds_as_pytorch(dtype, norm_type):
    """logistic_sgd clips every step: the norm is one vector_norm per gradient then one of
    their stack, and the coefficient a tensor in the norm's dtype (float32 rounds alike; its
    finite norms are left out: PyTorch's float32 sums of powers fuse multiply-adds)."""
    def program(lib):
        dt = getattr(lib, dtype)
        ps = [lib.tensor([0.3, -1.7, 2.9], dtype=dt, requires_grad=True),
              lib.tensor([[1.1, 0.4], [-0.6, 5.3]], dtype=dt, requires_grad=True)]
        (ps[0].pow(2).sum() * 1.3 + (ps[1] * ps[1] * ps[1]).sum() * 0.7).backward()  # (no libm: float32 alike)
        total = lib.nn.utils.clip_grad_norm_(ps, 0.7, norm_type=norm_type)
        again = lib.nn.utils.get_total_norm([p.grad for p in ps], norm_type)
        lib.nn.utils.clip_grads_with_norm_(ps, 0.1, again)
        return total, again, [p.grad for p in ps], lib.nn.utils.get_total_norm([])
    both(program)


def test_stateless_functional_call_warns_and_calls():
    def program(lib):
        m = lib.nn.Linear(2, 1, dtype=lib.float64)
        w = {"weight": lib.tensor([[1.0, -2.0]], dtype=lib.float64), "bias": lib.tensor([0.5], dtype=lib.float64)}
        with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
            return lib.nn.utils.stateless.functional_call(m, w, (lib.tensor([[3.0, 1.0]], dtype=lib.float64),))
    both(program)


def _checkpointed(lib, reentrant):
    import importlib

    cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    lin = lib.nn.Linear(3, 3, dtype=lib.float64)
    seq = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2), lib.nn.Sigmoid()).double()
    with lib.no_grad():
        for k, p in enumerate(list(lin.parameters()) + list(seq.parameters())):
            p.copy_(lib.linspace(-1, 1, p.numel(), dtype=lib.float64).reshape(p.shape) * (k + 1) / 4)
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]], dtype=lib.float64, requires_grad=True)
    y = cp.checkpoint(lambda t, s: lib.tanh(lin(t)) * s, x, 2.0, use_reentrant=reentrant)
    z = cp.checkpoint_sequential(seq, 2, y, use_reentrant=reentrant)
    (z ** 2).sum().backward()
    grads = [p.grad for p in list(lin.parameters()) + list(seq.parameters())]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cp.checkpoint(lambda t: t * 2, x)
    return y, z, x.grad, grads, type(y.grad_fn).__name__, [str(w.message)[:60] for w in caught]


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_recomputes_with_pytorchs_gradients(reentrant):
    """A memory-saving script wraps blocks in torch.utils.checkpoint: values, gradients
    (parameters inside the block included) and the node equal PyTorch's."""
    from compat_helpers import both_close

    both_close(lambda lib: _checkpointed(lib, reentrant))


def _cycle(lib, kind):
    p = lib.zeros(2, requires_grad=True)
    q = lib.zeros(1, requires_grad=True)
    sched = lib.optim.lr_scheduler
    if kind.startswith("cyclic"):
        opt = (lib.optim.Adam([p, q], lr=0.1) if "adam" in kind else
               lib.optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1, momentum=0.9))
        mode = kind.split("-")[1]
        s = sched.CyclicLR(opt, base_lr=0.01, max_lr=[0.1, 0.05] if "adam" not in kind else 0.2, step_size_up=3,
                           step_size_down=5 if mode == "triangular2" else None, mode=mode, gamma=0.9)
        steps = 20
    elif kind.startswith("onecycle"):
        opt = (lib.optim.Adam([p, q], lr=0.1) if "adam" in kind else
               lib.optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1, momentum=0.9))
        s = sched.OneCycleLR(opt, max_lr=[0.5, 0.2] if "sgd" in kind else 0.3, total_steps=20,
                             anneal_strategy="linear" if "linear" in kind else "cos",
                             three_phase="three" in kind, pct_start=0.25)
        steps = 20
    else:
        opt = lib.optim.SGD([p], lr=0.1)
        s = sched.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2 if "mult" in kind else 1, eta_min=0.01)
        steps = 25
    history = []
    for _ in range(steps):
        opt.step()
        s.step()
        history.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups])
    if kind.startswith("warm"):
        s.step(7.5)
        history.append(s.get_last_lr())
    try:
        s.step()
    except ValueError as e:
        history.append(str(e))
    return history


@pytest.mark.parametrize("kind", ["onecycle-sgd", "onecycle-adam", "onecycle-linear-three-sgd", "warm",
                                  "warm-mult", "cyclic-triangular", "cyclic-triangular2", "cyclic-exp_range-adam"])
def test_onecycle_and_warm_restarts(kind):
    import warnings as w

    with w.catch_warnings():
        w.simplefilter("ignore")  # (step(epoch)'s deprecation)
        both(lambda lib: _cycle(lib, kind))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("b_shape", [(2, 3), (3, 2), (2, 3, 3), (1, 3, 4)])
def test_solve_triangular_takes_b_as_matrices(left, b_shape):
    """lu_solve's right-hand solves hit this: B of shape A.shape[:-1] is a matrix for
    solve_triangular (linalg.solve's batch-of-vectors rule is solve's alone)."""
    def program(lib):
        A = lib.tensor(np.triu(np.arange(1.0, 19.0).reshape(2, 3, 3)), dtype=lib.float64, requires_grad=True)
        B = lib.tensor(np.cos(np.arange(float(np.prod(b_shape)))).reshape(b_shape), dtype=lib.float64)
        X = lib.linalg.solve_triangular(A, B, upper=True, left=left)
        X.sum().backward()
        return X, A.grad
    from compat_helpers import both_close

    both_close(program)


def test_reshape_transform():
    def program(lib):
        d = lib.distributions
        t = d.ReshapeTransform((2, 3), (3, 2))
        base = d.Independent(d.Normal(lib.zeros(4, 2, 3, dtype=lib.float64), lib.ones(4, 2, 3, dtype=lib.float64)), 2)
        flow = d.TransformedDistribution(base, [t, d.transforms.ExpTransform()])
        x = lib.arange(24.0, dtype=lib.float64).reshape(4, 3, 2) / 10 + 0.1
        y = t(lib.arange(12.0, dtype=lib.float64).reshape(2, 2, 3))
        errors = []
        for bad in (lambda: d.ReshapeTransform((2, 3), (4, 2)), lambda: t.forward_shape((5, 3, 2))):
            try:
                bad()
            except ValueError as e:
                errors.append(str(e))
        return (flow.log_prob(x), y, t.inv(y), t.log_abs_det_jacobian(y.reshape(2, 2, 3), y), t.forward_shape((5, 2, 3)),
                t.inverse_shape((3, 2)), tuple(flow.event_shape), t.bijective, t.domain.event_dim,
                t.codomain.event_dim, errors)
    from compat_helpers import both_close

    both_close(program)
