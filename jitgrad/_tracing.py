"""The switch ``jitgrad.compile`` traces through (Note [Compiled tapes] in
``jitgrad/compiler/compiled.py``).

``ACTIVE`` is None except while ``jitgrad.compile`` runs a function to trace it; then it is
the tracer, and the hooked sites (declared ops, arithmetic, reductions, writes, creation,
storage allocation, ``item``/``__bool__``) report to it. A hooked site costs one module
attribute read when nothing is traced. This module imports nothing, so any layer can hook.
"""

from __future__ import annotations

from typing import Any

ACTIVE: Any = None
