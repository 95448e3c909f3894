"""Random programs of views and in-place writes, run on jitgrad and on PyTorch.

A program starts from float64 leaves that require grad and a non-leaf base made from one of
them, then applies steps: view ops (every kind, including ``as_strided``, ``unfold``,
``diagonal``, ``expand`` and multi-output views), in-place ops (arithmetic with scalars and
with tensors that require grad, ``copy_``, ``__setitem__``, unary ops, ``fill_``,
``zero_``) and out-of-place ops that save their inputs. The loss reads every tensor, views
included. ``run(lib, program)`` replays it on either library and returns what happened.

Steps are drawn by running PyTorch alongside (``ProgramBuilder``), so their arguments fit
the shapes at that point; arguments are still sometimes invalid on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

import jitgrad

ERRORS = (RuntimeError, IndexError, ValueError, TypeError)

# What jitgrad refuses on purpose where PyTorch goes ahead (Note [Views and in-place writes]):
# an in-place write through a self-overlapping view whose result depends on write order.
SELF_OVERLAP = "more than one element of the written-to tensor refers to a single memory location"
PARTIAL_OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory location"


@dataclass
class Step:
    kind: str  # "view", "inplace", "op"
    name: str
    target: int  # slot the step reads (and writes, for in-place)
    args: tuple[Any, ...] = ()
    other: int | None = None  # index of an extra leaf used by the step


@dataclass
class Program:
    leaf_data: list[np.ndarray]
    base_from: int  # the base is leaf[base_from] * 1.5 (a non-leaf)
    steps: list[Step] = field(default_factory=list)
    coefs: list[float] = field(default_factory=list)

    def describe(self) -> str:
        lines = [f"leaves: {[a.shape for a in self.leaf_data]}; slot 0 = leaf{self.base_from} * 1.5"]
        for i, s in enumerate(self.steps):
            extra = f", leaf{s.other}" if s.other is not None else ""
            lines.append(f"  {i}: {s.kind} {s.name}(slot{s.target}{extra}, {s.args})")
        return "\n".join(lines)


@dataclass
class Outcome:
    error_step: int | None = None
    error: BaseException | None = None
    values: list[np.ndarray] = field(default_factory=list)
    loss: float | None = None
    grads: list[np.ndarray | None] = field(default_factory=list)


def _leaf(lib: Any, a: np.ndarray) -> Any:
    if lib is torch:
        return torch.tensor(a, dtype=torch.float64, requires_grad=True)
    return jitgrad.tensor(a, dtype=jitgrad.float64, requires_grad=True)


def _numpy(t: Any) -> np.ndarray:
    return t.detach().numpy().copy()


def apply_step(lib: Any, step: Step, slots: list[Any], leaves: list[Any]) -> None:
    """Run one step; views and op results are appended to ``slots``."""
    x = slots[step.target]
    other = None if step.other is None else leaves[step.other]
    fn = STEPS[step.name]
    out = fn(lib, x, other, *step.args)
    if step.kind != "inplace":
        slots.append(out)


def run(lib: Any, program: Program) -> Outcome:
    leaves = [_leaf(lib, a) for a in program.leaf_data]
    outcome = Outcome()
    try:
        slots = [leaves[program.base_from] * 1.5]
    except ERRORS as exc:  # pragma: no cover - the base is always valid
        outcome.error_step, outcome.error = -1, exc
        return outcome
    for i, step in enumerate(program.steps):
        try:
            apply_step(lib, step, slots, leaves)
        except ERRORS as exc:
            outcome.error_step, outcome.error = i, exc
            return outcome
    try:
        loss = None
        for coef, t in zip(program.coefs, slots):
            term = (t * coef).sum()
            loss = term if loss is None else loss + term
        outcome.values = [_numpy(t) for t in slots]
        loss.backward()
    except ERRORS as exc:
        outcome.error_step, outcome.error = len(program.steps), exc
        return outcome
    outcome.loss = float(loss.detach().numpy())
    outcome.grads = [None if leaf.grad is None else _numpy(leaf.grad) for leaf in leaves]
    return outcome


# ---------------------------------------------------------------------------------------
# The steps. Each takes (lib, x, other_leaf, *args). ``other`` leaves have the shape that
# the step needs (drawn by the builder).

STEPS: dict[str, Callable[..., Any]] = {
    # views
    "narrow": lambda lib, x, o, d, s, n: x.narrow(d, s, n),
    "select": lambda lib, x, o, d, i: x.select(d, i),
    "transpose": lambda lib, x, o, a, b: x.transpose(a, b),
    "permute": lambda lib, x, o, *p: x.permute(*p),
    "t": lambda lib, x, o: x.t(),
    "view": lambda lib, x, o, *s: x.view(*s),
    "reshape": lambda lib, x, o, *s: x.reshape(*s),
    "expand": lambda lib, x, o, *s: x.expand(*s),
    "unsqueeze": lambda lib, x, o, d: x.unsqueeze(d),
    "squeeze": lambda lib, x, o: x.squeeze(),
    "diagonal": lambda lib, x, o, off, a, b: x.diagonal(off, a, b),
    "unfold": lambda lib, x, o, d, size, step: x.unfold(d, size, step),
    "as_strided": lambda lib, x, o, size, stride, off: x.as_strided(size, stride, off),
    "slice": lambda lib, x, o, idx: x[idx],
    "unbind": lambda lib, x, o, d, k: x.unbind(d)[k],
    "split": lambda lib, x, o, n, d, k: x.split(n, d)[k],
    "chunk": lambda lib, x, o, n, d, k: x.chunk(n, d)[k],
    "flatten": lambda lib, x, o: x.flatten(),
    # in-place
    "mul_scalar_": lambda lib, x, o, c: x.mul_(c),
    "add_scalar_": lambda lib, x, o, c: x.add_(c),
    "mul_": lambda lib, x, o: x.mul_(o),
    "add_": lambda lib, x, o: x.add_(o),
    "sub_": lambda lib, x, o: x.sub_(o),
    "div_": lambda lib, x, o: x.div_(o * o + 1.0),
    "copy_": lambda lib, x, o: x.copy_(o * 2.0),
    "exp_": lambda lib, x, o: x.exp_(),
    "sin_": lambda lib, x, o: x.sin_(),
    "tanh_": lambda lib, x, o: x.tanh_(),
    "sigmoid_": lambda lib, x, o: x.sigmoid_(),
    "neg_": lambda lib, x, o: x.neg_(),
    "clamp_": lambda lib, x, o, lo, hi: x.clamp_(lo, hi),
    "fill_": lambda lib, x, o, c: x.fill_(c),
    "zero_": lambda lib, x, o: x.zero_(),
    "setitem_scalar": lambda lib, x, o, idx, c: x.__setitem__(idx, c),
    "setitem_tensor": lambda lib, x, o, idx: x.__setitem__(idx, o * 3.0),
    "setitem_advanced": lambda lib, x, o, idx: x.__setitem__(idx, o),
    # order-free writes of one value that requires grad (``o`` has one element)
    "copy_one_": lambda lib, x, o: x.copy_(o * 2.0),
    "fill_tensor_": lambda lib, x, o: x.fill_(o * 2.0),
    "setitem_one": lambda lib, x, o, idx: x.__setitem__(idx, o * 3.0),
    # out-of-place ops that save their inputs or outputs
    "mul": lambda lib, x, o: x * o,
    "sin": lambda lib, x, o: x.sin(),
    "exp": lambda lib, x, o: x.exp(),
    "tanh": lambda lib, x, o: x.tanh(),
    "clone": lambda lib, x, o: x.clone(),
}

VIEWS = [
    "narrow", "select", "transpose", "permute", "t", "view", "reshape", "expand", "unsqueeze",
    "squeeze", "diagonal", "unfold", "as_strided", "slice", "unbind", "split", "chunk", "flatten",
]
INPLACE = [
    "mul_scalar_", "add_scalar_", "mul_", "add_", "sub_", "div_", "copy_", "exp_", "sin_",
    "tanh_", "sigmoid_", "neg_", "clamp_", "fill_", "zero_", "setitem_scalar", "setitem_tensor",
    "setitem_advanced", "copy_one_", "fill_tensor_", "setitem_one",
]
# writes of one value everywhere: their result does not depend on the order of the writes,
# so jitgrad allows them through self-overlapping views
ORDER_FREE = ["fill_", "zero_", "setitem_scalar", "copy_one_", "fill_tensor_", "setitem_one"]
ONE_VALUE = {"copy_one_", "fill_tensor_", "setitem_one"}  # their extra leaf has one element
OPS = ["mul", "sin", "exp", "tanh", "clone"]
assert set(VIEWS) | set(INPLACE) | set(OPS) == set(STEPS)
NEEDS_OTHER = {"mul_", "add_", "sub_", "div_", "copy_", "setitem_tensor", "setitem_advanced", "mul"} | ONE_VALUE


def self_overlapping(t: torch.Tensor) -> bool:
    """Whether two indices of ``t`` reach one storage element."""
    offsets = [0]
    for size, stride in zip(t.shape, t.stride()):
        offsets = [o + i * stride for o in offsets for i in range(size)]
    return len(offsets) != len(set(offsets))
