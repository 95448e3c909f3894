"""jitgrad: reverse-mode autograd for NumPy users, with Numba kernels, exact for strided views
and in-place mutation."""

from __future__ import annotations

__version__ = "0.1.0"

from . import _bind  # noqa: F401  (attaches methods to Tensor)
from . import autograd
from .autograd import (
    enable_grad, is_anomaly_check_nan_enabled, is_anomaly_enabled, is_grad_enabled, no_grad,
    set_grad_enabled,
)
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import bool_ as bool  # noqa: A001  (PyTorch's name: jitgrad.bool)
from .dtypes import float32, float64, int64
from .geometry import Size
from .storage import OutOfMemoryError
from .tensor import Tensor

# -- reductions, softmax family, matrix products, joins ---------------------------------------
from .ops.linalg import bmm, dot, matmul, mm, mv
from .ops.reduction import amax, amin, log_softmax, logsumexp, max, mean, min, softmax, sum  # noqa: A004
from .ops.structure import cat, stack

# -- elementwise arithmetic, pointwise functions, comparisons, where --------------------------
from .ops.compare import (
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, eq, ge, gt, le, logical_and, logical_not,
    logical_or, logical_xor, lt, ne, where,
)
from .ops.elementwise import add, div, maximum, minimum, mul, neg, reciprocal, sub
from .ops.power import pow  # noqa: A004
from .ops.unary import abs, clamp, cos, exp, log, relu, sigmoid, sin, sqrt, tanh  # noqa: A004

from . import optim  # torch.optim's counterpart: SGD, Adam
from . import viz  # to_dot / draw: the autograd graph as Graphviz

__all__ = [
    "OutOfMemoryError",
    "autograd",
    "optim",
    "viz",
    "enable_grad",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
    "Size",
    "Tensor",
    "__version__",
    "arange",
    "as_tensor",
    "bool",
    "empty",
    "empty_like",
    "float32",
    "float64",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "int64",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "randn",
    "tensor",
    "zeros",
    "zeros_like",
]

__all__ += [  # reductions, softmax family, matrix products, joins
    "amax", "amin", "bmm", "cat", "dot", "log_softmax", "logsumexp", "matmul", "max", "mean",
    "min", "mm", "mv", "softmax", "stack", "sum",
]

__all__ += [  # elementwise arithmetic, pointwise functions, comparisons, where
    "abs", "add", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "clamp", "cos",
    "div", "eq", "exp", "ge", "gt", "le", "log", "logical_and", "logical_not", "logical_or",
    "logical_xor", "lt", "maximum", "minimum", "mul", "ne", "neg", "pow", "reciprocal", "relu",
    "sigmoid", "sin", "sqrt", "sub", "tanh", "where",
]

# -- views as functions, their *_copy variants, inference mode (ops/view_ops.py,
#    ops/view_copy.py, autograd/grad_mode.py) ---------------------------------------------------
from .autograd.grad_mode import inference_mode, is_inference_mode_enabled  # noqa: E402
from .autograd.tensor_data import is_inference  # noqa: E402
from .ops.closeness import allclose  # noqa: E402
from .ops.as_strided import as_strided  # noqa: E402
from .ops.view_copy import (  # noqa: E402
    alias_copy, as_strided_copy, diagonal_copy, expand_copy, narrow_copy, permute_copy,
    select_copy, split_copy, split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy,
    unbind_copy, unfold_copy, unsqueeze_copy, view_copy,
)
from .ops.view_ops import (  # noqa: E402
    adjoint, chunk, diagonal, flatten, moveaxis, movedim, narrow, permute, reshape, select,
    split, split_with_sizes, squeeze, swapaxes, swapdims, t, transpose, unbind, unsafe_chunk,
    unsafe_split, unsafe_split_with_sizes, unsqueeze,
)

__all__ += [  # views as functions, *_copy variants, inference mode
    "inference_mode", "is_inference_mode_enabled", "allclose", "adjoint", "alias_copy", "as_strided", "as_strided_copy", "chunk", "diagonal",
    "diagonal_copy", "expand_copy", "flatten", "is_inference", "moveaxis", "movedim", "narrow",
    "narrow_copy", "permute", "permute_copy", "reshape", "select", "select_copy", "split",
    "split_copy", "split_with_sizes", "split_with_sizes_copy", "squeeze", "squeeze_copy",
    "swapaxes", "swapdims", "t", "t_copy", "transpose", "transpose_copy", "unbind",
    "unbind_copy", "unfold_copy", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes",
    "unsqueeze", "unsqueeze_copy", "view_copy",
]
