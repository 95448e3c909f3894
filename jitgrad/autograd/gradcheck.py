"""``gradcheck`` / ``gradgradcheck``: analytical gradients against central finite
differences, in float64, as PyTorch's (reverse mode, one vector-Jacobian product per
output element)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..tensor import Tensor
from . import engine


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical Jacobians differ."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> tuple[Tensor, ...]:
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor))


def _numerical(fn: Callable[..., Any], inputs: Sequence[Any], i: int, eps: float) -> list[np.ndarray]:
    """d(outputs)/d(inputs[i]) by central differences: one (numel_out, numel_in) matrix per output."""
    x = inputs[i]
    data = x.numpy()
    flat_index = list(np.ndindex(*data.shape)) if data.ndim else [()]
    # not under no_grad: for gradgradcheck, ``fn`` itself runs a backward pass
    outs = _outputs(fn, inputs)
    jac = [np.zeros((o.numel(), len(flat_index))) for o in outs]
    for col, idx in enumerate(flat_index):
        orig = data[idx].copy()
        data[idx] = orig + eps
        plus = [_values(o) for o in _outputs(fn, inputs)]
        data[idx] = orig - eps
        minus = [_values(o) for o in _outputs(fn, inputs)]
        data[idx] = orig
        for k in range(len(outs)):
            jac[k][:, col] = (plus[k] - minus[k]) / (2 * eps)
    return jac


def _values(t: Tensor) -> np.ndarray:
    return t.numpy().astype(np.float64).ravel().copy()


def _analytical(fn: Callable[..., Any], inputs: Sequence[Any], diff: list[int]) -> list[list[np.ndarray]]:
    """jac[k][j]: d(output k)/d(inputs[diff[j]]), rows by output element."""
    from ..creation import zeros

    outs = _outputs(fn, inputs)
    result = [[np.zeros((o.numel(), inputs[i].numel())) for i in diff] for o in outs]
    for k, out in enumerate(outs):
        if not out.requires_grad:  # type: ignore[attr-defined]
            continue
        for row in range(out.numel()):
            grad_out = zeros(out.shape, dtype=out.dtype)
            grad_out.numpy().reshape(-1)[row] = 1.0
            grads = engine.grad(
                [out], [inputs[i] for i in diff], [grad_out], retain_graph=True, allow_unused=True
            )
            for j, g in enumerate(grads):
                if g is not None:
                    result[k][j][row, :] = g.numpy().astype(np.float64).ravel()
    return result


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` (float64 tensors that require grad)."""
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]  # type: ignore[attr-defined]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in diff:
        if inputs[i].dtype != np.float64:
            raise ValueError(
                f"gradcheck: input {i} has dtype {inputs[i].dtype.name}; expected float64 "
                "(finite differences are too inexact in float32)"
            )
    analytical = _analytical(func, inputs, diff)
    for j, i in enumerate(diff):
        numerical = _numerical(func, inputs, i, eps)
        for k, (num, ana) in enumerate(zip(numerical, (a[j] for a in analytical))):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: gradcheck of the vector-Jacobian product of ``func``."""
    from ..randomness import randn

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(
            randn(o.shape, dtype=np.float64, requires_grad=True) for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]  # type: ignore[attr-defined]
    n = len(inputs)

    def vjp(*args: Any) -> tuple[Tensor, ...]:
        ins, gos = args[:n], args[n:]
        outs = _outputs(func, ins)
        grads = engine.grad(
            list(outs), [ins[i] for i in diff], list(gos), create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        vjp, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
        raise_exception=raise_exception,
    )
