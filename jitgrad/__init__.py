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

# -- dtypes, devices, creation (dtypes.py, device.py, creation.py, ranges.py, randomness.py) ----
from . import backends, cuda  # noqa: E402  (cuda.is_available() is False: CPU only)
from .creation import empty_strided  # noqa: E402
from .device import device  # noqa: E402
from .dtypes import (  # noqa: E402
    bfloat16, complex32, complex64, complex128, dtype, finfo, float16, get_default_dtype, iinfo,
    int8, int16, int32, set_default_dtype, uint8, uint16, uint32, uint64,
)
from .dtypes import complex64 as cfloat  # noqa: E402
from .dtypes import complex128 as cdouble  # noqa: E402
from .dtypes import float16 as half  # noqa: E402
from .dtypes import float32 as float  # noqa: E402,A001
from .dtypes import float64 as double  # noqa: E402
from .dtypes import int16 as short  # noqa: E402
from .dtypes import int32 as int  # noqa: E402,A001
from .dtypes import int64 as long  # noqa: E402
from .layouts import contiguous_format, memory_format, preserve_format, strided  # noqa: E402
from .layouts import layout  # noqa: E402
from .ops.meshgrid import meshgrid  # noqa: E402
from .ops.promotion import can_cast, promote_types, result_type  # noqa: E402
from .randomness import (  # noqa: E402
    Generator, rand_like, randint, randint_like, randn_like, randperm,
)
from .ranges import eye, logspace  # noqa: E402

__all__ += [  # dtypes, devices, creation
    "Generator", "backends", "bfloat16", "can_cast", "cdouble", "cfloat", "complex128",
    "complex32", "complex64", "contiguous_format", "cuda", "device", "double", "dtype",
    "empty_strided", "eye", "finfo", "promote_types", "randperm", "result_type",
    "float", "float16", "get_default_dtype", "half", "iinfo", "int", "int16", "int32", "int8",
    "layout", "logspace", "long", "memory_format", "meshgrid", "preserve_format", "rand_like",
    "randint", "randint_like", "randn_like", "set_default_dtype", "short", "strided", "uint16",
    "uint32", "uint64", "uint8",
]
