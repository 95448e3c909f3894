"""How tangents flow through jitgrad's ops while a forward-AD level is open.

Design. jitgrad has no per-op forward derivatives, and no dispatcher every op passes
through: an op is plain Python (a Tensor method, an operator, a ``jitgrad.*``, ``F.*`` or
``linalg.*`` function, a property such as ``.T``). While a dual level is open — and only
then — a profile function (``sys.setprofile``) watches calls into jitgrad's code. The first
call into an op that has a dual tensor among its arguments (``x.sin()``, ``x[1:]``,
``torch.cat([x, y])``, ``x.mul_(2)``, ``y[2:] = x``) is the op whose tangent is computed
when it returns; what it calls inside is not watched again. So the eager path has no check
at all when no level is open, and within a level every op of jitgrad has a tangent,
whether it was called as a method, an operator, a function or through a name imported
before the level. An op called without dual arguments is not looked into (its ops have
none either: an op reads its inputs from its arguments); code that calls the user's
functions or keeps state (modules, optimizers, ``func`` transforms, the grad mode
decorators) is looked through, to the ops it calls.

Its tangent is the Jacobian-vector product computed by the double-vjp trick on the op's own
backward (``jitgrad.func.jvp``'s): the op runs again on copies of its tensor arguments (the
dual ones as fresh variables, a written one as it was before the call; the default
generator as it was, so random ops draw the same values), ``J^T u`` is built for a dummy
cotangent ``u`` with ``create_graph``, and its gradient with respect to ``u`` along the
input tangents is ``J t``. Tangents therefore stay differentiable (a tangent requiring grad,
a primal requiring grad give tangents with a graph), as PyTorch's.

Views need no computation: an output on the storage of a dual argument has as tangent the
same view of that argument's tangent (``_dual_tangents``). A written argument gets its new
tangent written into its own (a view's into its base's, which a base without one gets as
zeros first). An argument whose geometry the op changed (``t_()``, ``squeeze_()``) has its
tangent viewed alike. Outputs not connected to any dual input (``zeros_like(x)``, integer
or bool outputs, ``detach()``) have none.

Errors cannot be raised from a profile function (Python would turn profiling off): a
tangent that cannot be computed is kept as a ``TangentError`` that ``unpack_dual`` raises.
Only the thread that entered the level propagates tangents, and a profiler installed before
the level (``cProfile``, ``pyinstrument``) is suspended while it is open.

Why this and not the alternatives. Per-op forward formulas would be a second derivative
table for hundreds of ops (and the lean fast paths), each to be tested. A hidden reverse
graph (duals secretly requiring grad, tangents by one double-vjp at ``unpack_dual``) needs
every op's recording to run also under ``no_grad`` and hides nodes from ``requires_grad``,
``grad_fn``, ``is_leaf``, ``next_functions`` and backward: a check in every op's hot path
and in the engine. Watching calls costs nothing outside a level (no check anywhere: the
``small.x*1.5+y_grad`` bench is unchanged) and reuses each op's tested backward; inside a
level the price is speed: about 0.35 ms per op with a dual argument (the op twice, two
backward passes: a chain of six ops on 100 elements, ``make_dual`` to ``unpack_dual``, takes
2.2-2.4 ms, PyTorch's 0.5-1.7 ms with a forward formula per op) and a profile call per
Python call for the rest (the same chain without duals inside a level: 0.2-0.6 ms, 12-40 us
outside).
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import _dual_tangents as dt
from . import grad_mode

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# code that is not watched as an op, but the ops it calls are: it stores state, or calls
# the user's code (modules, optimizers, distributions, the compiler, checkpoints, the grad
# mode decorators: the user's function under no_grad still propagates tangents)
_THROUGH = tuple(_ROOT + d for d in (os.path.join("nn", "modules") + os.sep, "optim" + os.sep,
                                     "distributions" + os.sep, "utils" + os.sep, "compiler" + os.sep,
                                     "testing" + os.sep, "func" + os.sep,
                                     os.path.join("autograd", "grad_mode.py"),
                                     os.path.join("autograd", "functional.py")))
# code whose calls are not ops with tangents, and within which nothing is watched: this
# machinery, the engine (a backward pass gives no tangents, as PyTorch's), detach
_OPAQUE_FILES = {_ROOT + os.path.join("autograd", f) for f in (
    "forward_ad.py", "_dual_propagation.py", "_dual_tangents.py", "engine.py")}
_OPAQUE_NAMES = {"detach", "detach_", "get_data", "set_data", "backward", "_numpy", "numpy",
                 "__array__", "__repr__", "__str__", "__format__", "register_hook", "item", "tolist"}

SKIP, WATCH, OPAQUE = 0, 1, 2
_GENERATOR = 0x20 | 0x200 | 0x80  # CO_GENERATOR | CO_ASYNC_GENERATOR | CO_COROUTINE


def _classify(code: types.CodeType) -> int:
    name = code.co_filename
    if not name.startswith(_ROOT) or code.co_flags & _GENERATOR:
        return SKIP
    if name in _OPAQUE_FILES or code.co_name in _OPAQUE_NAMES:
        return OPAQUE
    if name.startswith(_THROUGH) or code.co_name in ("__init__", "__new__", "__call__", "<module>"):
        return SKIP
    return WATCH


def _tensors_in(value: Any, out: list[Tensor], depth: int = 0) -> None:
    if isinstance(value, Tensor):
        out.append(value)
    elif depth < 2 and isinstance(value, (list, tuple)):
        for v in value:
            _tensors_in(v, out, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for v in value.values():
            _tensors_in(v, out, depth + 1)


class _Call:
    """One watched op: its arguments as they were when it was called."""

    __slots__ = ("frame", "code", "args", "tensors", "versions", "geometries", "tangents", "old",
                 "rng_state")

    def __init__(self, frame: Any, args: dict[str, Any], tensors: list[Tensor]) -> None:
        self.frame = frame
        self.code = frame.f_code
        self.args = args
        seen: set[int] = set()
        tensors = [t for t in tensors if not (id(t) in seen or seen.add(id(t)))]  # type: ignore[func-returns-value]
        self.tensors = tensors
        self.versions = [t._storage.version for t in tensors]
        self.geometries = [(t._sizes, t._strides, t._offset) for t in tensors]
        self.tangents = [dt.tangent_of(t) for t in tensors]
        self.old = [t._numpy().copy() for t in tensors]  # (in case the op writes one)
        from .. import randomness

        # the generators the op may draw from (the default one, one passed as argument)
        gens = [randomness._default] + [v for v in args.values() if isinstance(v, randomness.Generator)]
        self.rng_state = [(g._rng, g._rng.bit_generator.state) for g in gens]


class Propagator:
    """The profile function (one per open level)."""

    def __init__(self) -> None:
        self.kinds: dict[types.CodeType, int] = {}
        self.current: Any = None  # the frame of the watched or opaque call in progress
        self.call: _Call | Exception | None = None
        self.previous: Any = None

    def install(self) -> None:
        self.previous = sys.getprofile()
        sys.setprofile(self)

    def watch(self) -> None:
        """Be the profile function again if another one replaced it."""
        if sys.getprofile() is not self:
            sys.setprofile(self)  # (the one before the level is still what exiting restores)

    def uninstall(self) -> None:
        if sys.getprofile() is self:
            sys.setprofile(self.previous)

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            if self.current is not None:
                return
            code = frame.f_code
            kind = self.kinds.get(code)
            if kind is None:
                kind = self.kinds[code] = _classify(code)
            if kind == SKIP:
                return
            if kind == OPAQUE:
                self.current = frame
                return
            self.current = frame  # (an op without dual arguments: what it calls has none either)
            try:
                args = dict(frame.f_locals)
                tensors: list[Tensor] = []
                for v in args.values():
                    _tensors_in(v, tensors)
                if any(dt.tangent_of(t) is not None for t in tensors):
                    self.call = _Call(frame, args, tensors)
            except Exception as e:  # noqa: BLE001 - raising here would stop the profiling
                self.call = e
        elif event == "return" and frame is self.current:
            self.current = None
            call, self.call = self.call, None
            if call is None:
                return
            try:
                if isinstance(call, Exception):
                    raise call
                _finish(call, arg)
            except Exception as e:  # noqa: BLE001 - (as above)
                written = [] if isinstance(call, Exception) else [
                    t for t, v, old in zip(call.tensors, call.versions, call.old) if _changed(t, v, old)]
                _mark_failed(_op_name(frame), [arg, written], e)


def _outputs(value: Any) -> list[Tensor]:
    out: list[Tensor] = []
    _tensors_in(value, out)
    return out


def _op_name(frame: Any) -> str:
    """The op's function name, and the line that called it (a generated op's function has
    a generic name)."""
    import linecache

    caller = frame.f_back
    if caller is None:
        return frame.f_code.co_name
    line = linecache.getline(caller.f_code.co_filename, caller.f_lineno).strip()
    return f"{frame.f_code.co_name} (called at {os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}: {line})"


def _mark_failed(op: str, made: Any, e: Exception) -> None:
    """The tangents of what the op made or wrote are ``e``, raised when unpacked: as
    PyTorch's NotImplementedError for an op without derivative, else ``e``'s type."""
    kind = NotImplementedError if isinstance(e, NotImplementedError) or "not implemented" in str(e) \
        else type(e)
    error = dt.TangentError(kind, f"Trying to use forward AD with {op}: its tangent could not be "
                                  f"computed from its backward ({type(e).__name__}: {e})")
    for o in _outputs(made):
        if o.dtype.kind == "f":
            dt.set_tangent(o, error)


def _finish(call: _Call, result: Any) -> None:
    tensors = call.tensors
    # arguments the op may have written (their storage's version moved); which ones it did
    # write, the second run tells (each gets a storage of its own there)
    written = [i for i, t in enumerate(tensors) if _changed(t, call.versions[i], call.old[i])]
    # an argument whose geometry changed in place: its tangent viewed alike
    for i, t in enumerate(tensors):
        if (t._sizes, t._strides, t._offset) != call.geometries[i] and isinstance(call.tangents[i], Tensor) \
                and dt.own_tangent(t) is call.tangents[i]:
            dt.set_tangent(t, dt.view_like(call.tangents[i], t))
    ids = {id(t) for t in tensors}
    fresh: list[Tensor] = []
    for o in _outputs(result):
        if id(o) in ids or o.dtype.kind != "f" or dt.own_tangent(o) is not None:
            continue  # an argument itself (in place: below), or no tangent to give
        source = next((t for t, tan in zip(tensors, call.tangents)
                       if isinstance(tan, Tensor) and t._storage is o._storage), None)
        if source is not None:  # a view of a dual argument
            dt.set_tangent(o, dt.view_like(dt.tangent_of(source), o))
        else:
            fresh.append(o)
    if not fresh and not any(tensors[i].dtype.kind == "f" for i in written):
        return
    errors = [tan for tan in call.tangents if isinstance(tan, dt.TangentError)]
    if isinstance(call.args.get("out"), (Tensor, tuple, list)):  # (PyTorch's refusal, its type)
        errors.insert(0, dt.TangentError(
            NotImplementedError, f"Trying to use forward AD with {call.code.co_name}(out=...) that does not "
                                 "support it because it is an out= function"))
    if errors:
        for o in fresh:
            dt.set_tangent(o, errors[0])
        for i in written:
            if tensors[i].dtype.kind == "f":
                dt.set_tangent(tensors[i], errors[0])
        return
    _push(call, result, fresh, written)


def _changed(t: Tensor, version: int, old: np.ndarray) -> bool:
    """Whether ``t`` was written since it had ``version`` and values ``old`` (the version
    says so; the values, for a write that does not count, as a running statistic's)."""
    if t._storage.version != version:
        return True
    now = t._numpy()
    return now.shape != old.shape or not np.array_equal(now, old, equal_nan=now.dtype.kind in "fc")


def _rebuild(call: _Call, replace: dict[int, tuple[Any, Any]]) -> Any:
    """The op's function, called again with the tensors in ``replace`` (by id) swapped: the
    first use of each for its first value, any later use for its second."""
    code = call.code
    args = call.args
    used: set[int] = set()

    def swap(v: Any, depth: int = 0) -> Any:
        if isinstance(v, Tensor):
            pair = replace.get(id(v))
            if pair is None:
                return v
            first = id(v) not in used
            used.add(id(v))
            return pair[0] if first else pair[1]
        if depth < 2 and isinstance(v, (list, tuple)):
            items = [swap(x, depth + 1) for x in v]
            if all(a is b for a, b in zip(items, v)):
                return v  # (nothing swapped: a ``Size``, a shape)
            return type(v)(*items) if hasattr(v, "_fields") else type(v)(items)
        if depth < 2 and isinstance(v, dict):
            return {k: swap(x, depth + 1) for k, x in v.items()}
        return v

    closure = tuple(types.CellType(args[n]) if n in args else types.CellType() for n in code.co_freevars)
    fn = types.FunctionType(code, call.frame.f_globals, code.co_name, None, closure or None)
    n_pos = code.co_argcount
    names = code.co_varnames
    positional = [swap(args[n]) for n in names[:n_pos]]
    keywords = {n: swap(args[n]) for n in names[n_pos:n_pos + code.co_kwonlyargcount]}
    at = n_pos + code.co_kwonlyargcount
    if code.co_flags & 0x04:  # *args
        positional.extend(swap(a) for a in args[names[at]])
        at += 1
    if code.co_flags & 0x08:  # **kwargs
        keywords.update({k: swap(v) for k, v in args[names[at]].items()})
    return fn(*positional, **keywords)


def _push(call: _Call, result: Any, fresh: list[Tensor], written: list[int]) -> None:
    """The tangents of the op's ``fresh`` outputs and of the arguments it wrote: the op run
    again on copies, then ``_jvp``."""
    from ..creation import zeros_like
    from ..func._levels import Level

    level = Level()  # (what is private to this computation: its results leave detached)
    tensors = call.tensors
    replace: dict[int, tuple[Any, Any]] = {}
    variables: list[Tensor] = []
    tangents: list[Tensor] = []
    copies: dict[int, Tensor] = {}  # written argument index -> its copy in the second run
    copied_at: dict[int, int] = {}  # (and that copy's version before it)
    # a tangent has a graph only if something outside reaches it: a tangent or an argument
    # requiring grad. Then the second run reads copies of the duals and of their tangents,
    # so that what the tangent's graph saves is not written by a later in-place op
    outside = any(t.requires_grad for t in tensors) or any(
        isinstance(tan, Tensor) and tan.requires_grad for tan in call.tangents)

    def own(tan: Tensor, dtype: Any) -> Tensor:
        tan = tan.to(dtype)
        return tan.clone() if outside else tan

    with grad_mode.enable_grad():
        for i, t in enumerate(tensors):
            if id(t) in replace:
                continue
            tan = call.tangents[i]
            old = call.old[i]
            if i in written:
                # the op writes into its first use of the argument; a second use (``x *= x``)
                # reads the value from before the write
                before = Tensor._from_buffer(old.reshape(-1).copy(), tuple(old.shape))
                if isinstance(tan, Tensor):
                    before.requires_grad_()
                    level.private.add(id(before))
                    variables.append(before)
                    tangents.append(own(tan, t.dtype))
                value = before.clone()
                copies[i] = value
                copied_at[i] = value._version
                replace[id(t)] = (value, before)
                continue
            if isinstance(tan, Tensor):
                value = level.enter(t, call.code.co_name)
                variables.append(value)
                tangents.append(own(tan, t.dtype))
                if outside:
                    value = value.clone()
                replace[id(t)] = (value, value)
        now = [(rng, rng.bit_generator.state) for rng, _ in call.rng_state]
        for rng, state in call.rng_state:  # (random ops draw the values they drew)
            rng.bit_generator.state = state
        try:
            again = _rebuild(call, replace)
        finally:
            for rng, state in now:
                rng.bit_generator.state = state
        outs = [o for o in _outputs(again)]
        by_position = {id(o): k for k, o in enumerate(_outputs(result))}
        targets: list[tuple[Any, Tensor]] = []  # (where the tangent goes, the second run's value)
        for o in fresh:
            targets.append((o, outs[by_position[id(o)]]))
        for i in written:
            if copies[i].dtype.kind == "f" and _changed(copies[i], copied_at[i], call.old[i]):
                targets.append((i, copies[i]))
        connected = [(dst, v) for dst, v in targets if v.requires_grad]
        pushed = [zeros_like(v) if g is None else g for g, (_, v) in zip(
            _jvp([v for _, v in connected], variables, tangents, level, outside), connected)]
    done = {id(v) for _, v in connected}
    taken = {id(tan._storage) for tan in call.tangents if isinstance(tan, Tensor)}
    for (dst, v), value in zip(connected, pushed):
        if id(value._storage) in taken:  # the engine handed a tangent back as it was (clone)
            value = value.clone()
        _assign(tensors[dst] if isinstance(dst, int) else dst, value, isinstance(dst, int))
    for dst, v in targets:
        if id(v) not in done and isinstance(dst, int) and isinstance(call.tangents[dst], Tensor):
            _assign(tensors[dst], zeros_like(v), True)  # overwritten by a value without tangent


def _jvp(values: list[Tensor], variables: list[Tensor], tangents: list[Tensor], level: Any,
         outside: bool) -> list[Tensor | None]:
    """``J t`` for each of ``values`` (functions of ``variables``) along ``tangents``: the
    double-vjp trick; where the backward is not differentiable in its cotangent
    (``hardsigmoid``'s, as PyTorch's), one backward pass per element of the value."""
    from ..creation import ones_like
    from .engine import grad

    if not values:
        return []
    # ``J^T u`` is linear in ``u``, so any ``u`` will do; ones, not zeros: a backward
    # written through ``log(abs(grad))`` (``logcumsumexp``'s, as PyTorch's) is not
    # differentiable at a zero cotangent
    dummies = [ones_like(v).requires_grad_() for v in values]
    level.private.update(id(d) for d in dummies)
    pulled = grad(values, variables, grad_outputs=dummies, retain_graph=True, create_graph=True,
                  allow_unused=True)
    pairs = [(p, tan) for p, tan in zip(pulled, tangents) if p is not None and p.requires_grad]
    if not pairs:
        return [None] * len(values)
    try:
        got = grad([p for p, _ in pairs], dummies, grad_outputs=[tan for _, tan in pairs],
                   retain_graph=outside, create_graph=outside, allow_unused=True)
    except (RuntimeError, NotImplementedError):
        return [_jvp_by_rows(v, variables, tangents) for v in values]
    return [g if g is None else level.leave(g) if outside else g.detach() for g in got]


def _jvp_by_rows(value: Tensor, variables: list[Tensor], tangents: list[Tensor]) -> Tensor:
    """``J t`` row by row: each element's gradient (one backward pass) dotted with ``t``."""
    from .engine import grad

    flat = value.reshape(-1)
    out = np.zeros(flat.numel(), dtype=value.dtype)
    for k in range(flat.numel()):
        grads = grad([flat[k]], variables, retain_graph=True, allow_unused=True)
        out[k] = sum(float((g * tan).sum()) for g, tan in zip(grads, tangents) if g is not None)
    return Tensor._from_buffer(out, value._sizes)


def _assign(t: Tensor, value: Tensor, in_place: bool) -> None:
    """``t``'s tangent is now ``value``: set (a fresh output) or written into the tangent
    ``t`` has (an argument written in place; a view's base gets a zero tangent first)."""
    if value.dtype != t.dtype:
        value = value.to(t.dtype)
    if not in_place:
        dt.set_tangent(t, dt.laid_out_like(t, value))
        return
    current = dt.tangent_of(t)
    if not isinstance(current, Tensor):
        base = t._base
        if base is not None:
            dt.set_tangent(base, dt.zeros_like_storage(base, t.dtype), shows_through=True)
            current = dt.tangent_of(t)
        else:  # (a root made dual by the write: its views made before see it)
            dt.set_tangent(t, dt.laid_out_like(t, value), shows_through=True)
            return
    if value.requires_grad or current.requires_grad:  # a write the tangent's graph records
        try:
            with grad_mode.enable_grad():
                current.copy_(value)  # type: ignore[attr-defined]
        except RuntimeError as e:  # (a leaf tangent requiring grad: PyTorch's error, unpacked)
            dt.set_tangent(t, dt.TangentError(RuntimeError, str(e)))
        return
    # Only the elements whose tangent changed are written (through NumPy): the same as a
    # copy, and right for a write through a self-overlapping view (``expand``), where the
    # aliases of a written element that were not written keep the old tangent
    old, new = current._numpy(), value.detach()._numpy()
    changed = (old != new) & ~(np.isnan(old) & np.isnan(new))
    if changed.any():
        old[changed] = new[changed]
        current._storage.bump("forward AD")
