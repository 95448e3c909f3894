"""In-place writes into a view of a leaf, whatever the order of view and ``requires_grad_``.

PyTorch refuses an in-place write into a view whose base is a leaf that requires grad —
also when the view was taken *before* its base was set to require grad (the view follows
its base's ``requires_grad``) — and allows it when the base stopped requiring grad, under
``no_grad``, or through ``detach()``/``.data``. Each program runs in PyTorch and jitgrad: the
same outcome (error type, PyTorch's message inside ours, which names the op; or the same
``requires_grad``, values and version).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import pytest
import torch

import jitgrad

VIEWS: dict[str, Callable[[Any], Any]] = {
    "slice": lambda x: x[1:],
    "select": lambda x: x[1],
    "column": lambda x: x[:, 1],
    "slice_of_slice": lambda x: x[1:][1:],
    "transpose": lambda x: x.t(),
    "view": lambda x: x.view(-1),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "diagonal": lambda x: x.diagonal(),
    "as_strided": lambda x: x.as_strided((2,), (1,), 1),
}

WRITES: dict[str, Callable[[Any, Any], Any]] = {
    "mul_": lambda v, lib: v.mul_(2),
    "add_": lambda v, lib: v.add_(1),
    "iadd": lambda v, lib: v.__iadd__(1),
    "setitem_int": lambda v, lib: v.__setitem__(0, 1.0),
    "setitem_slice": lambda v, lib: v.__setitem__(slice(None), 1.0),
    "setitem_tensor": lambda v, lib: v.__setitem__(0, lib.ones(v.shape[1:], requires_grad=True)),
    "zero_": lambda v, lib: v.zero_(),
    "fill_": lambda v, lib: v.fill_(2.0),
    "copy_": lambda v, lib: v.copy_(lib.ones(v.shape)),
    "add_requiring_grad": lambda v, lib: v.add_(lib.ones(v.shape, requires_grad=True)),
    "exp_": lambda v, lib: v.exp_(),
    "index_fill_": lambda v, lib: v.index_fill_(0, lib.tensor([0]), 1.0),
    "uniform_": lambda v, lib: v.uniform_(),
}


def _view_before(lib: Any, view: str, how: str) -> tuple[Any, Any]:
    x = lib.zeros(3, 4)
    v = VIEWS[view](x)
    if how == "method":
        x.requires_grad_()
    else:
        x.requires_grad = True
    return x, v


ORDERS: dict[str, Callable[[Any, str], tuple[Any, Any]]] = {
    "view_then_requires_grad_": lambda lib, view: _view_before(lib, view, "method"),
    "view_then_requires_grad_attr": lambda lib, view: _view_before(lib, view, "attr"),
    "requires_grad_then_view": lambda lib, view: (lambda x: (x, VIEWS[view](x)))(
        lib.zeros(3, 4, requires_grad=True)
    ),
}


def _outcome(lib: Any, run: Callable[[Any], Any]) -> tuple[str, str]:
    try:
        return "ok", repr(run(lib))
    except Exception as e:  # the outcome is compared with PyTorch's
        return type(e).__name__, str(e)


def _same(run: Callable[[Any], Any]) -> str:
    """Run in both; the same outcome. Returns what it was ('ok' or the error type)."""
    (kind_t, text_t), (kind_j, text_j) = _outcome(torch, run), _outcome(jitgrad, run)
    assert kind_j == kind_t, (text_t, text_j)
    if kind_t == "ok":
        assert text_j == text_t
    else:
        assert text_t.rstrip(".") in text_j
    return kind_t


@pytest.mark.parametrize(
    "order,view,write", list(itertools.product(ORDERS, VIEWS, WRITES)),
)
def test_write_into_view_of_leaf_is_refused(order: str, view: str, write: str) -> None:
    def run(lib: Any) -> Any:
        x, v = ORDERS[order](lib, view)
        WRITES[write](v, lib)
        return v.requires_grad

    _same(run)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        run(jitgrad)


ALLOWED: dict[str, Callable[[Any], Any]] = {}


def _allowed(fn: Callable[[Any, Any, Any], None]) -> Callable[[Any, Any, Any], None]:
    def run(lib: Any) -> Any:
        x = lib.zeros(3, 4)
        v = x[1:]
        fn(lib, x, v)
        return v.requires_grad, v.is_leaf, x.tolist(), v._version

    ALLOWED[fn.__name__] = run
    return fn


@_allowed
def requires_grad_switched_off(lib: Any, x: Any, v: Any) -> None:
    x.requires_grad_()
    x.requires_grad_(False)
    v.mul_(2).add_(1)


@_allowed
def write_under_no_grad(lib: Any, x: Any, v: Any) -> None:
    x.requires_grad_()
    with lib.no_grad():
        v.add_(1)
        v[0] = 3.0


@_allowed
def write_through_detach(lib: Any, x: Any, v: Any) -> None:
    x.requires_grad_()
    v.detach().add_(1)


@_allowed
def write_through_data(lib: Any, x: Any, v: Any) -> None:
    x.requires_grad_()
    v.data.add_(1)


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_write_into_view_of_leaf_is_allowed(name: str) -> None:
    assert _same(ALLOWED[name]) == "ok"


def test_base_itself_is_refused_after_view_was_taken() -> None:
    def run(lib: Any) -> Any:
        x = lib.zeros(3)
        x[1:]
        x.requires_grad_()
        x.mul_(2)

    _same(run)
    with pytest.raises(RuntimeError, match="mul_: a leaf Variable that requires grad"):
        run(jitgrad)
