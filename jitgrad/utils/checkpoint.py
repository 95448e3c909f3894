"""``torch.utils.checkpoint``: ``checkpoint(function, *args, use_reentrant=...)`` and
``checkpoint_sequential``.

``use_reentrant=False`` runs ``function`` as usual: the values, gradients and graph are
those of the plain call (PyTorch's non-reentrant checkpoint records that same graph and
only frees the activations, which jitgrad does not do). ``use_reentrant=True`` (PyTorch's
default when the argument is left out, with its warning) is PyTorch's
``CheckpointFunction``: ``function`` runs under ``no_grad``, and the backward runs it
again under ``enable_grad`` from the saved inputs, with the random state of the first run,
and backpropagates through that second graph (a backward inside the backward), so the
parameters it uses get their gradients there. As PyTorch's, it refuses to run inside
``autograd.grad`` or ``backward(inputs=...)`` (its nested ``backward`` would accumulate into
``.grad`` what was asked to be returned).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..autograd import Function, backward, enable_grad, is_grad_enabled, no_grad
from ..autograd.grad_mode import is_checkpoint_valid
from ..rng_state import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        if not is_checkpoint_valid():  # (PyTorch's contract: its nested backward would lose the inputs asked for)
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument.")
        args = list(ctx.others)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[i] = t.detach().requires_grad_(t.requires_grad)
        current = None
        if ctx.rng_state is not None:
            current = get_rng_state()
            set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            if current is not None:
                set_rng_state(current)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in args)


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, recomputed in the backward when ``use_reentrant``."""
    for key in ("context_fn", "determinism_check", "debug", "early_stop"):
        kwargs.pop(key, None)
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            UserWarning, stacklevel=2)
        use_reentrant = True
    if not use_reentrant:
        return function(*args, **kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=2)
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Run ``functions`` (a Sequential or a list of modules) in ``segments`` chunks, every
    chunk but the last through ``checkpoint``."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
            "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
            "two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    modules = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(modules) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        chunk = modules[start:end + 1]

        def run(x: Any, chunk: list[Any] = chunk) -> Any:
            for m in chunk:
                x = m(x)
            return x

        input = checkpoint(run, input, use_reentrant=use_reentrant, **kwargs)
    for m in modules[end + 1:]:
        input = m(input)
    return input
