"""Generate what the op declarations imply, as explicit text that grep and type checkers see:

- ``jitgrad/_bind.py``: one ``Tensor.<name> = <module>.<name>`` line per declared op (and
  its in-place variant), between the ``# BEGIN GENERATED`` / ``# END GENERATED`` markers;
- ``jitgrad/__init__.py``: the explicit imports and ``__all__`` entries of the declared ops,
  between the same markers;
- ``jitgrad/tensor.pyi``: the stub of ``Tensor`` as it is after ``import jitgrad`` (runtime
  introspection, so methods any module attaches are covered), with their signatures.

``python -m jitgrad.tools.gen_bindings`` rewrites the three; ``--check`` exits 1 when any is
stale (``tests/test_ops_declared.py`` checks the committed files are current).
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent
BEGIN, END = "# BEGIN GENERATED", "# END GENERATED"


def _declared() -> list[Any]:
    import jitgrad  # noqa: F401  (every declaring module is imported by then)
    from jitgrad.ops.declare import DECLARED

    return DECLARED


def _module_alias(module: str) -> str:
    return module.rsplit(".", 1)[1]


def _checked(decl: Any, name: str, fn: Any) -> None:
    module = sys.modules[decl.module]
    if getattr(module, name, None) is not fn:
        raise SystemExit(f"gen_bindings: {decl.module} must define `{name} = ...` for the declared op {decl.name!r}")


def bind_block() -> str:
    lines = []
    for decl in _declared():
        if not decl.method:
            continue
        alias = _module_alias(decl.module)
        for name, fn in ((decl.name, decl.fn), (decl.name + "_", decl.fn_)):
            if fn is not None:
                _checked(decl, name, fn)
                lines.append(f"Tensor.{name} = {alias}.{name}")
    return "\n".join(lines)


def init_block() -> str:
    by_module: dict[str, list[str]] = {}
    for decl in _declared():
        if decl.export:
            _checked(decl, decl.name, decl.fn)
            by_module.setdefault(decl.module, []).append(decl.name)
    lines = []
    names: list[str] = []
    for module, ops in by_module.items():
        rel = "." + module.split(".", 1)[1]
        lines.append(f"from {rel} import (  # noqa: A004")
        lines += _wrapped(", ".join(sorted(ops)) + ",", "    ")
        lines.append(")")
        names += ops
    lines.append("__all__ += [")
    lines += _wrapped(", ".join(f'"{n}"' for n in sorted(names)) + ",", "    ")
    lines.append("]")
    return "\n".join(lines)


def _wrapped(text: str, indent: str, width: int = 100) -> list[str]:
    out, line = [], indent
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width and line.strip():
            out.append(line.rstrip())
            line = indent
        line += word + " "
    out.append(line.rstrip())
    return out


def replace_block(text: str, block: str, path: Path) -> str:
    pattern = re.compile(rf"({re.escape(BEGIN)}[^\n]*\n)(.*?)(^{re.escape(END)})", re.S | re.M)
    if not pattern.search(text):
        raise SystemExit(f"gen_bindings: no {BEGIN} ... {END} markers in {path}")
    return pattern.sub(lambda m: m.group(1) + block + "\n" + m.group(3), text, count=1)


# -- the Tensor stub -----------------------------------------------------------------------
_KNOWN = {"Tensor", "Any", "int", "float", "bool", "str", "None", "Sequence", "tuple", "list", "dict",
          "Callable", "Iterator", "np", "dtype", "ndarray", "Size", "object", "slice", "type",
          "Storage", "Geometry", "Node"}
_SKIP = {"__module__", "__doc__", "__slots__", "__dict__", "__weakref__", "__annotations__",
         "__firstlineno__", "__static_attributes__", "__static_fields__"}


def _annotation(a: Any) -> str:
    if a is inspect.Parameter.empty:
        return "Any"
    text = a if isinstance(a, str) else getattr(a, "__name__", repr(a))
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    return text if words <= _KNOWN else "Any"


def _signature(name: str, fn: Any) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "(self, *args: Any, **kwargs: Any) -> Any"
    params = []
    seen_star = False
    for i, p in enumerate(sig.parameters.values()):
        if i == 0:
            params.append("self")
            continue
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text, seen_star = "*" + p.name, True
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
        elif p.kind is p.KEYWORD_ONLY and not seen_star:
            params.append("*")
            seen_star = True
        text += f": {_annotation(p.annotation)}"
        if p.default is not p.empty:
            text += " = ..."
        params.append(text)
    if not params:
        params = ["self"]
    return f"({', '.join(params)}) -> {_annotation(sig.return_annotation)}"


def stub() -> str:
    import jitgrad  # noqa: F401

    from jitgrad.tensor import Tensor

    ann = {}
    for klass in reversed(Tensor.__mro__):
        ann.update(getattr(klass, "__annotations__", {}))
    lines = [
        '"""Generated by `python -m jitgrad.tools.gen_bindings` from `Tensor` after `import jitgrad`',
        '(every method the layers above attach, with its signature). Do not edit by hand."""',
        "",
        "from typing import Any, Callable, Iterator, Sequence",
        "",
        "import numpy as np",
        "from numpy import dtype, ndarray",
        "",
        "from .autograd.node import Node",
        "from .geometry import Geometry, Size",
        "from .storage import Storage",
        "",
        "",
        "class Tensor:",
    ]
    body = []
    for name in sorted(set(Tensor.__slots__) | set(ann)):
        body.append(f"    {name}: {_annotation(ann.get(name, inspect.Parameter.empty))}")
    for name in sorted(Tensor.__dict__):
        if name in _SKIP or name in Tensor.__slots__:
            continue
        value = Tensor.__dict__[name]
        ignore = "  # type: ignore[override]" if name in ("__eq__", "__ne__", "__hash__") else ""
        if isinstance(value, property):
            body.append("    @property")
            body.append(f"    def {name}{_signature(name, value.fget)}: ...")
            if value.fset is not None:
                body.append(f"    @{name}.setter")
                body.append(f"    def {name}(self, value: Any) -> None: ...")
        elif isinstance(value, classmethod):
            body.append("    @classmethod")
            body.append(f"    def {name}{_signature(name, value.__func__).replace('(self', '(cls', 1)}: ...")
        elif isinstance(value, staticmethod):
            body.append("    @staticmethod")
            body.append(f"    def {name}(*args: Any, **kwargs: Any) -> Any: ...")
        elif callable(value):
            body.append(f"    def {name}{_signature(name, value)}: ...{ignore}")
        else:
            body.append(f"    {name}: Any{ignore}")
    return "\n".join(lines + body) + "\n"


# -- entry point ---------------------------------------------------------------------------
def outputs() -> dict[Path, str]:
    """The generated content of each file, as it should be committed."""
    bind, init = PACKAGE / "_bind.py", PACKAGE / "__init__.py"
    return {
        bind: replace_block(bind.read_text(), bind_block(), bind),
        init: replace_block(init.read_text(), init_block(), init),
        PACKAGE / "tensor.pyi": stub(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitgrad.tools.gen_bindings", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        current = path.read_text() if path.exists() else ""
        if current != text:
            stale.append(path)
            if not args.check:
                path.write_text(text)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path.relative_to(PACKAGE.parent)}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
