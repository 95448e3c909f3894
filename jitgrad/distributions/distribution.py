"""``Distribution``: the base class (shapes, argument and sample validation, ``expand``'s
plumbing, ``sample`` as ``rsample`` under ``no_grad``, PyTorch's ``__repr__``)."""

from __future__ import annotations

import warnings
from typing import Any

from ..autograd import no_grad
from ..geometry import Size
from ..ops.queries import is_tensor
from ..tensor import Tensor
from . import constraints
from .utils import as_size, broadcast_all, lazy_property


def _all_true(ok: Any) -> bool:
    return bool(ok.all()) if isinstance(ok, Tensor) else bool(ok)


class Distribution:
    """A batch of probability distributions of ``batch_shape``, each over values of
    ``event_shape``.

    Subclasses store their parameters as tensors named as in ``arg_constraints``; with
    ``validate_args`` (default: on, as Python's ``assert``) the parameters are checked when
    the distribution is made and values when they are scored, raising ``ValueError``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions made without
        ``validate_args=``."""
        if value not in (True, False):
            raise ValueError(f"Distribution.set_default_validate_args(): expected True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = Size(), event_shape: Any = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = as_size(batch_shape)
        self._event_shape = as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _init_broadcast(self, validate_args: bool | None, **params: Any) -> None:
        """``__init__`` of a distribution whose parameters (tensors or numbers) broadcast
        together into its batch shape: each is stored, as a tensor, under its name."""
        tensors = broadcast_all(*params.values())
        for name, t in zip(params, tensors):
            setattr(self, name, t)
        Distribution.__init__(self, tensors[0].size(), validate_args=validate_args)

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{type(self)} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # checked by the distribution itself, if at all
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                continue  # the other parametrization was given: this one follows from it
            value = getattr(self, param)
            if not _all_true(constraint.check(value)):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}")

    # -- shapes ----------------------------------------------------------------------------
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = Size()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a sample."""
        return Size(tuple(as_size(sample_shape)) + self._batch_shape + self._event_shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same distribution with its parameters expanded (as views) to ``batch_shape``."""
        raise NotImplementedError

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ is not cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom __init__ "
                "method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expanded(self, cls: type, batch_shape: Any, _instance: Any, names: tuple[str, ...],
                  trailing: tuple[int, ...] = ()) -> Any:
        """``expand`` for a distribution whose parameters are the tensors ``names`` (those
        present on this instance) of shape ``batch_shape + trailing``: ``_instance`` (or a new
        instance of this type) gets them expanded as views, and its shapes without
        re-validating; it keeps this distribution's ``validate_args``."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = as_size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(batch_shape) + trailing))
        if "_param" in self.__dict__:  # the parametrization given (probs or logits)
            given = "probs" if self.__dict__.get("probs") is self._param else "logits"
            new._param = new.__dict__[given]
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # -- what subclasses define ------------------------------------------------------------
    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint:
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """A sample of ``sample_shape + batch_shape + event_shape`` (no gradient)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        """A reparameterized sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning,
                      stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    # -- validation of values ----------------------------------------------------------------
    def _validate_sample(self, value: Any) -> None:
        """Refuse (``ValueError``) a value whose shape does not fit ``batch_shape +
        event_shape`` or that lies outside the support."""
        if not is_tensor(value):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual = value.size()
        event_start = len(actual) - len(self._event_shape)
        if tuple(actual[event_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {actual} vs "
                             f"{self._event_shape}.")
        expected = Size(self._batch_shape + self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs "
                                 f"{expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{type(self)} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
            return
        if not _all_true(support.check(value)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                f"values:\n{value}")

    def __repr__(self) -> str:
        shown = [p for p in self.arg_constraints if p in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in shown)
        return f"{type(self).__name__}({args})"


class LocScale(Distribution):
    """A distribution on the reals located at ``loc`` (its mode) with width ``scale`` > 0
    (``Normal``, ``Laplace``, ``Cauchy``), reparameterized as ``loc + scale * noise``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self._init_broadcast(validate_args, loc=loc, scale=scale)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        return self._expanded(LocScale, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc
