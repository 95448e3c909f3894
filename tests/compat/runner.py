"""Run one PyTorch-style program twice: with the real ``torch``, then with ``torch`` mapped to
jitgrad, and compare what it returns.

A program is one file under ``programs/`` that does ``import torch`` (and ``torch.nn``,
``torch.nn.functional``, ``torch.optim``... as it likes) and defines ``run()`` returning a
dict of named results (tensors, numbers, or lists of them). The file is never edited for
jitgrad: ``torch_is_jitgrad()`` makes every ``torch`` / ``torch.X.Y`` import resolve to
``jitgrad`` / ``jitgrad.X.Y`` (a module jitgrad lacks fails to import, naming it) and puts
``sys.modules`` back as it was afterwards.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import itertools
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np

PROGRAMS = Path(__file__).parent / "programs"
_counter = itertools.count()


class _TorchToJitgrad(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``torch[.X.Y]`` to the already-importable ``jitgrad[.X.Y]``."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "torch" and not name.startswith("torch."):
            return None
        real = "jitgrad" + name[len("torch"):]
        try:
            importlib.import_module(real)
        except ModuleNotFoundError:
            raise ModuleNotFoundError(
                f"the program imports {name!r}, but jitgrad has no module {real!r}", name=name
            ) from None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec: Any) -> Any:
        return sys.modules["jitgrad" + spec.name[len("torch"):]]

    def exec_module(self, module: Any) -> None:
        pass


def _torch_keys() -> list[str]:
    return [k for k in sys.modules if k == "torch" or k.startswith("torch.")]


@contextlib.contextmanager
def torch_is_jitgrad() -> Iterator[None]:
    """Inside: ``import torch`` (and its submodules) gives jitgrad. Outside: as before."""
    import jitgrad  # noqa: F401  (imported before torch's entries are hidden)

    saved = {k: sys.modules.pop(k) for k in _torch_keys()}
    finder = _TorchToJitgrad()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in _torch_keys():
            del sys.modules[k]
        sys.modules.update(saved)


def load(name: str) -> Any:
    """Import ``programs/<name>.py`` afresh (a new module object each time)."""
    path = PROGRAMS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_compat_{name}_{next(_counter)}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def to_numpy(value: Any) -> Any:
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return np.array(value.detach().numpy())
    if isinstance(value, (list, tuple)):
        return [to_numpy(v) for v in value]
    return np.asarray(value)


def run_with_torch(name: str) -> dict[str, Any]:
    import torch

    default = torch.get_default_dtype()
    try:
        return {k: to_numpy(v) for k, v in load(name).run().items()}
    finally:
        torch.set_default_dtype(default)  # a program may change it


def run_with_jitgrad(name: str) -> dict[str, Any]:
    import jitgrad

    default = jitgrad.dtypes.DEFAULT_FLOAT
    with torch_is_jitgrad():
        try:
            return {k: to_numpy(v) for k, v in load(name).run().items()}
        finally:
            jitgrad.dtypes.DEFAULT_FLOAT = default


def assert_same_results(ours: dict[str, Any], theirs: dict[str, Any], rtol: float = 1e-10,
                        atol: float = 1e-12) -> None:
    assert list(ours) == list(theirs), f"result names differ: {list(ours)} vs {list(theirs)}"
    for key in theirs:
        a, b = ours[key], theirs[key]
        if isinstance(b, list):
            assert len(a) == len(b), key
            for i, (x, y) in enumerate(zip(a, b)):
                np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{key}[{i}]")
        else:
            assert np.shape(a) == np.shape(b), f"{key}: shape {np.shape(a)} vs {np.shape(b)}"
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=key)


def compare(name: str) -> None:
    assert_same_results(run_with_jitgrad(name), run_with_torch(name))


def _dotted(node: Any) -> str | None:
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def missing_names(name: str) -> list[str]:
    """The PyTorch names a program uses that jitgrad lacks, found statically: dotted names
    starting at an imported torch module (``torch.linalg.solve``, ``F.pad``), and attribute
    names that are ``torch.Tensor`` members but not ``jitgrad.Tensor`` ones (methods; not
    on ``self``, nor dict/list methods). A heuristic: it can miss a name, or flag one."""
    import ast

    import torch

    import jitgrad

    tree = ast.parse((PROGRAMS / f"{name}.py").read_text())
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "torch"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    missing: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        dotted = _dotted(node)
        head = dotted.split(".")[0] if dotted else None
        if head in aliases:
            full = aliases[head] + dotted[len(head):]  # type: ignore[index]
            if _resolves(torch, full) and not _resolves(jitgrad, full):
                missing.add(full)
        elif (hasattr(torch.Tensor, node.attr) and not hasattr(jitgrad.Tensor, node.attr)
              and node.attr not in _CONTAINER_METHODS and head != "self"):  # self.norm: a submodule
            missing.add(f"Tensor.{node.attr}")
    return sorted(missing)


_CONTAINER_METHODS = frozenset(dir(dict)) | frozenset(dir(list))  # .values() is not Tensor.values


def _resolves(root: Any, dotted: str) -> bool:
    obj = root
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False
    return True
