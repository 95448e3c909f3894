"""``einsum``: Einstein summation over any number of operands, with PyTorch's equation rules
(``...`` for broadcast batch dims, a subscript repeated in one operand takes its diagonal,
an implicit output lists the subscripts used once, in alphabetical order).

The equation is first normalised: every dimension gets an integer label (letters keep their
own, the ellipsis dims get labels of their own, right-aligned), and operands whose size-1
dims broadcast against a larger size are ``expand``-ed (a view, so broadcasting is undone by
``expand``'s own backward). What remains is one primitive, ``EinsumBackward0``, whose
gradient for each operand is again an einsum: of the output gradient with the other
operands, written back to that operand's labels. Two details make that always possible:

- a label repeated in the operand (``ii``) is renamed apart and tied back by an identity
  matrix operand (the gradient of a diagonal lives on the diagonal), and
- a label that only this operand carries and that is summed away (``ij->i``) comes back
  through a vector of ones (the gradient of a sum is broadcast).

Because the gradient is itself an einsum, double backward and beyond need nothing more.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..autograd.graph import needs_grad, record
from ..autograd.node import Grads, SavingNode
from ..tensor import Tensor
from .operands import from_result

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ELLIPSIS_BASE = 1000  # labels of the ellipsis dims: 1000 + k (k counted from the right)


def _label(ch: str) -> int:
    if not ch.isascii() or not ch.isalpha():
        raise RuntimeError(f"einsum(): invalid subscript {ch!r} in the equation; subscripts must "
                           "be in [a-zA-Z] (besides ',', '->' and '...')")
    # PyTorch orders the implicit output A-Z before a-z (ASCII order)
    return ord(ch)


def _parse_term(term: str, ndim: int, k: int) -> list[int]:
    """Labels of operand ``k``'s dims (the ellipsis expanded, right-aligned)."""
    if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
        raise RuntimeError(f"einsum(): found more than one '...' (or a '.' that is not part of "
                           f"one) in subscript {term!r} of operand {k}")
    head, ell, tail = term.partition("...")
    letters = [_label(c) for c in head] + [_label(c) for c in tail]
    if not ell:
        if len(letters) != ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                f"match the number of dimensions ({ndim}) for operand {k} and no ellipsis was given"
            )
        return letters
    n_ell = ndim - len(letters)
    if n_ell < 0:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({len(letters)}) is more than "
            f"the number of dimensions ({ndim}) for operand {k}"
        )
    middle = [_ELLIPSIS_BASE + i for i in range(n_ell - 1, -1, -1)]
    return [_label(c) for c in head] + middle + [_label(c) for c in tail]


def _operands(args: tuple[Any, ...]) -> list[Tensor]:
    ops = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    for i, t in enumerate(ops):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, got {type(t).__name__}")
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    return ops


def parse(equation: str, shapes: Sequence[tuple[int, ...]]) -> tuple[list[list[int]], list[int]]:
    """Input labels per operand and output labels for ``equation`` over ``shapes``."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a str, got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        more = "more" if len(shapes) > len(terms) else "fewer"
        raise RuntimeError(
            f"einsum(): {more} operands were provided than specified in the equation "
            f"(got {len(shapes)} operands, the equation {equation!r} has {len(terms)})"
        )
    ins = [_parse_term(t, len(s), k) for k, (t, s) in enumerate(zip(terms, shapes))]
    n_ell = max((sum(1 for l in labels if l >= _ELLIPSIS_BASE) for labels in ins), default=0)
    ellipsis = [_ELLIPSIS_BASE + i for i in range(n_ell - 1, -1, -1)]
    if not arrow:
        counts: dict[int, int] = {}
        for labels in ins:
            for l in labels:
                if l < _ELLIPSIS_BASE:
                    counts[l] = counts.get(l, 0) + 1
        return ins, ellipsis + sorted(l for l, c in counts.items() if c == 1)
    if "->" in rhs:
        raise RuntimeError(f"einsum(): more than one '->' in the equation {equation!r}")
    if rhs.count("...") > 1 or rhs.replace("...", "").count(".") > 0:
        raise RuntimeError(f"einsum(): found more than one '...' (or a '.' that is not part of one) "
                           f"in the output of {equation!r}")
    head, ell, tail = rhs.partition("...")
    out = [_label(c) for c in head] + (ellipsis if ell else []) + [_label(c) for c in tail]
    seen: set[int] = set()
    used = {l for labels in ins for l in labels}
    for l in out:
        if l in seen:
            raise RuntimeError(f"einsum(): output subscript {chr(l)} appears more than once in the output")
        if l not in used and l < _ELLIPSIS_BASE:
            raise RuntimeError(
                f"einsum(): output subscript {chr(l)} does not appear in the equation for any input operand"
            )
        seen.add(l)
    return ins, out


def label_sizes(ins: list[list[int]], operands: Sequence[Tensor]) -> dict[int, int]:
    """The size of every label: equal across operands, or 1 where it broadcasts."""
    sizes: dict[int, int] = {}
    for k, (labels, t) in enumerate(zip(ins, operands)):
        mine: dict[int, int] = {}
        for l, n in zip(labels, t._sizes):
            if l in mine and mine[l] != n:
                raise RuntimeError(
                    f"einsum(): subscript {chr(l)} is repeated for operand {k} but the sizes "
                    f"don't match, {mine[l]} != {n}"
                )
            mine[l] = n
        for l, n in mine.items():
            old = sizes.get(l)
            if old is None or old == 1:
                sizes[l] = n
            elif n != 1 and n != old:
                name = chr(l) if l < _ELLIPSIS_BASE else "..."
                raise RuntimeError(
                    f"einsum(): subscript {name} has size {n} for operand {k} which does not "
                    f"broadcast with previously seen size {old}"
                )
    return sizes


def _broadcast(t: Tensor, labels: list[int], sizes: dict[int, int]) -> Tensor:
    target = tuple(sizes[l] for l in labels)
    return t if t._sizes == target else t.expand(target)  # type: ignore[attr-defined,no-any-return]


def einsum(equation: Any, *operands: Any) -> Tensor:
    """``torch.einsum(equation, *operands)`` (operands may also be passed as one list), or
    the sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` (subscripts 0-51 and
    ``...``)."""
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation,) + operands)
    ops = _operands(operands)
    ins, out = parse(equation, [t._sizes for t in ops])
    dtype = ops[0].dtype
    for k, t in enumerate(ops):
        if t.dtype != dtype:
            raise RuntimeError(
                f"einsum(): expected all operands to have the same dtype, but operand 0 is "
                f"{dtype.name} and operand {k} is {t.dtype.name}"
            )
    if dtype == dtypes.bool_:
        raise RuntimeError("einsum(): not implemented for bool tensors")
    sizes = label_sizes(ins, ops)
    ops = [_broadcast(t, labels, sizes) for t, labels in zip(ops, ins)]
    return contract(ops, ins, out, sizes)


def _from_sublists(args: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """``(op, sublist, op, sublist, ..., [out_sublist])`` as an equation and the operands."""
    def letters(sublist: Any) -> str:
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < len(_LETTERS):
                out.append(_LETTERS[s])
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), got {s!r}")
        return "".join(out)

    operands, terms = args[0::2], [letters(s) for s in args[1::2]]
    if len(args) % 2:  # an output sublist closes the list
        operands, out = operands[:-1], letters(args[-1])
        return ",".join(terms) + "->" + out, tuple(operands)
    return ",".join(terms), tuple(operands)


def _subscripts(ins: Sequence[Sequence[int]], out: Sequence[int]) -> str:
    letters: dict[int, str] = {}
    for l in [l for labels in ins for l in labels] + list(out):
        if l not in letters:
            if len(letters) == len(_LETTERS):
                raise RuntimeError("einsum(): too many distinct subscripts (at most 52)")
            letters[l] = _LETTERS[len(letters)]
    return ",".join("".join(letters[l] for l in labels) for labels in ins) + "->" + "".join(
        letters[l] for l in out
    )


def contract(ops: Sequence[Tensor], ins: Sequence[Sequence[int]], out: Sequence[int],
             sizes: dict[int, int]) -> Tensor:
    """The einsum primitive: operands already of their labels' sizes (no broadcasting left)."""
    arrays = [t._numpy() for t in ops]
    # NumPy's contraction-path search (and BLAS for pairs) pays off beyond small operands;
    # below that its planning costs more than the plain loop
    big = len(arrays) > 2 or sum(a.size for a in arrays) > 4096
    value = np.einsum(_subscripts(ins, out), *arrays, optimize=big)
    result = from_result(np.asarray(value), ops[0].dtype)
    if needs_grad(*ops):
        node = EinsumBackward0(ins, out, sizes)
        record(node, ops, (result,))
        node.save(*ops)
    return result


class EinsumBackward0(SavingNode):
    def __init__(self, ins: Sequence[Sequence[int]], out: Sequence[int], sizes: dict[int, int]) -> None:
        super().__init__()
        self.ins = [list(labels) for labels in ins]
        self.out = list(out)
        self.sizes = dict(sizes)

    def apply(self, grads: Grads) -> tuple[Tensor | None, ...]:
        ops = self.unpack()
        g = grads[0]
        assert g is not None
        return tuple(
            self._grad(k, g, ops) if self.needs_input_grad(k) else None for k in range(len(ops))
        )

    def _grad(self, k: int, g: Tensor, ops: Sequence[Tensor]) -> Tensor:
        terms: list[Tensor] = [g] + [t for j, t in enumerate(ops) if j != k]
        labels: list[list[int]] = [self.out] + [self.ins[j] for j in range(len(ops)) if j != k]
        present = {l for ls in labels for l in ls}
        fresh = max([_ELLIPSIS_BASE * 2] + [l for ls in self.ins for l in ls]) + 1
        target: list[int] = []
        for l in self.ins[k]:
            n = self.sizes[l]
            if l in target:  # a repeated subscript: rename apart, tie back with the identity
                terms.append(from_result(np.eye(n), g.dtype))
                labels.append([l, fresh])
                target.append(fresh)
                fresh += 1
                continue
            if l not in present:  # summed away in this operand only: broadcast back
                terms.append(from_result(np.ones(n), g.dtype))
                labels.append([l])
                present.add(l)
            target.append(l)
        return contract(terms, labels, target, self.sizes)
