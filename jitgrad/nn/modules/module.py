"""``Module``: the base class of layers and models, as ``torch.nn.Module``.

Parameters, buffers and submodules are registered by attribute assignment (``__setattr__``)
into three ordered dicts; everything that walks the tree (``named_parameters``,
``state_dict``, ``to``...) visits a module's own entries first, then its children in
registration order, so names and orders equal PyTorch's.
"""

from __future__ import annotations

import functools
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ... import dtypes
from ...autograd import no_grad
from ...autograd.node import RemovableHandle, add_hook
from ...tensor import Tensor
from ..parameter import Buffer, Parameter, set_data


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

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for hook in list(self._forward_pre_hooks.values()):
            replaced = hook(self, args)
            if replaced is not None:
                args = replaced if isinstance(replaced, tuple) else (replaced,)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            replaced = hook(self, args, result)
            if replaced is not None:
                result = replaced
        return result

    def register_forward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, args, output)`` runs after ``forward``; it may return a new output."""
        return add_hook(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; it may return new args."""
        return add_hook(self._forward_pre_hooks, hook)

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
                set_data(p, fn(p))
                if p._grad is not None:
                    set_data(p._grad, fn(p._grad))
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
        for key in state_dict:
            if key.startswith(prefix):
                parts = key[len(prefix):].split(".", 1)
                known = self._modules if len(parts) > 1 else local
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
