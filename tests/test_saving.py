"""``jitgrad.save`` / ``jitgrad.load`` in ``torch.save``'s format: files go both ways
between jitgrad and PyTorch (also under torch.load's default ``weights_only=True``), with
dtypes, geometry, memory shared between views, ``requires_grad`` and Parameters kept."""

from __future__ import annotations

import collections
import io
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import jitgrad


def _objects(lib: Any) -> dict[str, Any]:
    a = lib.arange(6.0).reshape(2, 3)
    sd = collections.OrderedDict(
        w=a, v=a[:, 1], t=a.t(), b=lib.arange(3), h=lib.ones(2, dtype=lib.float64, requires_grad=True),
        p=lib.nn.Parameter(lib.ones(2)), i=lib.ones(2, dtype=lib.int32), bo=lib.tensor([True, False]),
        e=lib.ones(2).expand(3, 2), z=lib.zeros(0), s=lib.tensor(3.5), half=lib.ones(2, dtype=lib.float16),
        i16=lib.arange(3, dtype=lib.int16), u8=lib.arange(3, dtype=lib.uint8), i8=lib.arange(3, dtype=lib.int8),
    )
    return {"sd": sd, "n": 3, "s": "x", "l": [1.5, None, (1, 2)], "g": lib.ones(2, requires_grad=True) * 2}


def _describe(obj: dict[str, Any]) -> Any:
    sd = obj["sd"]
    tensors = {
        k: (tuple(v.shape), v.stride(), v.storage_offset(), str(v.dtype).split(".")[-1], v.requires_grad,
            type(v).__name__, v.detach().numpy().tolist())
        for k, v in sd.items()
    }
    sd["w"][0, 1] = 100  # the views share the loaded memory
    shared = (sd["v"].tolist(), sd["t"].tolist())
    g = obj["g"]
    return tensors, shared, obj["n"], obj["s"], obj["l"], g.tolist(), g.requires_grad, g.is_leaf


@pytest.mark.parametrize("writer, reader", [(jitgrad, torch), (torch, jitgrad), (jitgrad, jitgrad)],
                         ids=["jitgrad-to-torch", "torch-to-jitgrad", "jitgrad-to-jitgrad"])
def test_files_go_both_ways(tmp_path: Path, writer: Any, reader: Any) -> None:
    path = tmp_path / "x.pt"
    writer.save(_objects(writer), path)
    loaded = reader.load(path)
    assert type(loaded["sd"]).__name__ == "OrderedDict"
    assert _describe(loaded) == _describe(torch.load(_torch_copy(tmp_path, writer)))


def _torch_copy(tmp_path: Path, writer: Any) -> Path:
    """The same objects saved by PyTorch: the reference."""
    path = tmp_path / "reference.pt"
    torch.save(_objects(torch), path)
    return path


def test_file_objects_and_state_dicts(tmp_path: Path) -> None:
    buf = io.BytesIO()
    jitgrad.save({"x": jitgrad.arange(4.0)}, buf)
    buf.seek(0)
    assert torch.load(buf)["x"].tolist() == [0.0, 1.0, 2.0, 3.0]
    m = torch.nn.Linear(3, 2)
    torch.save(m.state_dict(), tmp_path / "m.pt")
    jm = jitgrad.nn.Linear(3, 2)
    jm.load_state_dict(jitgrad.load(tmp_path / "m.pt", map_location="cpu"))
    np.testing.assert_array_equal(jm.weight.detach().numpy(), m.weight.detach().numpy())
    jitgrad.save(jm.state_dict(), tmp_path / "jm.pt")
    m2 = torch.nn.Linear(3, 2)
    m2.load_state_dict(torch.load(tmp_path / "jm.pt"))
    assert torch.equal(m2.bias, m.bias)


class Foo:
    pass


def test_weights_only_by_default(tmp_path: Path) -> None:
    torch.save({"f": Foo()}, tmp_path / "f.pt")
    for lib in (jitgrad, torch):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            lib.load(tmp_path / "f.pt")
    assert type(jitgrad.load(tmp_path / "f.pt", weights_only=False)["f"]) is Foo


def test_not_a_zip_archive(tmp_path: Path) -> None:
    (tmp_path / "old.pt").write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(RuntimeError, match="not a zip archive"):
        jitgrad.load(tmp_path / "old.pt")
