"""``gradcheck`` / ``gradgradcheck``: analytical gradients against central finite
differences, in float64, as PyTorch's (reverse mode, one vector-Jacobian product per
output element)."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from ..tensor import Tensor
from . import engine
from .function import Function


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical Jacobians differ."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> tuple[Tensor, ...]:
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor))


def _numerical(fn: Callable[..., Any], inputs: Sequence[Any], i: int, eps: float) -> list[np.ndarray]:
    """d(outputs)/d(inputs[i]) by central differences: one (numel_out, numel_in) matrix per output."""
    x = inputs[i]
    data = x._numpy()
    flat_index = list(np.ndindex(*data.shape)) if data.ndim else [()]
    # not under no_grad: for gradgradcheck, ``fn`` itself runs a backward pass
    outs = _outputs(fn, inputs)
    jac = [np.zeros((o.numel(), len(flat_index))) for o in outs]
    for col, idx in enumerate(flat_index):
        orig = data[idx].copy()
        data[idx] = orig + eps
        plus = _perturbed(fn, inputs, outs, eps)
        data[idx] = orig - eps
        minus = _perturbed(fn, inputs, outs, eps)
        data[idx] = orig
        for k in range(len(outs)):
            jac[k][:, col] = (plus[k] - minus[k]) / (2 * eps)
    return jac


def _perturbed(fn: Callable[..., Any], inputs: Sequence[Any], outs: Sequence[Tensor], eps: float) -> list[np.ndarray]:
    """The outputs at perturbed inputs, which must keep the shapes and dtypes of ``outs``
    (PyTorch's ``_check_outputs_same_dtype_and_shape``)."""
    new = _outputs(fn, inputs)
    for a, b in zip(outs, new):
        if a.shape != b.shape:
            raise AssertionError(
                "Expected `func` to return outputs with the same shape when inputs are "
                f"perturbed by {eps}, but got: shapes {a.shape} and {b.shape}."
            )
        if a.dtype != b.dtype:
            raise AssertionError(
                "Expected `func` to return outputs with the same dtype when inputs are "
                f"perturbed by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
            )
    return [_values(o) for o in new]


def _values(t: Tensor) -> np.ndarray:
    return t._numpy().astype(np.float64).ravel().copy()


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
            grad_out._numpy().reshape(-1)[row] = 1.0
            grads = engine.grad(
                [out], [inputs[i] for i in diff], [grad_out], retain_graph=True, allow_unused=True
            )
            for j, g in enumerate(grads):
                if g is not None:
                    result[k][j][row, :] = g._numpy().astype(np.float64).ravel()
    return result


_NONDET = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {}."
)


def _unsupported(**options: bool) -> None:
    for name, wanted in options.items():
        if wanted:
            raise NotImplementedError(f"gradcheck: {name}=True is not supported (jitgrad has "
                                      "no forward-mode AD and no batched gradients)")


def _check_inputs(inputs: Sequence[Any]) -> list[int]:
    """PyTorch's ``_check_inputs``: the indices of the inputs that require grad."""
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]  # type: ignore[attr-defined]
    for i in diff:
        x = inputs[i]
        if x.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning, stacklevel=4,
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(x.stride(), x.shape)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    return diff


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` (tensors that require grad, best in
    float64) against central finite differences, as PyTorch's slow mode: every element of
    the Jacobian of each differentiable output, computed twice to check that backward is
    deterministic (up to ``nondet_tol``). ``fast_mode`` runs the same (exact) check;
    ``check_undefined_grad`` then runs backward with undefined (None) output gradients
    (``_check_undefined_grad``); forward-mode and batched checks are not supported. Only a
    ``GradcheckError`` becomes ``False`` with ``raise_exception=False``."""
    _unsupported(check_forward_ad=check_forward_ad, check_batched_grad=check_batched_grad,
                 check_batched_forward_grad=check_batched_forward_grad)
    inputs = _as_tuple(inputs)
    try:
        _gradcheck(func, inputs, eps, atol, rtol, nondet_tol)
        if check_undefined_grad and check_backward_ad:
            _check_undefined_grad(func, inputs)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func: Callable[..., Any], inputs: tuple[Any, ...], eps: float, atol: float,
               rtol: float, nondet_tol: float) -> bool:
    diff = _check_inputs(inputs)
    outs = _outputs(func, inputs)
    differentiable = [k for k, o in enumerate(outs) if o.requires_grad]  # type: ignore[attr-defined]
    numerical = {i: _numerical(func, inputs, i, eps) for i in diff}
    if not differentiable:  # every numerical derivative must then be zero
        if any(np.any(jac != 0) for jacs in numerical.values() for jac in jacs):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    analytical = _analytical(func, inputs, diff)
    again = _analytical(func, inputs, diff)
    for pos, k in enumerate(differentiable):  # PyTorch counts differentiable outputs only
        for first, second in zip(analytical[k], again[k]):
            if first.size and np.max(np.abs(first - second)) > nondet_tol:
                raise GradcheckError(_NONDET.format(nondet_tol))
        for j, i in enumerate(diff):
            num, ana = numerical[i][k], analytical[k][j]
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {pos} with respect to input {i},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )
    return True


class _UndefinedGrad(Function):
    """A copy of its input whose backward gives an undefined (None) gradient (PyTorch's
    ``torch._C._functions.UndefinedGrad``)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return x.clone()  # type: ignore[attr-defined,no-any-return]

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


_BC_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, "
    'you can call this function with "check_undefined_grad=False" to disable the feature'
)


def _check_undefined_grad(func: Callable[..., Any], inputs: tuple[Any, ...]) -> None:
    """PyTorch's ``_test_undefined_backward_mode``: a backward whose output gradients are all
    undefined, then (with several outputs) one at a time, must run and give gradients that
    are undefined or zero."""
    from ..creation import zeros_like

    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]  # type: ignore[attr-defined]

    def differentiable() -> list[Tensor]:
        return [o for o in _outputs(func, inputs) if o.requires_grad]  # type: ignore[attr-defined]

    cases = [[_UndefinedGrad.apply(o) for o in differentiable()]]
    if len(cases[0]) > 1:
        for k in range(len(cases[0])):
            cases.append([_UndefinedGrad.apply(o) if j == k else o for j, o in enumerate(differentiable())])
    for outs in cases:
        try:
            grads = engine.grad(outs, wrt, [zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as e:
            warnings.warn(_BC_WARNING, UserWarning, stacklevel=4)
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        if any(g is not None and not bool((g == 0).all()) for g in grads):
            warnings.warn(_BC_WARNING, UserWarning, stacklevel=4)
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            )


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    gen_non_contig_grad_outputs: bool = False,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of the vector-Jacobian product of ``func``."""
    from ..randomness import randn

    _unsupported(check_fwd_over_rev=check_fwd_over_rev, check_batched_grad=check_batched_grad)
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
        raise_exception=raise_exception, nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
    )
