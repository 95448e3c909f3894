"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts,
as ``torch.optim.Optimizer``. Subclasses implement ``step`` and update leaves in place
under ``no_grad`` (each in-place write bumps the leaf's version counter, as in PyTorch)."""

from __future__ import annotations

import copy
import warnings
import functools
import itertools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Union

from .. import dtypes
from ..autograd import enable_grad, no_grad
from ..autograd.node import RemovableHandle, add_hook
from ..tensor import Tensor

ParamsT = Union[Iterable[Tensor], Iterable[dict[str, Any]]]


class _RequiredParameter:
    """Marks a hyperparameter every param group must set (``torch.optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _RequiredParameter()


def _get_scalar_dtype(is_fused: bool | None = None) -> Any:
    """PyTorch's dtype of an optimizer's scalar state (``step``, NAdam's ``mu_product``,
    ASGD's ``eta``/``mu``): float64 when that is the default dtype, else float32; always
    float32 for a fused step."""
    if is_fused:
        return dtypes.float32
    return dtypes.float64 if dtypes.DEFAULT_FLOAT == dtypes.float64 else dtypes.float32


def with_flags(defaults: dict[str, Any], **flags: Any) -> dict[str, Any]:
    """``defaults`` with PyTorch's implementation flags that the optimizer takes (``foreach``,
    ``fused``, ``capturable``, ``differentiable``), so ``param_groups`` and ``state_dict``
    hold the same keys as PyTorch's. jitgrad has one implementation, the single-tensor
    update; ``step`` refuses what it cannot honour (see ``_check_flags``)."""
    if flags.get("fused") and flags.get("foreach"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    return {**defaults, **flags}


def _check_flags(group: dict[str, Any], captured: str) -> None:
    if group.get("capturable"):  # (PyTorch's check: no device here can capture)
        raise AssertionError(f"If capturable=True, {captured} must be on supported devices: "
                             "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
    if group.get("differentiable"):
        raise NotImplementedError("optimizer step: differentiable=True is not implemented (jitgrad's "
                                  "updates run under no_grad); got differentiable=True, expected False")


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with ``"params"`` and hyperparameters)
    and ``state`` (per-parameter dicts, keyed by the parameter tensor itself)."""

    _captured = "params and state_steps"  # (what PyTorch's capturable check names)

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable[..., Any]] = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}")
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        return "\n".join(lines) + "\n)"

    def _patch_step_function(self) -> None:
        """Wrap the class's ``step`` (once) so it runs the step hooks, as PyTorch does."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)  # type: ignore[method-assign]

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may return new
        ``(args, kwargs)``."""
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs after each ``step``."""
        return add_hook(self._optimizer_step_post_hooks, hook)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters, with hyperparameters overriding ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        else:
            group["params"] = list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            group.setdefault(name, default)
        ids = [id(p) for p in group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error", stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (default), or zero it in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a ``.grad``; returns ``closure()`` if given."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                _check_flags(group, self._captured)
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad, group)
        return loss

    def _update(self, param: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        """The algorithm's update of one parameter, in place (subclasses)."""
        raise NotImplementedError

    def _closure_loss(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``:
        parameters are replaced by their position across the groups, as in PyTorch."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore state and hyperparameters saved by ``state_dict`` (tensors are cloned;
        floating state other than ``step`` is cast to its parameter's dtype)."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        params = {i: p for g, s in zip(self.param_groups, saved_groups)
                  for i, p in zip(s["params"], g["params"])}
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params:
                p = params[key]
                state[p] = {k: _cast_state(p, k, v) for k, v in value.items()}
            else:
                state[key] = copy.deepcopy(value)
        self.state = state
        self.param_groups = [{**s, "params": g["params"]} for g, s in zip(self.param_groups, saved_groups)]


def _cast_state(param: Tensor, key: str, value: Any) -> Any:
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    if key != "step" and param.is_floating_point() and value.is_floating_point():
        return value.detach().to(param.dtype, copy=True)
    return value.detach().clone()


_global_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_post_hooks: dict[int, Callable[..., Any]] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A pre hook run before every optimizer's ``step`` (before their own)."""
    return add_hook(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A post hook run after every optimizer's ``step`` (after their own)."""
    return add_hook(_global_post_hooks, hook)


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(step)
    def hooked(*args: Any, **kwargs: Any) -> Any:
        self = args[0]
        for hook in itertools.chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in itertools.chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    hooked.hooked = True  # type: ignore[attr-defined]
    return hooked
