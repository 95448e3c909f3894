"""``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian``:
PyTorch's ``torch.func`` transforms on jitgrad's autograd (each call one ``Level``, see
``_levels``). Forward-mode products (``jvp``, ``jacfwd``) are computed in reverse mode
(``jvp`` by the double-vjp trick: the gradient of a vjp with respect to its cotangent);
their values equal PyTorch's up to rounding."""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..autograd import grad_mode
from ..creation import ones_like, zeros
from ..ops.stacking import stack
from ..tensor import Tensor
from . import _pytree
from ._levels import Level, grads_of


def _argnums_tuple(argnums: Any, nargs: int, fn_name: str) -> tuple[int, ...]:
    many = isinstance(argnums, tuple)
    nums = argnums if many else (argnums,)
    if not nums or not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
        raise RuntimeError(f"{fn_name}: argnums must be int or Tuple[int, ...], got: {argnums!r}")
    out = []
    for n in nums:
        if not -nargs <= n < nargs:
            raise RuntimeError(
                f"{fn_name}: Got argnums={n}, but only {nargs} positional inputs"
            )
        out.append(n % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{fn_name}: argnums must be unique, got {argnums!r}")
    return tuple(out)


def _enter_args(level: Level, args: tuple[Any, ...], argnums: Any, fn_name: str
                ) -> tuple[list[Any], list[Tensor], list[Any]]:
    """The arguments with the differentiated ones entered into ``level``; the entered
    tensors in order; the spec of each differentiated argument."""
    nums = _argnums_tuple(argnums, len(args), fn_name)
    new_args = list(args)
    flat: list[Tensor] = []
    specs: list[Any] = []
    for n in nums:
        leaves, spec = _pytree.tree_flatten(args[n])
        entered = [level.enter(x, fn_name) for x in leaves]
        flat.extend(entered)
        specs.append((spec, len(entered)))
        new_args[n] = _pytree.tree_unflatten(entered, spec)
    return new_args, flat, specs


def _regroup(values: list[Any], specs: list[Any], argnums: Any) -> Any:
    """Per-argument trees from ``values`` (in ``_enter_args``'s order)."""
    out, i = [], 0
    for spec, n in specs:
        out.append(_pytree.tree_unflatten(values[i:i + n], spec))
        i += n
    return tuple(out) if isinstance(argnums, tuple) else out[0]


def _split_aux(output: Any, has_aux: bool, fn_name: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{fn_name}(f)(*args): output of function f should be a tuple: (output, aux) "
            "if has_aux is True"
        )
    return output


def grad_and_value(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``grad_and_value(f)(*args)``: ``(gradient of f's scalar output w.r.t. args[argnums],
    f's output)`` (``((gradient), (output, aux))`` with ``has_aux``)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        level = Level()
        with grad_mode.enable_grad():
            new_args, flat, specs = _enter_args(level, args, argnums, "grad_and_value(f)(*args)")
            output, aux = _split_aux(func(*new_args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(output)}"
                )
            if output.dim() != 0:  # type: ignore[attr-defined]
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "  # type: ignore[attr-defined]
                    "APIs instead?"
                )
            grads = grads_of([output], flat, None)
        result = level.leave(_regroup(grads, specs, argnums))
        value = level.leave(output)
        return (result, (value, level.leave(aux))) if has_aux else (result, value)
    return wrapper


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """``grad(f)(*args)``: the gradient of ``f``'s scalar output w.r.t. ``args[argnums]``
    (with ``has_aux``: ``(gradient, aux)``)."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = inner(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``(output, vjp_fn)`` (and ``aux``): ``vjp_fn(cotangents)`` gives the vector-Jacobian
    product with respect to every primal, as a tuple."""
    level = Level()
    with grad_mode.enable_grad():
        entered = [_pytree.tree_map(lambda x: level.enter(x, "vjp(f, *primals)"), p) for p in primals]
        output, aux = _split_aux(func(*entered), has_aux, "vjp")
    out_leaves, out_spec = _pytree.tree_flatten(output)
    for leaf in out_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"vjp(f, *primals): Expected f to be a function that has non-empty output and "
                f"returns Tensors, got {type(leaf)}"
            )
    flat_in, in_specs = [], []
    for p in entered:
        leaves, spec = _pytree.tree_flatten(p)
        flat_in.extend(leaves)
        in_specs.append((spec, len(leaves)))

    def vjp_fn(cotangents: Any, *, retain_graph: bool = True, create_graph: bool | None = None) -> tuple[Any, ...]:
        cot_leaves, cot_spec = _pytree.tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}"
            )
        for c, o in zip(cot_leaves, out_leaves):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] "
                    f"has a shape of {o.shape}."
                )
        with grad_mode.enable_grad():
            grads = grads_of(out_leaves, flat_in, cot_leaves)
        return tuple(level.leave(_regroup(grads, in_specs, tuple(range(len(in_specs))))))

    result = (level.leave(output), vjp_fn)
    return (*result, level.leave(aux)) if has_aux else result


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> Any:
    """``(output, jvp_out)``: the Jacobian of ``func`` at ``primals`` times ``tangents``."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to be tuples, e.g. "
            "jvp(f, (x,), (t,))"
        )
    p_leaves, p_spec = _pytree.tree_flatten(primals)
    t_leaves, t_spec = _pytree.tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {p_spec} and tangents with structure {t_spec}"
        )
    for p, t in zip(p_leaves, t_leaves):
        if isinstance(p, Tensor) and isinstance(t, Tensor) and tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "jvp(f, primals, tangents): Expected primals and tangents to have the same shape, "
                f"got {list(p.shape)} and {list(t.shape)}"
            )
    level = Level()
    with grad_mode.enable_grad():
        entered = [level.enter(x, "jvp(f, primals, tangents)") for x in p_leaves]
        output, aux = _split_aux(func(*_pytree.tree_unflatten(entered, p_spec)), has_aux, "jvp")
        out_leaves, out_spec = _pytree.tree_flatten(output)
        # the double-vjp trick: u -> J^T u is linear in u; its vjp with the tangents is J t.
        # At u = ones, not zeros: a backward may take log |u| (logcumsumexp's), whose
        # derivative at 0 is NaN (PyTorch's forward AD has no such dummy: it gives J t)
        dummies = [ones_like(o).requires_grad_() for o in out_leaves]  # type: ignore[attr-defined]
        level.private.update(id(d) for d in dummies)
        pulled = grads_of(out_leaves, entered, dummies)
        pushed = grads_of(pulled, dummies, list(t_leaves))
    result = (level.leave(output), level.leave(_pytree.tree_unflatten(pushed, out_spec)))
    return (*result, level.leave(aux)) if has_aux else result


def jacrev(func: Callable[..., Any], argnums: Any = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """``jacrev(f)(*args)``: the Jacobian of ``f`` w.r.t. ``args[argnums]``, one row per output
    element (each output's shape followed by each input's)."""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        level = Level()
        with grad_mode.enable_grad():
            new_args, flat, specs = _enter_args(level, args, argnums, "jacrev")
            output, aux = _split_aux(func(*new_args, **kwargs), has_aux, "jacrev")
            out_leaves, out_spec = _pytree.tree_flatten(output)
            per_output = []
            for o in out_leaves:
                if not isinstance(o, Tensor):
                    raise RuntimeError(
                        f"jacrev(f, ...)(*args): expected f(*args) to return only tensors, got "
                        f"unsupported type {type(o)}"
                    )
                per_output.append(_regroup(_jacobian(o, flat), specs, argnums))
        result = level.leave(_pytree.tree_unflatten(per_output, out_spec))
        return (result, level.leave(aux)) if has_aux else result
    return wrapper


def _jacobian(o: Tensor, inputs: list[Tensor]) -> list[Tensor]:
    """d o / d input for each input: ``o.shape + input.shape``, one backward per element."""
    n = o.numel()  # type: ignore[attr-defined]
    flat_o = o.reshape(-1)  # type: ignore[attr-defined]
    rows: list[list[Tensor]] = [[] for _ in inputs]
    for k in range(n):
        for i, g in enumerate(grads_of([flat_o[k]], inputs, None)):
            rows[i].append(g)
    out = []
    for x, r in zip(inputs, rows):
        if n:
            jac = stack(r).reshape(tuple(o.shape) + tuple(x.shape))  # type: ignore[attr-defined]
        else:
            jac = zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
        out.append(jac)
    return out


def jacfwd(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """``jacfwd(f)(*args)``: the same Jacobian as ``jacrev`` (computed in reverse mode here)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """``hessian(f)(*args)``: the Jacobian of the Jacobian of ``f`` w.r.t. ``args[argnums]``."""
    return jacfwd(jacrev(func, argnums), argnums)
