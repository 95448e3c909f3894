"""Forward, backward and double backward of one program on jitgrad and on PyTorch, compared.

``check(program, *arrays)`` runs ``program(lib, *tensors)`` on both libraries with the same
data (floating arrays become leaves that require grad), then compares

1. the forward outputs (shape, dtype, values; nan where PyTorch has nan),
2. the gradients of ``sum(out * v)`` for one seeded random ``v`` (``autograd.grad``), and
3. with ``double=True``, the gradients of ``sum(grads * w)`` with respect to the inputs and
   ``v`` (what ``create_graph=True`` makes possible), against PyTorch's.

Tolerances are tight: float64 agrees to ~1e-12 relative (BLAS and summation order differ).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

import jitgrad
from jitgrad.autograd import grad as jgrad

RTOL = {np.dtype(np.float64): 1e-11, np.dtype(np.float32): 2e-5}


def _name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def leaves(lib: Any, arrays: tuple[np.ndarray, ...]) -> list[Any]:
    out = []
    for a in arrays:
        t = lib.from_numpy(np.array(a, copy=True))
        if a.dtype.kind == "f":
            t.requires_grad_(True)
        out.append(t)
    return out


def assert_close(ours: Any, theirs: Any, what: str = "", rtol: float | None = None) -> None:
    assert isinstance(ours, jitgrad.Tensor), f"{what}: expected a jitgrad.Tensor, got {type(ours)}"
    assert tuple(ours.shape) == tuple(theirs.shape), (what, tuple(ours.shape), tuple(theirs.shape))
    assert ours.dtype.name == _name(theirs.dtype), (what, ours.dtype.name, theirs.dtype)
    expected = theirs.detach().numpy()
    if rtol is None:
        rtol = RTOL.get(ours.dtype, 0.0)
    np.testing.assert_allclose(ours.detach().numpy(), expected, rtol=rtol, atol=rtol, equal_nan=True, err_msg=what)


def check(
    program: Callable[..., Any],
    *arrays: np.ndarray,
    double: bool = True,
    seed: int = 0,
    rtol: float | None = None,
) -> tuple[Any, Any]:
    """Compare ``program`` on jitgrad and PyTorch: forward, gradients, second derivatives.
    Returns both forward results."""
    ours_in, theirs_in = leaves(jitgrad, arrays), leaves(torch, arrays)
    ours, theirs = program(jitgrad, *ours_in), program(torch, *theirs_in)
    ours_list = list(ours) if isinstance(ours, (tuple, list)) else [ours]
    theirs_list = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    assert len(ours_list) == len(theirs_list)
    for k, (a, b) in enumerate(zip(ours_list, theirs_list)):
        assert_close(a, b, f"output {k}", rtol)
        assert bool(a.requires_grad) == bool(b.requires_grad), f"output {k} requires_grad"

    diff = [i for i, t in enumerate(theirs_in) if t.requires_grad]
    outs_t = [o for o in theirs_list if o.requires_grad]
    outs_j = [o for o in ours_list if o.requires_grad]
    if not diff or not outs_t:
        return ours, theirs
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(tuple(o.shape)).astype(_name(o.dtype)) for o in outs_t]
    v_t = [torch.from_numpy(v.copy()).requires_grad_(double) for v in vs]
    v_j = [jitgrad.from_numpy(v.copy()).requires_grad_(double) for v in vs]
    g_t = torch.autograd.grad(
        outs_t, [theirs_in[i] for i in diff], v_t, create_graph=double, allow_unused=True
    )
    g_j = jgrad(outs_j, [ours_in[i] for i in diff], v_j, create_graph=double, allow_unused=True)
    for i, a, b in zip(diff, g_j, g_t):
        if b is None:
            assert a is None or not a.detach().numpy().any(), f"grad {i}: PyTorch has none"
            continue
        assert a is not None, f"grad {i}: jitgrad has none, PyTorch has one"
        assert_close(a, b, f"grad of input {i}", rtol)
    if not double:
        return ours, theirs

    pairs = [(a, b) for a, b in zip(g_j, g_t) if b is not None and b.requires_grad]
    if not pairs:
        return ours, theirs
    ws = [rng.standard_normal(tuple(b.shape)).astype(_name(b.dtype)) for _, b in pairs]
    s_t = sum((b * torch.from_numpy(w)).sum() for (_, b), w in zip(pairs, ws))
    s_j = None
    for (a, _), w in zip(pairs, ws):
        term = (a * jitgrad.from_numpy(w)).sum()
        s_j = term if s_j is None else s_j + term
    targets_t = [theirs_in[i] for i in diff] + v_t
    targets_j = [ours_in[i] for i in diff] + v_j
    gg_t = torch.autograd.grad(s_t, targets_t, allow_unused=True)
    gg_j = jgrad(s_j, targets_j, allow_unused=True)
    for k, (a, b) in enumerate(zip(gg_j, gg_t)):
        if b is None:
            assert a is None or not a.detach().numpy().any(), f"second-order grad {k}: PyTorch has none"
            continue
        if a is None:  # jitgrad's graph proves it zero; PyTorch may compute the zeros
            assert not b.detach().numpy().any(), f"second-order grad {k}: jitgrad has none"
            continue
        assert_close(a, b, f"second-order grad {k}", rtol)
    return ours, theirs


def check_error(program: Callable[..., Any], *arrays: np.ndarray) -> BaseException:
    """Both libraries raise the same built-in error family, and jitgrad's inputs (data and
    version counters) are unchanged afterwards."""
    ours_in = leaves(jitgrad, arrays)
    before = [(t.detach().numpy().copy(), t._version) for t in ours_in]
    errors = []
    for lib, inputs in ((jitgrad, ours_in), (torch, leaves(torch, arrays))):
        try:
            program(lib, *inputs)
        except (IndexError, ValueError, TypeError, RuntimeError) as exc:
            errors.append(exc)
        else:
            raise AssertionError(f"{lib.__name__} did not raise")
    ours, theirs = errors
    for family in (IndexError, ValueError, TypeError, RuntimeError):
        if isinstance(theirs, family):
            assert isinstance(ours, family), f"jitgrad raised {ours!r}, PyTorch raised {theirs!r}"
            break
    for t, (data, version) in zip(ours_in, before):
        np.testing.assert_array_equal(t.detach().numpy(), data)
        assert t._version == version
        assert t.grad is None
    return ours
