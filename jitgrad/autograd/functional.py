"""``jitgrad.autograd.functional``: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``,
``vhp`` with ``torch.autograd.functional``'s signatures, options, output structures and
strict-mode errors, all built on ``autograd.grad``.

Where this module sits: it lives at PyTorch's path, but it is a client of autograd, not part
of it. It needs ops (``stack`` to assemble Jacobians, views to reshape them), which the
autograd core (nodes, engine, ``graph.py``) must never import. So ``autograd/__init__.py``
does not import this module: ``jitgrad/__init__.py`` does, after the ops layer is loaded, and
importing ``jitgrad.autograd.functional`` directly first runs ``jitgrad/__init__.py`` anyway.
The dependency is one-way (this module -> ops -> autograd core), like any API-layer module.

Forward-mode AD does not exist in jitgrad: ``jvp`` and ``hvp`` use the double-backward trick
(as PyTorch's do), ``vectorize=True`` computes the same result row by row, and the
``"forward-mode"`` strategies raise as PyTorch does without ``vectorize``, and otherwise
fall back to reverse mode (same values).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..creation import zeros_like
from ..ops.stacking import stack
from ..tensor import Tensor
from .engine import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(el).__name__}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the given {arg_name} has type {type(el).__name__}."
            )
    return is_tuple, tuple(items)


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: Sequence[Tensor], create_graph: bool, need_graph: bool) -> tuple[Tensor, ...]:
    """Fresh leaves (or, with ``create_graph``, differentiable aliases) of the inputs."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:  # type: ignore[attr-defined]
            res.append(inp.view_as(inp))  # type: ignore[attr-defined]
        else:
            res.append(inp.detach().requires_grad_(need_graph))  # type: ignore[attr-defined]
    return tuple(res)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    if not inputs:
        return inputs
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)  # type: ignore[attr-defined]
    return tuple(_grad_postprocess(t, create_graph) for t in inputs)


def _validate_v(v: Sequence[Tensor], other: Sequence[Tensor], is_other_tuple: bool) -> None:
    if len(other) != len(v):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.shape} but got {el_v.shape}."
            )


_NOT_DIFFERENTIABLE = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
    "independent of the input. This is not allowed in strict mode. You should ensure that your "
    "function is thrice differentiable and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
    "function with respect to input {i} is independent of the input. This is not allowed in "
    "strict mode. You should ensure that your function is twice differentiable and that the "
    "jacobian depends on the inputs (this would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs "
    "must be computed in a differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(inputs: Sequence[Tensor | None], input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not inp.requires_grad:  # type: ignore[attr-defined]
            raise RuntimeError(_NOT_DIFFERENTIABLE[input_type].format(i=i))


def _autograd_grad(outputs: Sequence[Tensor], inputs: Sequence[Tensor],
                   grad_outputs: Sequence[Tensor | None] | None = None, create_graph: bool = False,
                   retain_graph: bool | None = None) -> tuple[Tensor | None, ...]:
    """``autograd.grad`` over the outputs that require grad (None everywhere if none do)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [
        (o, g) for o, g in zip(outputs, grad_outputs)
        if o is not None and o.requires_grad  # type: ignore[attr-defined]
    ]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(
        [o for o, _ in pairs], list(inputs), [g for _, g in pairs], allow_unused=True,
        create_graph=create_graph, retain_graph=retain_graph,
    )


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: Sequence[Tensor | None], refs: Sequence[Tensor], strict: bool,
                   create_graph: bool, stage: str) -> tuple[Tensor, ...]:
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:  # type: ignore[attr-defined]
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        res.append(g)
    return tuple(res)


def _prepare_v(v: Any, name: str, against: Sequence[Tensor], is_tuple: bool, create_graph: bool,
               single: str) -> tuple[Tensor, ...] | None:
    """``v`` as a validated tuple of detached tensors; None is allowed when ``against`` is one
    single-element tensor (``single`` names it in the error)."""
    if v is None:
        if len(against) != 1 or against[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the {single} a single Tensor with a "
                "single element."
            )
        return None
    _, vs = _as_tuple(v, "v", name)
    vs = _grad_preprocess(vs, create_graph=create_graph, need_graph=False)
    _validate_v(vs, against, is_tuple)
    return vs


def _last_grad(outputs: Sequence[Tensor | None], inputs: Sequence[Tensor], v: Any,
               refs: Sequence[Tensor], create_graph: bool, strict: bool, stage: str) -> tuple[Tensor, ...]:
    """The final ``autograd.grad`` of each function, zeros filled in (grad mode kept unless
    ``create_graph``)."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)  # type: ignore[arg-type]
        return _fill_in_zeros(grad_res, refs, strict, create_graph, stage)


def _results(outputs: Any, result: Any, create_graph: bool, outputs_tuple: bool,
             result_tuple: bool) -> tuple[Any, Any]:
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, outputs_tuple), _tuple_postprocess(result, result_tuple)


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: a vector-Jacobian product."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, "vjp", outputs, is_outputs_tuple, create_graph,
                       "user-provided function returns")
        result = _last_grad(outputs, inputs, v, inputs, create_graph, strict, "back")
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: a Jacobian-vector product (by the double-backward trick)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, "jvp", inputs, is_inputs_tuple, create_graph,
                       "input to the user-provided function is")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
        result = _last_grad(grad_inputs, grad_outputs, v, outputs, create_graph, strict, "back_trick")
    return _results(outputs, result, create_graph, is_outputs_tuple, is_outputs_tuple)


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` of shape ``out_i.shape + in_j.shape``,
    unpacked to a single tensor / single tuple level where ``func``'s output / ``inputs`` is a
    single tensor, as PyTorch does."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has a single output, you may want to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian does not support create_graph=True with "
                "strategy=forward-mode"
            )
        if not vectorize:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `strategy="forward-mode"` only works when '
                "`vectorize=True`."
            )
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        jac: tuple[tuple[Tensor, ...], ...] = ()
        for i, out in enumerate(outputs):
            rows: tuple[list[Tensor], ...] = tuple([] for _ in inputs)
            flat = out.reshape(-1)  # type: ignore[attr-defined]
            for j in range(out.numel()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:  # type: ignore[attr-defined]
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when create_graph=True."
                            )
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        row.append(zeros_like(inp))
            jac += (tuple(
                _assemble(row, tuple(out.shape) + tuple(inputs[k].shape), inputs[k])
                for k, row in enumerate(rows)
            ),)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _assemble(rows: list[Tensor], shape: tuple[int, ...], like: Tensor) -> Tensor:
    if not rows:  # an empty output: an empty Jacobian block
        return zeros_like(like).reshape(-1)[:0].reshape(shape)  # type: ignore[attr-defined,no-any-return]
    return stack(rows, 0).view(shape)  # type: ignore[attr-defined,no-any-return]


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: ``H[i][j]`` of shape ``in_i.shape + in_j.shape``."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()  # type: ignore[attr-defined,no-any-return]

    def jac_func(*inp: Tensor) -> Any:
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    # no forward mode here: the outer Jacobian is taken in reverse mode either way (same
    # values); "forward-mode" without vectorize raises inside ``jacobian`` as in PyTorch
    strategy = outer_jacobian_strategy if not vectorize else "reverse-mode"
    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order(name: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool,
                  strict: bool) -> tuple[Any, ...]:
    """What ``vhp`` and ``hvp`` share: inputs, v, the scalar output and its gradient."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prepare_v(v, name, inputs, is_inputs_tuple, create_graph,
                   "input to the user-provided function is")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)`` for a scalar ``func``."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _second_order(
            "vhp", func, inputs, v, create_graph, strict
        )
    result = _last_grad(jac, inputs, v, inputs, create_graph, strict, "double_back")
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), H v)`` for a scalar ``func`` (by the double-backward trick)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _second_order(
            "hvp", func, inputs, v, create_graph, strict
        )
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)  # type: ignore[arg-type]
        _check_requires_grad(jac, "hessian", strict=strict)
    result = _last_grad(double_back, grad_jac, v, inputs, create_graph, strict, "double_back_trick")
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)
