"""Draw the autograd graph behind a tensor: ``to_dot(t)`` (Graphviz DOT text) and
``draw(t, path)`` (SVG or PNG, through Graphviz's ``dot`` program).

Arrows follow the forward pass (an input points at the node that used it), as torchviz
draws them; the gradient flows against them. Each node shows its PyTorch name, the dtype and
shape of every tensor it saved for backward, and any geometry it keeps; a ``CopySlices``
shows its base and view geometry (sizes / strides / offset) and the in-place op's backward it
wraps (Note [CopySlices rebasing]); a leaf's ``AccumulateGrad`` shows the leaf's shape. An
edge into output ``k > 0`` of a multi-output node is labelled ``k``. Made under anomaly mode
(``jitgrad.autograd.detect_anomaly``), nodes also show the source line that created them.

In a notebook the result of ``to_dot`` displays itself: as SVG when ``dot`` is installed,
else as its DOT text.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from .autograd.graph import AccumulateGrad, gradient_edge
from .autograd.node import Node, SavedTensor
from .geometry import Geometry
from .ops.copy_slices import CopySlices
from .tensor import Tensor

__all__ = ["Dot", "GraphvizNotFoundError", "draw", "to_dot"]

_INSTALL = (
    "Graphviz's `dot` program was not found on PATH; it renders the graph. Install it with "
    "`apt-get install graphviz` (Debian/Ubuntu), `conda install graphviz` or `brew install "
    "graphviz` (macOS), or render the text of jitgrad.viz.to_dot(t) elsewhere."
)
_FORMATS = {".svg": "svg", ".png": "png"}


class GraphvizNotFoundError(RuntimeError):
    """Raised by ``draw`` (and rendering) when Graphviz's ``dot`` is not installed."""


class Dot(str):
    """DOT text that displays as a picture in notebooks (``_repr_svg_``) when ``dot`` is
    installed, and as a ``dot`` code block otherwise."""

    def render(self, fmt: str = "svg") -> bytes:
        """The graph rendered by ``dot -T<fmt>``."""
        exe = shutil.which("dot")
        if exe is None:
            raise GraphvizNotFoundError(_INSTALL)
        done = subprocess.run([exe, f"-T{fmt}"], input=str(self).encode(), capture_output=True)
        if done.returncode != 0:
            raise RuntimeError(f"dot -T{fmt} failed: {done.stderr.decode(errors='replace')}")
        return done.stdout

    def _repr_svg_(self) -> str | None:
        return self.render("svg").decode() if shutil.which("dot") else None

    def _repr_markdown_(self) -> str | None:
        return None if shutil.which("dot") else f"```dot\n{self}```\n"

    def __repr__(self) -> str:
        return str(self)


def to_dot(tensor: Tensor, name: str = "output") -> Dot:
    """The autograd graph that ``tensor.backward()`` would run, as Graphviz DOT text."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dot: expected a Tensor, got {type(tensor).__name__}")
    lines = [
        "digraph autograd {",
        '  graph [rankdir=TB, fontsize=10];',
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    root = f"{name}\n{_tensor_label(tensor)}"
    lines.append(f'  t0 [label="{_escape(root)}", shape=ellipse, fillcolor="#c8e6c9"];')
    fn, nr = gradient_edge(tensor)
    if fn is not None:
        ids: dict[Node, str] = {}
        _add_node(fn, ids, lines)
        lines.append(f'  {ids[fn]} -> t0{_edge_label(nr)};')
    lines.append("}")
    return Dot("\n".join(lines) + "\n")


def draw(tensor: Tensor, path: str | os.PathLike[str]) -> str:
    """Render ``to_dot(tensor)`` to ``path`` (``.svg`` or ``.png``) with Graphviz; returns
    the path. Raises ``GraphvizNotFoundError`` saying how to install ``dot`` when it is
    missing."""
    path = os.fspath(path)
    fmt = _FORMATS.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        raise ValueError(f"draw: expected a path ending in .svg or .png, got {path!r}")
    data = to_dot(tensor).render(fmt)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _add_node(root: Node, ids: dict[Node, str], lines: list[str]) -> None:
    """Emit every node reachable from ``root`` and the edges between them (iteratively:
    graphs of long simulations are deep)."""
    ids[root] = "n0"
    stack = [root]
    while stack:
        node = stack.pop()
        me = ids[node]
        label, fill = _node_label(node)
        lines.append(f'  {me} [label="{_escape(label)}", fillcolor="{fill}"];')
        for nxt, nr in zip(node._next, node._nrs):
            if nxt is None:
                continue
            if nxt not in ids:
                ids[nxt] = f"n{len(ids)}"
                stack.append(nxt)
            lines.append(f"  {ids[nxt]} -> {me}{_edge_label(nr)};")


def _node_label(node: Node) -> tuple[str, str]:
    title = node.name().replace("torch::autograd::", "")
    rows = [title]
    fill = "white"
    if isinstance(node, AccumulateGrad):
        rows.append(f"leaf {_tensor_label(node.variable)}")
        fill = "#bbdefb"
    elif isinstance(node, CopySlices):
        rows.append(f"base {_geometry(node.base)}")
        rows.append(f"view {_geometry(node.view)}")
        if node.view_fn is not None:
            rows.append("view_fn " + " -> ".join(getattr(f, "__name__", "?") for f, _ in node.view_fn))
        fn = node.fn
        rows.append(f"fn {fn.name() if fn is not None else '(released)'}")
        rows.extend(f"fn {row}" for row in _saved_rows(fn) if fn is not None)
        fill = "#ffe0b2"
    else:
        attrs = dict(vars(node))
        if isinstance(getattr(type(node), "rel", None), property):  # a view node's, computed on first use
            attrs["rel"] = node.rel
        for key, value in attrs.items():
            if isinstance(value, Geometry) and not key.startswith("_"):
                rows.append(f"{key} {_geometry(value)}")
    rows.extend(_saved_rows(node))
    where = node.__dict__.get("_metadata", {}).get("created_at")
    if where is not None:
        rows.append(f"at {os.path.basename(where)}")
    return "\n".join(rows), fill


def _saved_rows(node: Node) -> list[str]:
    """One row per tensor ``node`` saved for backward (``SavingNode.saved``, or a custom
    Function context's ``_saved``)."""
    saved = getattr(node, "saved", None)
    if saved is None:
        saved = getattr(node, "_saved", None)
    return [
        "saved (freed)" if s._data is None else f"saved {_tensor_label(s._data)}"
        for s in saved or () if isinstance(s, SavedTensor)
    ]


def _tensor_label(t: Tensor) -> str:
    return f"{t.dtype.name} {tuple(t._sizes)}"


def _geometry(g: Geometry) -> str:
    return f"sizes={tuple(g.sizes)} strides={tuple(g.strides)} offset={g.storage_offset}"


def _edge_label(nr: int) -> str:
    return f' [label="{nr}"]' if nr > 0 else ""


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
