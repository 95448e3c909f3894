"""``torch.nn.utils.parametrize``: a module attribute computed from stored tensors.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (``original0``, ``original1``... when
``p.right_inverse`` returns several tensors) and swaps the module's class for a subclass
``Parametrized<Class>`` whose ``weight`` property returns ``p(original)`` (each further
registered parametrization applied in turn). Assigning ``module.weight = value`` stores
``right_inverse(value)``. As PyTorch: a single original keeps the parameter object (so an
optimizer made before still updates it), ``cached()`` computes each parametrized tensor
once inside its block, and ``remove_parametrizations`` restores a plain attribute.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ...autograd import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter, set_data

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "type_before_parametrizations"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside, each parametrized tensor is computed once (and reused)."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register(owner: Module, name: str, value: Tensor, like: Tensor) -> None:
    if isinstance(like, Parameter) or isinstance(value, Parameter):
        if not isinstance(value, Parameter):
            value = Parameter(value, like.requires_grad)  # type: ignore[attr-defined]
        owner.register_parameter(name, value)
    else:
        owner.register_buffer(name, value)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and the tensor(s) they start from."""

    def __init__(self, modules: list[Module], original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:  # (as PyTorch: then taken as the identity)
                        pass
        if not isinstance(new, (Tensor, tuple, list)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if new is not original:
                with no_grad():
                    set_data(original, new.detach())  # type: ignore[attr-defined]
            _register(self, "original", original, original)
        else:
            for i, part in enumerate(new):
                part = Parameter(part.detach().clone(), original.requires_grad) if isinstance(original, Parameter) \
                    else part.detach().clone()
                _register(self, f"original{i}", part, original)
        if not unsafe:  # PyTorch's consistency check: one call of the parametrization
            self._check_consistent(original.dtype, original.shape)

    def _check_consistent(self, dtype: Any, shape: Any) -> None:
        z = self()
        if not isinstance(z, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
        if z.dtype != dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                             f"`unsafe` flag is enabled.\nunparametrized dtype: {dtype}\nparametrized dtype: {z.dtype}")
        if z.shape != shape:
            raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                             f"`unsafe` flag is enabled.\nunparametrized shape: {shape}\nparametrized shape: {z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store what gives ``value`` back (each ``right_inverse``, last parametrization first)."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                set_data(self.original, value.detach())  # type: ignore[attr-defined]
            else:
                for i, part in enumerate(value):
                    set_data(getattr(self, f"original{i}"), part.detach())

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x  # type: ignore[no-any-return]


def _property(name: str) -> property:
    def get(self: Module) -> Tensor:
        parametrization = self.parametrizations[name]  # type: ignore[index]
        if not _cache_enabled:
            return parametrization()  # type: ignore[no-any-return]
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)  # type: ignore[index]

    return property(get, set)


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` (see the module doc)."""
    if is_parametrized(module, tensor_name):
        parametrization.train(module.training)
        module.parametrizations[tensor_name].append(parametrization)  # type: ignore[index]
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    parametrization.train(module.training)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        swapped = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.__class__ = swapped
        module.parametrizations = ModuleDict()
    setattr(type(module), tensor_name, _property(tensor_name))
    module.parametrizations[tensor_name] = plist  # type: ignore[index]
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (of ``tensor_name``, when given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def type_before_parametrizations(module: Module) -> type:
    """The module's class before ``register_parametrization`` swapped it."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo ``register_parametrization`` for ``tensor_name``: keep its current value
    (``leave_parametrized``) or its stored original, as a plain parameter again."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]  # type: ignore[index]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                set_data(original, value.detach())
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        with no_grad():
            value = getattr(module, tensor_name).detach()
        original = Parameter(value, plist.original0.requires_grad) if isinstance(plist.original0, Parameter) \
            else value
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]  # type: ignore[attr-defined]
    _register(module, tensor_name, original, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module
