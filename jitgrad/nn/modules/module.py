"""``Module``: the base class of layers and models, as ``torch.nn.Module``.

Parameters, buffers and submodules are registered by attribute assignment (``__setattr__``)
into three ordered dicts; everything that walks the tree (``named_parameters``,
``state_dict``, ``to``...) visits a module's own entries first, then its children in
registration order, so names and orders equal PyTorch's.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ... import dtypes
from ...autograd import no_grad
from ...autograd.node import RemovableHandle, add_hook
from ...tensor import Tensor
from ..parameter import Buffer, Parameter
from .backward_hooks import BackwardHook


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns (PyTorch's repr when nothing is wrong)."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


_EXTRA_STATE = "_extra_state"


def _add_hook(hooks: OrderedDict[int, Any], hook: Callable[..., Any], prepend: bool) -> RemovableHandle:
    handle = add_hook(hooks, hook)
    if prepend:
        hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle


def _check_name(kind: str, name: Any, owner: Module) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(owner, name) and name not in _registry(owner, kind):
        raise KeyError(f"attribute '{name}' already exists")


def _registry(owner: Module, kind: str) -> dict[str, Any]:
    return {"parameter": owner._parameters, "buffer": owner._buffers, "module": owner._modules}[kind]


class Module:
    """Base class for all neural network modules; subclasses define ``forward``."""

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _modules: dict[str, Module | None]

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())  # hook ids (a removed one may stay)
        object.__setattr__(self, "_forward_hooks_always_called", set())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """PyTorch's order: forward pre hooks, the inputs' backward-hook identity, forward,
        forward hooks, the outputs' identity; hooks registered with ``always_call`` also run
        (their errors silenced with a warning) when something before them raised."""
        result = None
        called: set[int] = set()
        try:
            for key, hook in list(self._forward_pre_hooks.items()):
                if key in self._forward_pre_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs)
                    if replaced is not None:
                        if not (isinstance(replaced, tuple) and len(replaced) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {replaced}.")
                        args, kwargs = replaced
                else:
                    replaced = hook(self, args)
                    if replaced is not None:
                        args = replaced if isinstance(replaced, tuple) else (replaced,)
            backward_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                backward_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                             list(self._backward_pre_hooks.values()))
                args = backward_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for key, hook in list(self._forward_hooks.items()):
                called.add(key)
                result = self._run_forward_hook(key, hook, args, kwargs, result)
            if backward_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                                  f"of Tensors but received {type(result)}", stacklevel=2)
                result = backward_hook.setup_output_hook(result)
            return result
        except Exception:
            for key, hook in list(self._forward_hooks.items()):
                if key in self._forward_hooks_always_called and key not in called:
                    try:
                        result = self._run_forward_hook(key, hook, args, kwargs, result)
                    except Exception as e:  # noqa: BLE001 - the forward's error is the one raised
                        warnings.warn("forward hook with ``always_call=True`` raised an exception that was "
                                      f"silenced as another error was raised in forward: {e}", stacklevel=2)
            raise

    def _run_forward_hook(self, key: int, hook: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any], result: Any) -> Any:
        if key in self._forward_hooks_with_kwargs:
            replaced = hook(self, args, kwargs, result)
        else:
            replaced = hook(self, args, result)
        return result if replaced is None else replaced

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; it may return a new output. ``always_call``: it
        runs even when the forward raised."""
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; it may return new args
        (``with_kwargs``: ``hook(module, args, kwargs)`` may return ``(args, kwargs)``)."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs once the gradients of the module's
        positional tensor inputs are known; it may return a new ``grad_input`` (see
        ``backward_hooks.py``)."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs once the gradients of the module's outputs are
        known; it may return a new ``grad_output``."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    # -- registration -----------------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(jitgrad.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:  # type: ignore[attr-defined]
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                "created explicitly; to express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(jitgrad Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", name, self)
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(jitgrad.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            self._modules[name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' "
                    "(jitgrad.nn.Module or None expected)"
                )
            self._modules[name] = value
        elif isinstance(value, Buffer):
            self.register_buffer(name, value, value.persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                    "(jitgrad Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = d.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # -- walking the tree -------------------------------------------------------------------
    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        module = self
        for item in target.split(".") if target else []:
            if item not in module._modules:
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = module._modules[item]  # type: ignore[assignment]
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"encoder.0.weight"``)."""
        owner, name = self._owner_of(target)
        if not isinstance(getattr(owner, name), Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return getattr(owner, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (``"bn.running_mean"``)."""
        owner, name = self._owner_of(target)
        if name not in owner._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(owner, name)

    def _owner_of(self, target: str) -> tuple[Module, str]:
        path, _, name = target.rpartition(".")
        owner = self.get_submodule(path)
        if not hasattr(owner, name):
            raise AttributeError(owner._get_name() + " has no attribute `" + name + "`")
        return owner, name

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at a dotted path; the parent must exist (``strict``: so must the
        name, as a submodule)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to save more than parameters and buffers in the
        state dict, under ``<prefix>_extra_state``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please file an "
            "issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please file an "
            "issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.")

    def _has_extra_state(self, which: str) -> bool:
        return getattr(type(self), which) is not getattr(Module, which)

    # -- modes and gradients ----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got {type(mode).__name__}")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)  # type: ignore[attr-defined]
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                g = p._grad
                if g._grad_fn is not None:
                    g.detach_()  # type: ignore[attr-defined]
                else:
                    g._requires_grad = False
                with no_grad():
                    g.zero_()  # type: ignore[attr-defined]

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- conversions ------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter (and its grad) in place, keeping its identity, and
        replace every buffer, as PyTorch's ``Module._apply`` does."""
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:  # ``param.data = new``: p keeps its version counter
                    p.data = new
                if p._grad is not None and (new_grad := fn(p._grad)) is not p._grad:
                    p._grad.data = new_grad
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args: Any, dtype: Any = None, **kwargs: Any) -> Module:
        """``to(dtype)``, ``to("cpu")``, ``to(device, dtype)`` or ``to(tensor)``: floating
        parameters and buffers take the dtype; integer ones keep theirs (as in PyTorch)."""
        kwargs.pop("non_blocking", None)
        for a in list(args) + [kwargs.pop("device", None)]:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif a is None or isinstance(a, bool) or _is_cpu(a):  # a bool is non_blocking
                continue
            else:
                dtype = a
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        if dtype is None:
            return self
        target = dtypes.to_dtype(dtype, "Module.to")
        if target not in dtypes.FLOATING:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={target.name}"
            )
        return self._apply(lambda t: t.to(target) if t.is_floating_point() else t)  # type: ignore[attr-defined]

    def double(self) -> Module:
        return self.to(dtypes.float64)

    def float(self) -> Module:
        return self.to(dtypes.float32)

    def half(self) -> Module:
        return self.to(dtypes.float16)

    def share_memory(self) -> Module:
        """Nothing to do: jitgrad's tensors live in this process's memory."""
        return self

    def cpu(self) -> Module:
        return self

    def type(self, dst_type: Any) -> Module:
        return self._apply(lambda t: t.to(dst_type))  # type: ignore[attr-defined]

    # -- state dicts ------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()  # type: ignore[attr-defined]
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()  # type: ignore[attr-defined]
        if self._has_extra_state("get_extra_state"):
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        if args:  # the positional (destination, prefix, keep_vars) form PyTorch still accepts
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(
        self, state_dict: dict[str, Any], prefix: str, missing: list[str],
        unexpected: list[str], errors: list[str], writes: list[Callable[[], None]], assign: bool,
    ) -> None:
        """Check this module's entries; queue the writes (``load_state_dict`` runs them only
        when nothing is wrong, so a refused load changes nothing)."""
        local = {
            name: t for name, t in list(self._parameters.items()) + [
                (n, b) for n, b in self._buffers.items() if n not in self._non_persistent_buffers_set
            ] if t is not None
        }
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected jitgrad.Tensor from '
                    f"checkpoint but received {type(value)}"
                )
                continue
            if param.dim() == 0 and value._sizes == (1,):
                value = value[0]  # type: ignore[index]
            if value._sizes != param._sizes:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            writes.append(functools.partial(self._load_one, name, param, value, assign))
        extra = self._has_extra_state("set_extra_state")
        if extra and prefix + _EXTRA_STATE in state_dict:
            writes.append(functools.partial(self.set_extra_state, state_dict[prefix + _EXTRA_STATE]))
        elif extra:
            missing.append(prefix + _EXTRA_STATE)
        for key in state_dict:
            if key.startswith(prefix):
                parts = key[len(prefix):].split(".", 1)
                known = self._modules if len(parts) > 1 else {**local, **({_EXTRA_STATE: None} if extra else {})}
                if parts[0] not in known:
                    unexpected.append(key)

    def _load_one(self, name: str, param: Tensor, value: Tensor, assign: bool) -> None:
        with no_grad():
            if assign and name in self._parameters:
                setattr(self, name, Parameter(value, param.requires_grad))  # type: ignore[attr-defined]
            elif assign:
                self._buffers[name] = value
            else:
                param.copy_(value)  # type: ignore[attr-defined]

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and persistent buffers from ``state_dict`` (PyTorch's checks and
        messages). Unlike PyTorch, a load that raises has copied nothing."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        writes: list[Callable[[], None]] = []

        def load(module: Module, local_state: dict[str, Any], prefix: str) -> None:
            module._load_from_state_dict(local_state, prefix, missing, unexpected, errors, writes, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, OrderedDict(state_dict), "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors))
            )
        for write in writes:
            write()
        return _IncompatibleKeys(missing, unexpected)

    # -- printing ---------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _is_cpu(device: Any) -> bool:
    return str(device) == "cpu" or getattr(device, "type", None) == "cpu"
