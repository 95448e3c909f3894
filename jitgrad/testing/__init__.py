"""``torch.testing``'s counterpart: ``assert_close``, ``make_tensor`` and the deprecated
``assert_allclose``."""

from __future__ import annotations

import warnings
from typing import Any

from ..creation import as_tensor, tensor
from ..tensor import Tensor
from ._comparison import assert_close
from ._creation import make_tensor

# assert_allclose's own (looser) defaults, by dtype: (rtol, atol)
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated (as in PyTorch): ``assert_close`` with NaNs equal, dtypes promoted and looser
    default tolerances; ``expected`` is converted to ``actual``'s dtype."""
    warnings.warn("`jitgrad.testing.assert_allclose()` is deprecated; use `jitgrad.testing.assert_close()` "
                  "instead.", FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, Tensor) else tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(r for r, _ in pairs), max(a for _, a in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)


__all__ = ["assert_allclose", "assert_close", "make_tensor"]
