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

# -- gathers/scatters, masks, scans, statistics, sorting, shape ops (ops/gather_scatter.py,
#    ops/masking.py, ops/scatter_reduce.py, ops/scan.py, ops/statistics.py, ops/sorting.py,
#    ops/shape_ops.py) ---------------------------------------------------------------------------
from .ops.gather_scatter import (  # noqa: E402
    gather, index_add, index_copy, index_fill, index_select, repeat_interleave, scatter,
    scatter_add, take, take_along_dim,
)
from .ops.masking import masked_fill, masked_scatter, masked_select  # noqa: E402
from .ops.scan import cummax, cummin, cumprod, cumsum, logcumsumexp  # noqa: E402
from .ops.scatter_reduce import scatter_reduce  # noqa: E402
from .ops.shape_ops import (  # noqa: E402
    diag, diag_embed, diagflat, diff, flip, fliplr, flipud, narrow_copy,
    roll, rot90, tile, trace, tril, triu,
)
from .ops.sorting import argsort, bucketize, msort, nonzero, searchsorted, sort, topk, unique  # noqa: E402
from .ops.statistics import (  # noqa: E402
    all, aminmax, any, argmax, argmin, count_nonzero, kthvalue, median, nanmean, nanmedian,  # noqa: A004
    nansum, prod, std, std_mean, var, var_mean,
)

__all__ += [  # gathers/scatters, scans, statistics, sorting, shape ops
    "all", "aminmax", "any", "argmax", "argmin", "argsort", "bucketize", "count_nonzero",
    "cummax", "cummin", "cumprod", "cumsum", "diag", "diag_embed", "diagflat", "diff", "flip",
    "fliplr", "flipud", "gather", "index_add", "index_copy", "index_fill", "index_select",
    "kthvalue", "logcumsumexp", "masked_fill", "masked_scatter", "masked_select", "median",
    "msort", "nanmean", "nanmedian", "nansum", "narrow_copy", "nonzero", "prod",
    "repeat_interleave", "roll", "rot90", "scatter", "scatter_add", "scatter_reduce",
    "searchsorted", "sort", "std", "std_mean", "take", "take_along_dim", "tile", "topk", "trace",
    "tril", "triu", "unique", "var", "var_mean",
]
