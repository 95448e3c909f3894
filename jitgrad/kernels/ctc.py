"""The CTC kernels (``_ctc_jit.py`` says what they compute and why), loaded on first use
(``_lazy.py``)."""
from __future__ import annotations

from ._lazy import LazyKernel

alpha = LazyKernel("_ctc_jit", "ctc_alpha")
grad = LazyKernel("_ctc_jit", "ctc_grad")
