"""``jitgrad.viz``: the autograd graph as DOT text, rendered by Graphviz when it is installed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import jitgrad
from jitgrad import viz

HAS_DOT = shutil.which("dot") is not None


def inplace_on_view() -> Any:
    """A leaf, a non-leaf base, an in-place multiply through a strided view, a reduction."""
    jitgrad.manual_seed(0)
    x = jitgrad.randn(3, 4, requires_grad=True)
    w = jitgrad.randn(2, requires_grad=True)
    base = x * 1.0
    base[1:, ::2].mul_(w)
    return (base ** 2).sum()


def labels(dot: str) -> list[str]:
    return [m.replace("\\n", "\n") for m in re.findall(r'label="((?:[^"\\]|\\.)*)"', dot)]


def test_dot_text_of_inplace_on_view() -> None:
    dot = viz.to_dot(inplace_on_view())
    assert isinstance(dot, str) and dot.startswith("digraph autograd {") and dot.endswith("}\n")
    found = labels(dot)
    assert "output\nfloat32 ()" in found
    assert "SumBackward0" in found
    assert "PowBackward0\nsaved float32 (3, 4)" in found
    assert (
        "CopySlices\nbase sizes=(3, 4) strides=(4, 1) offset=0\n"
        "view sizes=(2, 2) strides=(4, 2) offset=4\nfn MulBackward0\n"
        "fn saved float32 (2, 2)\nfn saved float32 (2,)"
    ) in found
    assert "AccumulateGrad\nleaf float32 (3, 4)" in found
    assert "AccumulateGrad\nleaf float32 (2,)" in found
    assert dot.count(" -> ") == 6  # x->mul, mul->copyslices, w->copyslices, ->pow, ->sum, ->out
    assert viz.to_dot(inplace_on_view()) == dot  # deterministic node names


def test_view_replay_mode_shows_view_fn() -> None:
    with jitgrad.autograd.view_replay():
        base = jitgrad.ones(3, 4, requires_grad=True).clone()
        base.narrow(0, 1, 2).t()[0].zero_()
    [row] = [lab for lab in labels(viz.to_dot(base)) if lab.startswith("CopySlices")]
    assert row.startswith(
        "CopySlices\nbase sizes=(3, 4) strides=(4, 1) offset=0\n"
        "view sizes=(2,) strides=(4,) offset=4\nview_fn narrow -> t -> "
    ) and row.endswith("\nfn ZeroBackward0"), row


def test_edge_into_second_output_is_labelled() -> None:
    x = jitgrad.ones(2, 3, requires_grad=True)
    a, b = (x * 2.0).unbind(0)
    dot = viz.to_dot(b * 3.0)
    assert re.search(r'n\d+ -> n\d+ \[label="1"\];', dot), dot
    assert '[label="0"]' not in dot


def test_no_history_and_anomaly_lines() -> None:
    dot = viz.to_dot(jitgrad.ones(2))
    assert dot.count("[label=") == 1 and "->" not in dot
    with jitgrad.autograd.set_detect_anomaly(True):
        y = jitgrad.ones(2, requires_grad=True).exp()
    assert f"ExpBackward0\nsaved float32 (2,)\nat {Path(__file__).name}:" in "".join(labels(viz.to_dot(y)))
    with pytest.raises(TypeError, match="expected a Tensor"):
        viz.to_dot([1.0])  # type: ignore[arg-type]


def test_freed_saved_tensors_and_custom_function() -> None:
    class Square(jitgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2.0 * x * g

    y = Square.apply(jitgrad.ones(4, requires_grad=True)).exp().sum()
    assert "SquareBackward\nsaved float32 (4,)" in labels(viz.to_dot(y))
    y.backward()
    assert "ExpBackward0\nsaved (freed)" in labels(viz.to_dot(y))


def test_deep_graph_is_not_recursive() -> None:
    x = jitgrad.ones(1, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y + 1.0
    assert viz.to_dot(y).count("AddBackward0") == 3000


def test_missing_dot_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(viz.GraphvizNotFoundError) as info:
        viz.draw(inplace_on_view(), tmp_path / "g.svg")
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError)
    for how in ("apt-get install graphviz", "conda install graphviz", "brew install graphviz"):
        assert how in msg
    dot = viz.to_dot(inplace_on_view())
    assert dot._repr_svg_() is None  # notebooks fall back to the text
    assert dot._repr_markdown_() == f"```dot\n{dot}```\n"
    assert str(dot) == repr(dot) == dot


def test_draw_rejects_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.svg or \.png"):
        viz.draw(inplace_on_view(), tmp_path / "g.pdf")


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")
def test_draw_svg_and_png(tmp_path: Path) -> None:
    out = inplace_on_view()
    svg = viz.draw(out, tmp_path / "g.svg")
    assert svg == str(tmp_path / "g.svg")
    text = Path(svg).read_text()
    assert "<svg" in text and "CopySlices" in text and "MulBackward0" in text
    png = Path(viz.draw(out, tmp_path / "g.png")).read_bytes()
    assert png.startswith(b"\x89PNG")
    dot = viz.to_dot(out)
    assert "<svg" in dot._repr_svg_() and dot._repr_markdown_() is None
