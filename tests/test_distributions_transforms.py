"""``jitgrad.distributions.transforms`` and ``TransformedDistribution`` against PyTorch: each
transform's values, inverse, log-Jacobian and their gradients, its domain/codomain, sign,
shapes, repr, equality and cache; transformed distributions' densities, cdfs, shapes and
supports (with broadcasting parameters, reversed order, vector events)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import jitgrad
from compat_helpers import outcome
from distribution_cases import compare, same_text


LEAVES: list[Any] = []  # the tensors _t made that require grad


def _t(lib: Any, values: Any, grad: bool = False) -> Any:
    t = lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=grad)
    if grad:
        LEAVES.append(t)
    return t


TRANSFORMS: dict[str, tuple[Callable[[Any], Any], Any]] = {  # name -> (make, a point of the domain)
    "Exp": (lambda lib: lib.distributions.transforms.ExpTransform(), [[-1.0, 0.5], [2.0, 0.0]]),
    "Sigmoid": (lambda lib: lib.distributions.transforms.SigmoidTransform(), [-3.0, 0.2, 5.0]),
    "Softplus": (lambda lib: lib.distributions.transforms.SoftplusTransform(), [-3.0, 0.2, 25.0]),
    "Tanh": (lambda lib: lib.distributions.transforms.TanhTransform(), [-2.0, 0.1, 0.7]),
    "Abs": (lambda lib: lib.distributions.transforms.AbsTransform(), [-2.0, 0.1, 0.7]),
    "Power": (lambda lib: lib.distributions.transforms.PowerTransform(_t(lib, [2.0, 0.5, -1.5])), [0.3, 2.0, 1.5]),
    "Affine(numbers)": (lambda lib: lib.distributions.transforms.AffineTransform(1.0, -2.0), [0.5, -1.0]),
    "Affine(tensors)": (lambda lib: lib.distributions.transforms.AffineTransform(
        _t(lib, [0.0, 1.0]), _t(lib, [[2.0, -0.5]])), [0.5, -1.0]),
    "Affine(event_dim=1)": (lambda lib: lib.distributions.transforms.AffineTransform(
        _t(lib, [0.0, 1.0]), _t(lib, [3.0, 0.5]), event_dim=1), [[0.5, -1.0], [1.0, 2.0]]),
    "Softmax": (lambda lib: lib.distributions.transforms.SoftmaxTransform(), [[0.5, -1.0, 2.0]]),
    "StickBreaking": (lambda lib: lib.distributions.transforms.StickBreakingTransform(), [[0.5, -1.0], [0.0, 3.0]]),
    "Compose": (lambda lib: lib.distributions.transforms.ComposeTransform([
        lib.distributions.transforms.AffineTransform(0.5, 2.0), lib.distributions.transforms.ExpTransform()]),
        [0.5, -1.0]),
    "Independent(Exp)": (lambda lib: lib.distributions.transforms.IndependentTransform(
        lib.distributions.transforms.ExpTransform(), 1), [[0.5, -1.0], [1.0, 2.0]]),
    "inv(Sigmoid)": (lambda lib: lib.distributions.transforms.SigmoidTransform().inv, [0.2, 0.9]),
    "identity": (lambda lib: lib.distributions.transforms.identity_transform, [0.2, 0.9]),
    "LowerCholesky": (lambda lib: lib.distributions.transforms.LowerCholeskyTransform(),
                      [[[0.5, 3.0], [-1.0, 0.2]], [[1.0, 1.0], [1.0, 1.0]]]),
    "Cat": (lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.ExpTransform(), lib.distributions.transforms.AffineTransform(1.0, -2.0)],
        dim=1, lengths=[1, 2]), [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]]),
    "Cat(event_dim=1, dim=-1)": (lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.IndependentTransform(lib.distributions.transforms.ExpTransform(), 1),
         lib.distributions.transforms.SigmoidTransform()], dim=-1, lengths=[2, 1]),
        [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]]),
    "Cat(event_dim=1, dim=0)": (lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.IndependentTransform(lib.distributions.transforms.ExpTransform(), 1),
         lib.distributions.transforms.SigmoidTransform()], dim=0, lengths=[1, 1]),
        [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]]),
    "Stack": (lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform(), lib.distributions.transforms.TanhTransform(),
         lib.distributions.transforms.AffineTransform(0.5, 3.0)], dim=1), [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]]),
    "Stack(dim=0)": (lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform(), lib.distributions.transforms.SigmoidTransform()]),
        [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]]),
    "CorrCholesky": (lambda lib: lib.distributions.transforms.CorrCholeskyTransform(),
                     [[0.5, -1.0, 2.0, 0.1, 0.0, -3.0], [0.1, 0.2, 0.3, 4.0, -0.5, 0.25]]),
    "CorrCholesky(2x2)": (lambda lib: lib.distributions.transforms.CorrCholeskyTransform(), [[0.7], [-2.0]]),
    "PositiveDefinite": (lambda lib: lib.distributions.transforms.PositiveDefiniteTransform(),
                         [[0.5, 3.0], [-1.0, 0.2]]),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_matches_pytorch(name: str) -> None:
    make, point = TRANSFORMS[name]
    runs = []
    for lib in (jitgrad, torch):
        t = make(lib)
        x = _t(lib, point, grad=True)
        y = t(x)
        parts = {"y": y, "x back": t.inv(y)}
        kind, ladj = outcome(lambda: t.log_abs_det_jacobian(x, y))
        if kind == "ok":
            parts["ladj"] = ladj
        grads = lib.autograd.grad(sum(p.sum() for p in parts.values()), x)
        facts = [outcome(f) for f in (
            lambda: repr(t), lambda: repr(t.domain), lambda: repr(t.codomain), lambda: t.domain.event_dim,
            lambda: t.codomain.event_dim, lambda: t.bijective, lambda: t.sign,
            lambda: tuple(t.forward_shape((2, 3))), lambda: tuple(t.inverse_shape((2, 3))),
            lambda: t == make(lib), lambda: kind)]
        runs.append((parts, grads, facts))
    (ours, our_grads, our_facts), (theirs, their_grads, their_facts) = runs
    assert ours.keys() == theirs.keys()
    for key in theirs:
        compare(ours[key], theirs[key], rtol=1e-12)
    compare(our_grads, their_grads, rtol=1e-12)
    for (kind, a), (their_kind, b) in zip(our_facts, their_facts):
        assert kind == their_kind, (a, b)
        if kind != "ok":
            continue
        if isinstance(b, torch.Tensor):
            compare(a, b)  # a sign that is a tensor
        elif isinstance(b, str):
            same_text(a, b)
        else:
            assert a == b, (a, b)


def test_cache_returns_the_same_objects() -> None:
    T = jitgrad.distributions.transforms
    t = T.ExpTransform(cache_size=1)
    x = jitgrad.tensor([0.5, 1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x and t.inv.inv is t
    assert T.ExpTransform().inv(y) is not x
    assert t.with_cache(0) == t and T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.TanhTransform()
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)


def _normal(lib: Any, loc: Any, scale: Any) -> Any:
    return lib.distributions.Normal(_t(lib, loc, grad=True), _t(lib, scale, grad=True))


TRANSFORMED: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "Normal > Affine > Exp": (lambda lib: lib.distributions.TransformedDistribution(
        _normal(lib, [0.0, 0.5], [1.0, 0.3]), [lib.distributions.transforms.AffineTransform(1.0, 2.0),
                                             lib.distributions.transforms.ExpTransform()]), [0.7, 3.0]),
    "Normal > Sigmoid": (lambda lib: lib.distributions.TransformedDistribution(
        _normal(lib, [0.0, 0.5], [1.0, 0.3]), lib.distributions.transforms.SigmoidTransform()), [0.3, 0.8]),
    "Normal > Tanh": (lambda lib: lib.distributions.TransformedDistribution(
        _normal(lib, 0.2, 1.5), [lib.distributions.transforms.TanhTransform()]), [[-0.5], [0.9]]),
    "Normal > Affine(reversing, broadcasting)": (lambda lib: lib.distributions.TransformedDistribution(
        _normal(lib, 0.2, 1.5), lib.distributions.transforms.AffineTransform(_t(lib, [0.0, 1.0, 2.0]), -2.0)),
        [0.5, 0.0, -3.0]),
    "Independent(Normal) > StickBreaking": (lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Independent(_normal(lib, [0.0, 1.0], [1.0, 0.5]), 1),
        lib.distributions.transforms.StickBreakingTransform()), [0.2, 0.3, 0.5]),
    "Normal > Affine(event_dim=1)": (lambda lib: lib.distributions.TransformedDistribution(
        _normal(lib, [0.0, 1.0], [1.0, 0.5]), lib.distributions.transforms.AffineTransform(
            0.0, _t(lib, [2.0, 3.0]), event_dim=1)), [0.5, -0.5]),
    "Uniform > Power": (lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Uniform(_t(lib, [0.5, 1.0], grad=True), 2.0),
        lib.distributions.transforms.PowerTransform(_t(lib, 2.0))), [1.0, 3.0]),
    "LogNormal": (lambda lib: lib.distributions.LogNormal(_t(lib, [0.0, 1.0], grad=True), 0.5), [0.5, 2.0]),
    "HalfNormal": (lambda lib: lib.distributions.HalfNormal(_t(lib, [1.0, 2.0], grad=True)), [0.5, 2.0]),
}
PROBES = {
    "log_prob": lambda lib, d, v: d.log_prob(v),
    "cdf": lambda lib, d, v: d.cdf(v),
    "icdf": lambda lib, d, v: d.icdf(_t(lib, 0.3)),
    "shapes": lambda lib, d, v: (tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample,
                                 tuple(d.sample((3,)).shape), tuple(d.rsample().shape)),
    "support": lambda lib, d, v: repr(d.support),
    "repr": lambda lib, d, v: repr(d),
    "expand": lambda lib, d, v: d.expand((2,) + tuple(d.batch_shape)).log_prob(v),
    "outside": lambda lib, d, v: d.log_prob(v * 0 - 7.0),
}


@pytest.mark.parametrize("name", list(TRANSFORMED))
def test_transformed_distribution_matches_pytorch(name: str) -> None:
    make, value = TRANSFORMED[name]
    for probe, program in PROBES.items():
        results = []
        for lib in (jitgrad, torch):
            lib.manual_seed(0)
            d = make(lib)
            results.append(outcome(lambda: program(lib, d, _t(lib, value))))
        (kind, ours), (their_kind, theirs) = results
        assert kind == their_kind, (probe, ours, theirs)
        if kind == "ValueError" or isinstance(theirs, str):
            same_text(ours, theirs)
        elif kind == "ok":
            compare(ours, theirs, rtol=1e-10)
    grads = []
    for lib in (jitgrad, torch):
        LEAVES.clear()
        d = make(lib)
        out = d.log_prob(_t(lib, value))
        grads.append(lib.autograd.grad(out.sum(), list(LEAVES)))
    compare(grads[0], grads[1], rtol=1e-10)


def test_transformed_errors_match_pytorch() -> None:
    programs = [
        lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), "exp"),
        lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), [1]),
        lambda lib: lib.distributions.TransformedDistribution(
            lib.distributions.Normal(0.0, 1.0), lib.distributions.transforms.StickBreakingTransform()),
    ]
    for program in programs:
        (kind, ours), (their_kind, theirs) = outcome(lambda: program(jitgrad)), outcome(lambda: program(torch))
        assert kind == their_kind == "ValueError"
        same_text(ours, theirs)


def test_kl_of_transformed_distributions() -> None:
    results = []
    for lib in (jitgrad, torch):
        D = lib.distributions
        p, q = D.LogNormal(_t(lib, [0.0, 1.0]), 0.5), D.LogNormal(_t(lib, [1.0, 1.0]), 2.0)
        results.append(D.kl_divergence(p, q))
        sig = D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.SigmoidTransform())
        other = D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.TanhTransform())
        assert outcome(lambda: D.kl_divergence(sig, other))[0] == "NotImplementedError"
    compare(results[0], results[1], rtol=1e-12)


CONSTRAINTS = {
    "real": lambda C: C.real, "positive": lambda C: C.positive, "nonnegative": lambda C: C.nonnegative,
    "greater_than(2)": lambda C: C.greater_than(2.0), "less_than(1)": lambda C: C.less_than(1.0),
    "unit_interval": lambda C: C.unit_interval, "interval(-1, 3)": lambda C: C.interval(-1.0, 3.0),
    "half_open_interval(0, 2)": lambda C: C.half_open_interval(0.0, 2.0), "simplex": lambda C: C.simplex,
    "real_vector": lambda C: C.real_vector, "independent(positive, 1)": lambda C: C.independent(C.positive, 1),
    "lower_cholesky": lambda C: C.lower_cholesky, "positive_definite": lambda C: C.positive_definite,
    "boolean": lambda C: C.boolean, "corr_cholesky": lambda C: C.corr_cholesky,
    "cat": lambda C: C.cat([C.positive, C.real, C.unit_interval], dim=-1),
    "cat(lengths)": lambda C: C.cat([C.positive, C.interval(-1.0, 3.0)], dim=2, lengths=[2, 1]),
    "stack": lambda C: C.stack([C.positive, C.real, C.unit_interval], dim=1),
}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_constraint_registry_matches_pytorch(name: str, registry: str) -> None:
    x = np.random.default_rng(1).normal(size=(2, 3, 3))
    results = []
    for lib in (jitgrad, torch):
        D = lib.distributions
        constraint = CONSTRAINTS[name](D.constraints)

        def program() -> Any:
            t = getattr(D, registry)(constraint)
            point = _t(lib, x, grad=True)
            y = t(point)
            assert bool(constraint.check(y).all())
            back = t.inv(y) if t.bijective else y
            return repr(t), y, back, lib.autograd.grad(y.sum(), point)

        results.append(outcome(program))
    (kind, ours), (their_kind, theirs) = results
    assert kind == their_kind, (ours, theirs)
    if kind == "ok":
        same_text(ours[0], theirs[0])
        compare(ours[1:], theirs[1:], rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda lib: lib.distributions.transforms.CatTransform([lib.distributions.transforms.ExpTransform()], lengths=[1, 2]),
    lambda lib: lib.distributions.transforms.CatTransform([1.0]),
    lambda lib: lib.distributions.transforms.StackTransform([lib.distributions.transforms.ExpTransform(), "exp"]),
    lambda lib: lib.distributions.transforms.CatTransform([lib.distributions.transforms.ExpTransform()] * 2)(
        lib.zeros(3, 2)),
    lambda lib: lib.distributions.transforms.CatTransform([lib.distributions.transforms.ExpTransform()] * 2, dim=2)(
        lib.zeros(2, 2)),
    lambda lib: lib.distributions.transforms.CatTransform([lib.distributions.transforms.ExpTransform()] * 2).inv(
        lib.ones(3)),
    lambda lib: lib.distributions.transforms.StackTransform([lib.distributions.transforms.ExpTransform()] * 2, dim=1)(
        lib.zeros(2, 3)),
    lambda lib: lib.distributions.transforms.StackTransform([lib.distributions.transforms.ExpTransform()] * 2)
    .log_abs_det_jacobian(lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.distributions.constraints.cat([lib.distributions.constraints.positive] * 2, dim=1).check(
        lib.ones(2)),
])
def test_cat_stack_errors_as_pytorch(call: Callable[[Any], Any]) -> None:
    ours, theirs = outcome(lambda: call(jitgrad)), outcome(lambda: call(torch))
    assert ours[0] == theirs[0] != "ok", (ours, theirs)
    assert ours[1] == theirs[1]


def test_cat_stack_constraints_and_cache_as_pytorch() -> None:
    def program(lib: Any) -> Any:
        C, T = lib.distributions.constraints, lib.distributions.transforms
        v = _t(lib, [[0.5, -1.0, 2.0], [0.1, 0.2, 0.0]])
        cat = C.cat([C.positive, C.real, C.unit_interval], dim=1)
        stack = C.stack([C.positive, C.real, C.unit_interval], dim=1)
        t = T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1, lengths=[2, 1], cache_size=1)
        x = _t(lib, [[0.5, -1.0, 2.0]])
        y = t(x)
        return (cat.check(v), stack.check(v), cat.event_dim, stack.event_dim,
                cat.is_discrete, t.inv(y) is x, t.with_cache(1) is t, [u._cache_size for u in t.transforms])
    compare(program(jitgrad), program(torch))
