"""Every declared pointwise op (``jitgrad.ops.declare.DECLARED``) against PyTorch, float64:
value, gradient, gradient of gradient, the ``requires_grad`` of the first gradient under
``create_graph`` (a Hessian-vector product through ``relu``/``abs`` gives PyTorch's zeros),
the node's name, finite differences (gradcheck / gradgradcheck), the in-place variant (on a
tensor and on a view, through CopySlices), and bool / integer inputs (same result dtype, or
the same error family). The rows come from the declarations: a new one is tested as it lands.

Inputs are drawn from the declaration's ``domain`` hint; ``PARAMS`` adds parameter variants.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import jitgrad
from grad_oracle import assert_close, check
from jitgrad.autograd import grad as jgrad
from jitgrad.autograd import gradcheck, gradgradcheck
from jitgrad.ops.declare import DECLARED, Pointwise

SHAPES = ((3, 4), (4,), (3, 1))  # operands broadcast: the engine's un-broadcasting is checked too

# parameter variants beyond the defaults, by op name
PARAMS: dict[str, list[dict[str, Any]]] = {
    "round": [{"decimals": 2}, {"decimals": -1}],
    "softplus": [{"beta": 2.0, "threshold": 1.0}],
    "elu": [{"alpha": 0.7}],
    "gelu": [{"approximate": "tanh"}],
    "hardtanh": [{"min_val": -0.5, "max_val": 0.8}],
    "logit": [{"eps": 0.1}],
    "nan_to_num": [{"nan": 1.5, "posinf": 7.0, "neginf": -3.0}],
    "div": [{"rounding_mode": "floor"}],
    "addcmul": [{"value": 0.5}],
    "addcdiv": [{"value": -2.0}],
    "threshold_backward": [{"threshold": 0.5}],
    "leaky_relu": [{"negative_slope": 0.2}],
    "leaky_relu_backward": [{"negative_slope": 0.2, "self_is_result": True}],
    "celu": [{"alpha": 0.7}],
    "rrelu": [{"lower": 0.2, "upper": 0.5}],
    "threshold": [{"threshold": 0.5, "value": -2.0}],
}
# where PyTorch names its node after the variant (e.g. ``round(decimals=)`` is RoundBackward1)
# PyTorch's second derivative of these is a ZeroTensor (no data): checked by the
# Hessian-vector-product test below instead of by ``check(double=True)``
TORCH_ZERO_TENSOR = {"abs"}
# PyTorch has no second derivative of these ("derivative for aten::hardsigmoid_backward is not
# implemented", jitgrad's too: tests/test_compat_small_fixes.py): first derivatives only
NO_SECOND_DERIVATIVE = {"hardsigmoid"}
# PyTorch's first derivative of ``sgn`` is a ZeroTensor too: ``sign`` (the same function of
# real numbers) stands in as the oracle of values and derivatives
ORACLE_STANDIN = {"sgn": "sign"}
# PyTorch has no derivative for these in-place forms ("the derivative for 'inplace version of
# asinh' is not implemented"); jitgrad has, checked against the out-of-place function
TORCH_INPLACE_UNDIFFERENTIABLE = {"asinh", "acosh", "atanh"}


def _cases() -> list[Any]:
    out = []
    for decl in DECLARED:
        for params in [{}] + PARAMS.get(decl.name, []):
            label = decl.name + "".join(f"-{k}={v}" for k, v in params.items())
            out.append(pytest.param(decl, params, id=label))
    return out


CASES = _cases()
DIFFERENTIABLE = [c for c in CASES if c.values[0].differentiable]
INPLACE = [c for c in CASES if c.values[0].fn_ is not None]


# -- inputs by domain ----------------------------------------------------------------------
def _domain(decl: Pointwise, seed: int = 0, smooth: bool = False) -> list[np.ndarray]:
    """Inputs for ``decl`` (``smooth``: away from kinks, ties and non-finite values, for
    finite differences)."""
    rng = np.random.default_rng(seed)
    shapes = SHAPES[: decl.arity]

    def normal(shape: tuple[int, ...], scale: float = 1.5) -> np.ndarray:
        return rng.standard_normal(shape) * scale

    def away(shape: tuple[int, ...]) -> np.ndarray:  # away from integers and halves
        k = rng.integers(-3, 4, shape)
        u = rng.choice([0.15, 0.3, 0.65, 0.8], shape) + rng.uniform(-0.05, 0.05, shape)
        return k + u

    def nonzero(shape: tuple[int, ...]) -> np.ndarray:
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.7, 1.3, shape)

    d = decl.domain
    if smooth and d in ("kinks", "grad-kinks", "special", "ties"):
        xs = [normal(s) for s in shapes]
        for x in xs:
            x[np.abs(x) < 0.05] = 0.3
            x[np.abs(np.abs(x) - 1) < 0.05] = 1.3  # hardtanh's bounds
        return xs
    if d == "real":
        return [normal(s) for s in shapes]
    if d == "positive":
        return [np.abs(normal(s)) + 0.2 for s in shapes]
    if d == "gt-1":
        return [rng.uniform(-0.8, 3.0, s) for s in shapes]
    if d == "unit":
        return [rng.uniform(-0.9, 0.9, s) for s in shapes]
    if d == "gt1":
        return [1.2 + np.abs(normal(s)) for s in shapes]
    if d == "nonzero":
        return [nonzero(s) for s in shapes]
    if d == "prob":
        return [rng.uniform(0.03, 0.97, s) for s in shapes]
    if d == "away":
        return [away(s) for s in shapes]
    if d == "kinks":  # exact zeros (and the hardtanh bounds): PyTorch's conventions at kinks
        x = normal(shapes[0])
        x.flat[:6] = [0.0, -0.0, -1.0, 1.0, 0.5, -0.5]
        return [x] + [normal(s) for s in shapes[1:]]
    if d == "grad-kinks":
        x = normal(shapes[1])
        x.flat[:2] = [0.0, 0.5]
        return [normal(shapes[0]), x]
    if d == "special":
        x = normal(shapes[0])
        x.flat[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e308]
        return [x]
    if d == "ties":
        a, b = normal(shapes[0]), normal(shapes[1])
        a[0, :] = b
        return [a, b]
    if d == "x-positive":
        x = normal(shapes[0])
        x.flat[:3] = 0.0
        return [x, np.abs(normal(shapes[1])) + 0.2]
    if d == "away-nonzero":  # a / b stays away from integers (the trunc / floor jumps)
        b = nonzero(shapes[1])
        return [away(shapes[0]) * b, b]
    if d == "lerp":
        return [normal(shapes[0]), normal(shapes[1]), rng.uniform(-0.3, 1.3, shapes[2])]
    if d == "third-nonzero":
        return [normal(shapes[0]), normal(shapes[1]), nonzero(shapes[2])]
    raise AssertionError(f"no sampler for domain {d!r} of {decl.name}")


def torch_fn(decl: Pointwise | str) -> Any:
    fn: Any = torch
    for part in (decl if isinstance(decl, str) else decl.reference).split("."):
        fn = getattr(fn, part)
    return fn


def torch_params(decl: Pointwise, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters to pass PyTorch: all of them when its function is not the op's own
    (``ops.aten.threshold_backward`` has no defaults), else only those given (so that
    ``round(x)`` stays PyTorch's ``RoundBackward0`` overload)."""
    return {**decl.params, **params} if decl.reference != decl.name or not decl.export else params


def program(decl: Pointwise, params: dict[str, Any]) -> Any:
    def run(lib: Any, *xs: Any) -> Any:
        if lib is torch:
            return torch_fn(ORACLE_STANDIN.get(decl.name, decl))(*xs, **torch_params(decl, params))
        return decl.fn(*xs, **params)
    return run


# -- value, gradient, second derivative --------------------------------------------------------
@pytest.mark.parametrize("decl, params", CASES)
def test_against_torch(decl: Pointwise, params: dict[str, Any]) -> None:
    check(program(decl, params), *_domain(decl), double=decl.name not in TORCH_ZERO_TENSOR | NO_SECOND_DERIVATIVE)


def _dense(t: Any) -> Any:
    """A PyTorch ZeroTensor as ordinary zeros."""
    return torch.zeros(t.shape, dtype=t.dtype) if t is not None and t._is_zerotensor() else t


@pytest.mark.parametrize("decl, params", DIFFERENTIABLE)
def test_node_name_is_pytorchs(decl: Pointwise, params: dict[str, Any]) -> None:
    arrays = _domain(decl)
    ours = decl.fn(*[jitgrad.from_numpy(a).requires_grad_() for a in arrays], **params)
    theirs = torch_fn(decl)(*[torch.from_numpy(a).requires_grad_() for a in arrays], **torch_params(decl, params))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.parametrize("decl, params", [c for c in DIFFERENTIABLE if c.values[0].name not in NO_SECOND_DERIVATIVE])
def test_hessian_vector_product(decl: Pointwise, params: dict[str, Any]) -> None:
    """The first gradient under create_graph, with a grad_output that does not require grad
    (a Hessian-vector product): its requires_grad and the second derivative match PyTorch's."""
    arrays = _domain(decl, seed=1)
    results = []
    for lib in (jitgrad, torch):
        xs = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        y = program(decl, params)(lib, *xs)
        grad = torch.autograd.grad if lib is torch else jgrad
        firsts = grad([y], xs, [lib.ones_like(y)], create_graph=True, allow_unused=True)
        seconds = []
        for g in firsts:
            if g is None or not g.requires_grad:
                seconds.append(None)
                continue
            w = lib.from_numpy(np.linspace(-1.0, 1.0, g.numel()).reshape(tuple(g.shape)))
            seconds.append(grad([(g * w).sum()], xs, retain_graph=True, allow_unused=True))
        results.append((firsts, seconds))
    (ours_first, ours_second), (theirs_first, theirs_second) = results
    for i, (a, b) in enumerate(zip(ours_first, theirs_first)):
        assert (a is None) == (b is None), f"first gradient {i}: jitgrad {a}, PyTorch {b}"
        if b is None:
            continue
        assert_close(a, b, f"first gradient {i}")
        assert a.requires_grad == b.requires_grad, f"first gradient {i}: requires_grad"
    for i, (a, b) in enumerate(zip(ours_second, theirs_second)):
        if b is None:
            continue
        for k, (u, v) in enumerate(zip(a, b)):
            v = _dense(v)
            if v is None or u is None:  # one side proves a zero the other computes
                assert (u is None or not u.detach().numpy().any()) and (v is None or not v.detach().numpy().any())
                continue
            assert_close(u, v, f"Hessian-vector product {i}, input {k}")


@pytest.mark.parametrize("decl, params", DIFFERENTIABLE)
def test_finite_differences(decl: Pointwise, params: dict[str, Any]) -> None:
    xs = [jitgrad.from_numpy(a).requires_grad_() for a in _domain(decl, seed=2, smooth=True)]
    fn = functools.partial(decl.fn, **params)
    assert gradcheck(fn, xs)
    if decl.name not in NO_SECOND_DERIVATIVE:
        assert gradgradcheck(fn, xs)


# -- in-place variants -------------------------------------------------------------------------
def _torch_inplace(decl: Pointwise, for_grad: bool = True) -> Any:
    name = ORACLE_STANDIN.get(decl.name, decl.reference)
    if for_grad and name in TORCH_INPLACE_UNDIFFERENTIABLE:  # the same function, written out of place
        return lambda x, *others, **kw: x.copy_(torch_fn(name)(x.clone(), *others, **kw))
    path, _, name = name.rpartition(".")
    if not path:
        return getattr(torch.Tensor, name + "_")
    owner = functools.reduce(getattr, path.split("."), torch)
    fn = getattr(owner, name + "_", None)
    if fn is not None:
        return fn
    return lambda *xs, **kw: getattr(owner, name)(*xs, inplace=True, **kw)


@pytest.mark.parametrize("on_view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("decl, params", INPLACE)
def test_inplace_against_torch(decl: Pointwise, params: dict[str, Any], on_view: bool) -> None:
    """``x.op_(...)`` on a non-leaf (or on a strided view of one: CopySlices) matches PyTorch:
    values, gradients, second derivatives."""
    arrays = _domain(decl, seed=3)
    first = arrays[0]
    base = np.zeros((first.shape[0] + 1, first.shape[1] * 2)) + 0.25 if on_view else first

    def run(lib: Any, b: Any, *others: Any) -> Any:
        y = b * 1.0
        target = y[1:, ::2] if on_view else y
        if lib is torch:
            _torch_inplace(decl)(target, *others, **torch_params(decl, params))
        else:
            decl.fn_(target, *others, **params)
        return y

    if on_view:
        base[1:, ::2] = first
    check(run, base, *arrays[1:], double=decl.name not in TORCH_ZERO_TENSOR | NO_SECOND_DERIVATIVE)


@pytest.mark.parametrize("decl, params", INPLACE)
def test_inplace_on_integer_tensor(decl: Pointwise, params: dict[str, Any]) -> None:
    """In-place on an int64 tensor: PyTorch's result, or its error family."""
    arrays = [np.round(np.clip(np.nan_to_num(a), -9, 9) * 2).astype(np.int64) for a in _domain(decl, seed=4)]
    arrays[-1][arrays[-1] == 0] = 1  # no integer division by zero here
    def run(lib: Any, x: Any, *others: Any) -> Any:
        if lib is torch:
            return _torch_inplace(decl, for_grad=False)(x, *others, **torch_params(decl, params))
        return decl.fn_(x, *others, **params)

    _same_outcome(run, arrays)


# -- dtypes and errors -------------------------------------------------------------------------
def _same_outcome(run: Any, arrays: list[np.ndarray]) -> None:
    outcomes = []
    for lib in (jitgrad, torch):
        try:
            outcomes.append(run(lib, *[lib.from_numpy(a.copy()) for a in arrays]))
        except (RuntimeError, TypeError, ValueError) as exc:
            outcomes.append(exc)
    ours, theirs = outcomes
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"PyTorch raised {theirs!r}, jitgrad returned {ours}"
        for family in (NotImplementedError, TypeError, ValueError, RuntimeError):
            if isinstance(theirs, family):
                assert isinstance(ours, family), f"jitgrad raised {ours!r}, PyTorch {theirs!r}"
                break
        return
    assert not isinstance(ours, Exception), f"jitgrad raised {ours!r}; PyTorch returned {theirs}"
    assert_close(ours, theirs, "result")


@pytest.mark.parametrize("dtype", [np.bool_, np.int64])
@pytest.mark.parametrize("decl, params", CASES)
def test_bool_and_integer_inputs(decl: Pointwise, params: dict[str, Any], dtype: type) -> None:
    arrays = [np.round(np.clip(np.nan_to_num(a), -9, 9) * 2).astype(dtype) for a in _domain(decl, seed=5)]
    if dtype is np.int64:
        arrays[-1][arrays[-1] == 0] = 1
    _same_outcome(program(decl, params), arrays)


@pytest.mark.parametrize("decl, params", [c for c in CASES if c.values[0].arity > 1
                                          and not c.values[0].reference.startswith("ops.")])
def test_number_operands(decl: Pointwise, params: dict[str, Any]) -> None:
    """A Python number as the second operand: the same result (type promotion) or error.
    (Not for the internal ``threshold_backward``/``hardtanh_backward``: PyTorch's dispatcher
    raises RuntimeError where its public functions raise TypeError, as jitgrad does.)"""
    arrays = _domain(decl, seed=6)
    number = float(np.round(arrays[1].flat[0], 1)) or 0.5

    def run(lib: Any, *xs: Any) -> Any:
        return program(decl, params)(lib, xs[0], number, *xs[2:])

    _same_outcome(run, [arrays[0].astype(np.float32)] + arrays[2:])


# -- the generated code is current ---------------------------------------------------------
def test_generated_bindings_are_current() -> None:
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "jitgrad.tools.gen_bindings", "--check"],
                          cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, f"stale generated files (run the generator): {proc.stdout}{proc.stderr}"


def test_every_declaration_is_bound_and_exported() -> None:
    for decl in DECLARED:
        if decl.method:
            assert getattr(jitgrad.Tensor, decl.name) is decl.fn
            if decl.fn_ is not None:
                assert getattr(jitgrad.Tensor, decl.name + "_") is decl.fn_
        if decl.export:
            assert getattr(jitgrad, decl.name) is decl.fn and decl.name in jitgrad.__all__


def test_special_and_functional_namespaces() -> None:
    x = np.linspace(0.05, 0.95, 7)
    for name in ("erf", "erfc", "erfinv", "expit", "logit", "log1p", "expm1", "exp2"):
        assert_close(getattr(jitgrad.special, name)(jitgrad.from_numpy(x)), getattr(torch.special, name)(torch.from_numpy(x)), name)
    for name in ("xlogy", "xlog1py"):
        ours = getattr(jitgrad.special, name)(jitgrad.from_numpy(x), jitgrad.from_numpy(x[::-1].copy()))
        assert_close(ours, getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(x[::-1].copy())), name)
    F = torch.nn.functional
    for name in ("relu", "elu", "hardtanh", "silu", "mish"):
        a, b = jitgrad.from_numpy(x - 0.5), torch.from_numpy(x - 0.5)
        getattr(jitgrad.nn.functional, name)(a, inplace=True)
        getattr(F, name)(b, inplace=True)
        assert_close(a, b, name)


def test_erfinv_to_float64_round_off() -> None:
    y = np.concatenate([np.linspace(-1, 1, 4001), 1 - np.logspace(-16, -1, 200), np.logspace(-300, -1, 50)])
    ours, theirs = jitgrad.erfinv(jitgrad.from_numpy(y)).detach().numpy(), torch.erfinv(torch.from_numpy(y)).detach().numpy()
    finite = np.isfinite(theirs)
    np.testing.assert_array_equal(ours[~finite], theirs[~finite])
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-12, atol=0)
    np.testing.assert_allclose(jitgrad.erfinv(jitgrad.erf(jitgrad.from_numpy(np.linspace(-3, 3, 101)))).detach().numpy(),
                               np.linspace(-3, 3, 101), rtol=1e-11)


def test_tensor_stub_names_resolve() -> None:
    """Every name an annotation of ``tensor.pyi`` uses is imported there or a builtin, and
    every public Tensor method has an entry."""
    import ast
    import builtins

    tree = ast.parse((Path(jitgrad.__file__).parent / "tensor.pyi").read_text())
    known = set(dir(builtins)) | {"Tensor"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            known |= {(a.asname or a.name).split(".")[0] for a in node.names}
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            used |= {n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)}
        if isinstance(node, (ast.FunctionDef, ast.AnnAssign)):
            ann = node.returns if isinstance(node, ast.FunctionDef) else node.annotation
            used |= {n.id for n in ast.walk(ann) if isinstance(n, ast.Name)} if ann is not None else set()
    assert used <= known, used - known
    (klass,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    entries = {n.name for n in klass.body if isinstance(n, ast.FunctionDef)}
    public = {name for name in dir(jitgrad.Tensor) if not name.startswith("_") and callable(getattr(jitgrad.Tensor, name, None))}
    assert public <= entries | {n.target.id for n in klass.body if isinstance(n, ast.AnnAssign)}, public - entries
