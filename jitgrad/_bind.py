# mypy: disable-error-code="method-assign"
"""Attach the functions of the layers above ``tensor.py`` to ``Tensor`` as methods.

One explicit assignment per method, so every method can be found with grep. The declared
pointwise ops' lines are generated from their declarations (between the ``BEGIN GENERATED``
and ``END GENERATED`` markers: ``python -m jitgrad.tools.gen_bindings``), which also writes
``tensor.pyi``, the stub type checkers and editors read for ``Tensor``'s methods (hence no
``# type: ignore`` here: mypy only objects to assigning methods, disabled above).
"""

from __future__ import annotations

from . import views
from .autograd import variable
from .ops import (  # noqa: F401  (the declaring modules are named by the generated lines)
    activations, as_strided, binary_math, clamp, compare, elementwise, pointwise, power, reduction, structure,
    view_ops, assignment,
)
from .tensor import Tensor

# autograd attributes (autograd/variable.py)
Tensor.requires_grad = property(variable.requires_grad, variable.set_requires_grad, variable.delete_requires_grad)
Tensor.requires_grad_ = variable.requires_grad_
Tensor.is_leaf = property(variable.is_leaf)
Tensor.grad_fn = property(variable.grad_fn)
Tensor.grad = property(variable.get_grad, variable.set_grad, variable.delete_grad)
Tensor.output_nr = property(variable.output_nr)
Tensor.retain_grad = variable.retain_grad
Tensor.retains_grad = property(variable.retains_grad)
Tensor.register_hook = variable.register_hook
Tensor.register_post_accumulate_grad_hook = variable.register_post_accumulate_grad_hook
Tensor.backward = variable.backward
Tensor.detach_ = variable.detach_
Tensor._repr_suffixes = variable.repr_suffixes
Tensor.__float__ = variable.to_float

# views (ops/view_ops.py: views.py plus their backward)
Tensor.as_strided = as_strided.as_strided
Tensor.narrow = view_ops.narrow
Tensor.select = view_ops.select
Tensor.transpose = view_ops.transpose
Tensor.t = view_ops.t
Tensor.T = property(view_ops.T)
Tensor.permute = view_ops.permute
Tensor.movedim = view_ops.movedim
Tensor.view = view_ops.view
Tensor.view_as = view_ops.view_as
Tensor.reshape = view_ops.reshape
Tensor.flatten = view_ops.flatten
Tensor.expand = view_ops.expand
Tensor.expand_as = view_ops.expand_as
Tensor.unsqueeze = view_ops.unsqueeze
Tensor.squeeze = view_ops.squeeze
Tensor.diagonal = view_ops.diagonal
Tensor.unfold = view_ops.unfold
Tensor.unbind = view_ops.unbind
Tensor.split = view_ops.split
Tensor.chunk = view_ops.chunk
Tensor.detach = views.detach

# -- elementwise arithmetic, pointwise functions, comparisons (ops/elementwise.py,
#    ops/clamp.py, ops/power.py, ops/compare.py) ------------------------------------------------
Tensor.add = elementwise.add
Tensor.add_ = elementwise.add_
Tensor.__add__ = elementwise.add_operator  # (the fused per-op path, fused.py, first)
Tensor.__radd__ = elementwise.add_operator  # s + x is x + s (edges as torch)
Tensor.__iadd__ = elementwise.add_
Tensor.sub = elementwise.sub
Tensor.sub_ = elementwise.sub_
Tensor.__sub__ = elementwise.sub_operator
Tensor.__rsub__ = elementwise.rsub_operator
Tensor.__isub__ = elementwise.sub_
Tensor.mul = elementwise.mul
Tensor.mul_ = elementwise.mul_
Tensor.__mul__ = elementwise.mul_operator
Tensor.__rmul__ = elementwise.mul_operator
Tensor.__imul__ = elementwise.mul_
Tensor.div = elementwise.div
Tensor.div_ = elementwise.div_
Tensor.__truediv__ = elementwise.div_operator
Tensor.__rtruediv__ = elementwise.rtruediv
Tensor.__itruediv__ = elementwise.div_
Tensor.__neg__ = elementwise.neg
Tensor.square = power.square
Tensor.square_ = power.square_
Tensor.pow = power.pow
Tensor.pow_ = power.pow_
Tensor.__pow__ = power.pow
Tensor.__rpow__ = power.rpow
Tensor.__ipow__ = power.pow_
Tensor.__abs__ = pointwise.abs
Tensor.clamp = clamp.clamp
Tensor.clamp_ = clamp.clamp_
Tensor.clamp_min = clamp.clamp_min
Tensor.clamp_min_ = clamp.clamp_min_
Tensor.clamp_max = clamp.clamp_max
Tensor.clamp_max_ = clamp.clamp_max_
Tensor.clip = clamp.clip
Tensor.clip_ = clamp.clip_
Tensor.where = compare.where_method
Tensor.eq = compare.eq
Tensor.ne = compare.ne
Tensor.lt = compare.lt
Tensor.le = compare.le
Tensor.gt = compare.gt
Tensor.ge = compare.ge
Tensor.__eq__ = compare.eq_operator
Tensor.__ne__ = compare.ne_operator
Tensor.__lt__ = compare.lt_operator
Tensor.__le__ = compare.le_operator
Tensor.__gt__ = compare.gt_operator
Tensor.__ge__ = compare.ge_operator
Tensor.logical_and = compare.logical_and_method
Tensor.logical_or = compare.logical_or_method
Tensor.logical_xor = compare.logical_xor_method
Tensor.logical_not = compare.logical_not
Tensor.bitwise_and = compare.bitwise_and
Tensor.bitwise_or = compare.bitwise_or
Tensor.bitwise_xor = compare.bitwise_xor
Tensor.bitwise_not = compare.bitwise_not
Tensor.__and__ = compare.and_operator
Tensor.__rand__ = compare.rand_operator
Tensor.__or__ = compare.or_operator
Tensor.__ror__ = compare.ror_operator
Tensor.__xor__ = compare.xor_operator
Tensor.__rxor__ = compare.rxor_operator
Tensor.__invert__ = compare.bitwise_not
Tensor.bitwise_and_ = elementwise.bitwise_and_
Tensor.bitwise_or_ = elementwise.bitwise_or_
Tensor.bitwise_xor_ = elementwise.bitwise_xor_
Tensor.__iand__ = elementwise.bitwise_and_
Tensor.__ior__ = elementwise.bitwise_or_
Tensor.__ixor__ = elementwise.bitwise_xor_

# -- declared pointwise ops (ops/declare.py; the declarations in ops/pointwise.py, activations.py,
#    binary_math.py, elementwise.py): generated by `python -m jitgrad.tools.gen_bindings` --
# BEGIN GENERATED: Tensor methods of the declared ops
Tensor.neg = elementwise.neg
Tensor.neg_ = elementwise.neg_
Tensor.reciprocal = elementwise.reciprocal
Tensor.reciprocal_ = elementwise.reciprocal_
Tensor.maximum = elementwise.maximum
Tensor.minimum = elementwise.minimum
Tensor.exp = pointwise.exp
Tensor.exp_ = pointwise.exp_
Tensor.log = pointwise.log
Tensor.log_ = pointwise.log_
Tensor.sqrt = pointwise.sqrt
Tensor.sqrt_ = pointwise.sqrt_
Tensor.rsqrt = pointwise.rsqrt
Tensor.rsqrt_ = pointwise.rsqrt_
Tensor.log1p = pointwise.log1p
Tensor.log1p_ = pointwise.log1p_
Tensor.expm1 = pointwise.expm1
Tensor.expm1_ = pointwise.expm1_
Tensor.log2 = pointwise.log2
Tensor.log2_ = pointwise.log2_
Tensor.log10 = pointwise.log10
Tensor.log10_ = pointwise.log10_
Tensor.exp2 = pointwise.exp2
Tensor.exp2_ = pointwise.exp2_
Tensor.sin = pointwise.sin
Tensor.sin_ = pointwise.sin_
Tensor.cos = pointwise.cos
Tensor.cos_ = pointwise.cos_
Tensor.tan = pointwise.tan
Tensor.tan_ = pointwise.tan_
Tensor.asin = pointwise.asin
Tensor.asin_ = pointwise.asin_
Tensor.acos = pointwise.acos
Tensor.acos_ = pointwise.acos_
Tensor.atan = pointwise.atan
Tensor.atan_ = pointwise.atan_
Tensor.sinh = pointwise.sinh
Tensor.sinh_ = pointwise.sinh_
Tensor.cosh = pointwise.cosh
Tensor.cosh_ = pointwise.cosh_
Tensor.tanh = pointwise.tanh
Tensor.tanh_ = pointwise.tanh_
Tensor.asinh = pointwise.asinh
Tensor.asinh_ = pointwise.asinh_
Tensor.acosh = pointwise.acosh
Tensor.acosh_ = pointwise.acosh_
Tensor.atanh = pointwise.atanh
Tensor.atanh_ = pointwise.atanh_
Tensor.erf = pointwise.erf
Tensor.erf_ = pointwise.erf_
Tensor.erfc = pointwise.erfc
Tensor.erfc_ = pointwise.erfc_
Tensor.erfinv = pointwise.erfinv
Tensor.erfinv_ = pointwise.erfinv_
Tensor.sigmoid = pointwise.sigmoid
Tensor.sigmoid_ = pointwise.sigmoid_
Tensor.sgn = pointwise.sgn
Tensor.sgn_ = pointwise.sgn_
Tensor.sign = pointwise.sign
Tensor.sign_ = pointwise.sign_
Tensor.abs = pointwise.abs
Tensor.abs_ = pointwise.abs_
Tensor.floor = pointwise.floor
Tensor.floor_ = pointwise.floor_
Tensor.ceil = pointwise.ceil
Tensor.ceil_ = pointwise.ceil_
Tensor.trunc = pointwise.trunc
Tensor.trunc_ = pointwise.trunc_
Tensor.round = pointwise.round
Tensor.round_ = pointwise.round_
Tensor.frac = pointwise.frac
Tensor.frac_ = pointwise.frac_
Tensor.nan_to_num = pointwise.nan_to_num
Tensor.nan_to_num_ = pointwise.nan_to_num_
Tensor.deg2rad = pointwise.deg2rad
Tensor.deg2rad_ = pointwise.deg2rad_
Tensor.rad2deg = pointwise.rad2deg
Tensor.rad2deg_ = pointwise.rad2deg_
Tensor.sinc = pointwise.sinc
Tensor.sinc_ = pointwise.sinc_
Tensor.isnan = pointwise.isnan
Tensor.isinf = pointwise.isinf
Tensor.isfinite = pointwise.isfinite
Tensor.isposinf = pointwise.isposinf
Tensor.isneginf = pointwise.isneginf
Tensor.signbit = pointwise.signbit
Tensor.relu = activations.relu
Tensor.relu_ = activations.relu_
Tensor.logit = activations.logit
Tensor.logit_ = activations.logit_
Tensor.atan2 = binary_math.atan2
Tensor.atan2_ = binary_math.atan2_
Tensor.hypot = binary_math.hypot
Tensor.hypot_ = binary_math.hypot_
Tensor.fmod = binary_math.fmod
Tensor.fmod_ = binary_math.fmod_
Tensor.remainder = binary_math.remainder
Tensor.remainder_ = binary_math.remainder_
Tensor.logaddexp = binary_math.logaddexp
Tensor.logaddexp2 = binary_math.logaddexp2
Tensor.xlogy = binary_math.xlogy
Tensor.xlogy_ = binary_math.xlogy_
Tensor.lerp = binary_math.lerp
Tensor.lerp_ = binary_math.lerp_
Tensor.addcmul = binary_math.addcmul
Tensor.addcmul_ = binary_math.addcmul_
Tensor.addcdiv = binary_math.addcdiv
Tensor.addcdiv_ = binary_math.addcdiv_
Tensor.copysign = binary_math.copysign
Tensor.copysign_ = binary_math.copysign_
# END GENERATED

# reductions (ops/reduction.py)
Tensor.sum = reduction.sum_method  # (the fused per-op path, fused.py, first)

# conversions (ops/structure.py)
Tensor.to = structure.to
Tensor.float = structure.float_
Tensor.double = structure.double
Tensor.long = structure.long
Tensor.bool = structure.bool_

# indexing (indexing.py)
Tensor.__getitem__ = view_ops.getitem
Tensor.__setitem__ = assignment.setitem
Tensor.index_put_ = assignment.index_put_

# copies and in-place writes (copying.py)
Tensor.clone = structure.clone
Tensor.contiguous = structure.contiguous
Tensor.copy_ = assignment.copy_
Tensor.fill_ = assignment.fill_
Tensor.zero_ = assignment.zero_

# -- reductions, softmax family, matrix products (ops/reduction.py, extremes.py, softmax.py, linalg.py)
from .ops import extremes, linalg, softmax  # noqa: E402

Tensor.mean = reduction.mean_method  # (the fused per-op path, fused.py, first)
Tensor.max = extremes.max
Tensor.min = extremes.min
Tensor.amax = extremes.amax
Tensor.amin = extremes.amin
Tensor.logsumexp = reduction.logsumexp
Tensor.softmax = softmax.softmax
Tensor.log_softmax = softmax.log_softmax
Tensor.matmul = linalg.matmul
Tensor.__matmul__ = linalg.matmul
Tensor.__rmatmul__ = lambda self, other: linalg.matmul(other, self)
Tensor.mm = linalg.mm
Tensor.bmm = linalg.bmm
Tensor.mv = linalg.mv
Tensor.dot = linalg.dot

# -- dtypes, devices, creation (tensor_new.py, ops/convert.py) --------------------------------
from . import tensor_new  # noqa: E402
from .ops import convert  # noqa: E402

Tensor.__new__ = tensor_new.legacy_new  # type: ignore[method-assign,assignment]  # Tensor(data)
Tensor.new = tensor_new.new
Tensor.new_tensor = tensor_new.new_tensor
Tensor.new_full = tensor_new.new_full
Tensor.new_empty = tensor_new.new_empty
Tensor.new_zeros = tensor_new.new_zeros
Tensor.new_ones = tensor_new.new_ones
Tensor.half = convert.half
Tensor.int = convert.int_
Tensor.short = convert.short
Tensor.char = convert.char
Tensor.byte = convert.byte

# -- gathers/scatters, masks, scans, statistics, sorting, shape ops (ops/gather_scatter.py,
#    ops/masking.py, ops/scatter_reduce.py, ops/scan.py, ops/statistics.py, ops/sorting.py,
#    ops/shape_ops.py) ---------------------------------------------------------------------------
from .ops import gather_scatter, masking, scan, scatter_reduce, shape_ops, sorting, statistics  # noqa: E402

Tensor.gather = gather_scatter.gather
Tensor.scatter = gather_scatter.scatter
Tensor.scatter_ = gather_scatter.scatter_
Tensor.scatter_add = gather_scatter.scatter_add
Tensor.scatter_add_ = gather_scatter.scatter_add_
Tensor.scatter_reduce = scatter_reduce.scatter_reduce
Tensor.scatter_reduce_ = scatter_reduce.scatter_reduce_
Tensor.index_reduce = scatter_reduce.index_reduce
Tensor.index_reduce_ = scatter_reduce.index_reduce_
Tensor.index_select = gather_scatter.index_select
Tensor.take = gather_scatter.take
Tensor.take_along_dim = gather_scatter.take_along_dim
Tensor.index_add = gather_scatter.index_add
Tensor.index_add_ = gather_scatter.index_add_
Tensor.index_copy = gather_scatter.index_copy
Tensor.index_copy_ = gather_scatter.index_copy_
Tensor.index_fill = gather_scatter.index_fill
Tensor.index_fill_ = gather_scatter.index_fill_
Tensor.masked_fill = masking.masked_fill
Tensor.masked_fill_ = masking.masked_fill_
Tensor.masked_scatter = masking.masked_scatter
Tensor.masked_scatter_ = masking.masked_scatter_
Tensor.masked_select = masking.masked_select
Tensor.repeat_interleave = gather_scatter.repeat_interleave
Tensor.cumsum = scan.cumsum
Tensor.cumsum_ = scan.cumsum_
Tensor.cumprod = scan.cumprod
Tensor.cumprod_ = scan.cumprod_
Tensor.cummax = scan.cummax
Tensor.cummin = scan.cummin
Tensor.logcumsumexp = scan.logcumsumexp
Tensor.prod = statistics.prod
Tensor.var = statistics.var
Tensor.std = statistics.std
Tensor.argmax = statistics.argmax
Tensor.argmin = statistics.argmin
Tensor.any = statistics.any
Tensor.all = statistics.all
Tensor.count_nonzero = statistics.count_nonzero
Tensor.median = statistics.median
Tensor.nanmedian = statistics.nanmedian
Tensor.kthvalue = statistics.kthvalue
Tensor.nansum = statistics.nansum
Tensor.nanmean = statistics.nanmean
Tensor.aminmax = statistics.aminmax
Tensor.sort = sorting.sort
Tensor.argsort = sorting.argsort
Tensor.msort = sorting.msort
Tensor.topk = sorting.topk
Tensor.unique = sorting.unique
Tensor.nonzero = sorting.nonzero
Tensor.flip = shape_ops.flip
Tensor.fliplr = shape_ops.fliplr
Tensor.flipud = shape_ops.flipud
Tensor.roll = shape_ops.roll
Tensor.rot90 = shape_ops.rot90
Tensor.repeat = shape_ops.repeat
Tensor.tile = shape_ops.tile
Tensor.tril = shape_ops.tril
Tensor.tril_ = shape_ops.tril_
Tensor.triu = shape_ops.triu
Tensor.triu_ = shape_ops.triu_
Tensor.diag = shape_ops.diag
Tensor.diag_embed = shape_ops.diag_embed
Tensor.diagflat = shape_ops.diagflat
Tensor.trace = shape_ops.trace
Tensor.diff = shape_ops.diff
Tensor.narrow_copy = shape_ops.narrow_copy

# -- matrix ops, linalg, norms (ops/products.py, ops/decompositions.py, ops/norms.py) --------
from .ops import decompositions, norms, products  # noqa: E402

Tensor.outer = products.outer
Tensor.ger = products.ger
Tensor.kron = products.kron
Tensor.cross = products.cross
Tensor.addmm = products.addmm
Tensor.addmv = products.addmv
Tensor.baddbmm = products.baddbmm
Tensor.addbmm = products.addbmm
Tensor.norm = norms.tensor_norm
Tensor.det = decompositions.det
Tensor.slogdet = decompositions.slogdet
Tensor.logdet = decompositions.logdet
Tensor.inverse = decompositions.inv
Tensor.cholesky = decompositions.cholesky_method
Tensor.matrix_power = decompositions.matrix_power
Tensor.mT = property(decompositions.mT)
Tensor.addmm_ = products.addmm_
Tensor.addmv_ = products.addmv_
Tensor.baddbmm_ = products.baddbmm_
Tensor.addbmm_ = products.addbmm_


# -- views, in-place views, .data and storage (ops/view_ops.py, ops/inplace_views.py,
#    ops/view_copy.py, autograd/tensor_data.py) ------------------------------------------------
from .autograd import tensor_data  # noqa: E402
from .ops import closeness, inplace_views  # noqa: E402

Tensor.swapdims = view_ops.swapdims
Tensor.swapaxes = view_ops.swapaxes
Tensor.moveaxis = view_ops.moveaxis
Tensor.reshape_as = view_ops.reshape_as
Tensor.conj = view_ops.conj
Tensor.mT = property(view_ops.mT)
Tensor.mH = property(view_ops.mH)
Tensor.H = property(view_ops.H)
Tensor.adjoint = view_ops.adjoint
Tensor.split_with_sizes = view_ops.split_with_sizes
Tensor.unsafe_split = view_ops.unsafe_split
Tensor.unsafe_split_with_sizes = view_ops.unsafe_split_with_sizes
Tensor.unsafe_chunk = view_ops.unsafe_chunk
Tensor.t_ = inplace_views.t_
Tensor.transpose_ = inplace_views.transpose_
Tensor.swapdims_ = inplace_views.swapdims_
Tensor.swapaxes_ = inplace_views.swapaxes_
Tensor.squeeze_ = inplace_views.squeeze_
Tensor.unsqueeze_ = inplace_views.unsqueeze_
Tensor.as_strided_ = inplace_views.as_strided_
Tensor.resize_ = inplace_views.resize_
Tensor.resize_as_ = inplace_views.resize_as_
Tensor.set_ = inplace_views.set_
Tensor.data = property(tensor_data.get_data, tensor_data.set_data, tensor_data.delete_data)
Tensor._version = property(tensor_data.version)  # type: ignore[assignment, method-assign]
Tensor.is_inference = tensor_data.is_inference
Tensor.data_ptr = tensor_data.data_ptr
Tensor.untyped_storage = tensor_data.untyped_storage
Tensor.storage = tensor_data.storage
Tensor.allclose = closeness.allclose


# -- gaps: type_as, is_complex, in-place random fills (ops/queries.py, ops/random_fills.py) --
from .ops import cholesky_solve, division, joins, queries, random_fills  # noqa: E402

Tensor.type_as = queries.type_as
Tensor.is_complex = queries.is_complex
Tensor.uniform_ = random_fills.uniform_
Tensor.normal_ = random_fills.normal_
Tensor.bernoulli_ = random_fills.bernoulli_
Tensor.bernoulli = random_fills.bernoulli
Tensor.exponential_ = random_fills.exponential_
Tensor.random_ = random_fills.random_

from .ops import random_draws  # noqa: E402

Tensor.multinomial = random_draws.multinomial

from .ops import linalg_extras  # noqa: E402

Tensor.renorm = linalg_extras.renorm

from .ops import numeric_extras  # noqa: E402

Tensor.frexp = numeric_extras.frexp
Tensor.ldexp = numeric_extras.ldexp
Tensor.addr = numeric_extras.addr
Tensor.put = numeric_extras.put
Tensor.put_ = numeric_extras.put_
Tensor.select_scatter = numeric_extras.select_scatter
Tensor.slice_scatter = numeric_extras.slice_scatter
Tensor.diagonal_scatter = numeric_extras.diagonal_scatter
Tensor.is_signed = numeric_extras.is_signed
Tensor.log_normal_ = random_fills.log_normal_
Tensor.cauchy_ = random_fills.cauchy_
Tensor.geometric_ = random_fills.geometric_

from .ops import bessel, legacy_linalg  # noqa: E402

Tensor.i0 = bessel.i0

Tensor.svd = legacy_linalg.svd
Tensor.qr = legacy_linalg.qr
Tensor.triangular_solve = legacy_linalg.triangular_solve
Tensor.cholesky_inverse = legacy_linalg.cholesky_inverse
Tensor.isclose = closeness.isclose
Tensor.equal = closeness.equal
Tensor.fmax = division.fmax
Tensor.fmin = division.fmin
Tensor.floor_divide = division.floor_divide
Tensor.floor_divide_ = division.floor_divide_
Tensor.__floordiv__ = division.floor_divide
Tensor.__rfloordiv__ = lambda self, other: division.floor_divide(other, self)
Tensor.__ifloordiv__ = division.floor_divide_
Tensor.__mod__ = binary_math.remainder
Tensor.__rmod__ = lambda self, other: binary_math.remainder(other, self)
Tensor.__imod__ = binary_math.remainder_
Tensor.positive = queries.positive
Tensor.__pos__ = queries.positive
Tensor.true_divide = division.true_divide
Tensor.inner = joins.inner
Tensor.broadcast_to = joins.broadcast_to
Tensor.cholesky_solve = cholesky_solve.cholesky_solve
from .ops import gamma_fns  # noqa: E402

Tensor.lgamma = gamma_fns.lgamma
Tensor.lgamma_ = gamma_fns.lgamma_
Tensor.digamma = gamma_fns.digamma
Tensor.digamma_ = gamma_fns.digamma_
Tensor.polygamma = gamma_fns.polygamma_method
Tensor.polygamma_ = gamma_fns.polygamma_
from .ops import igamma  # noqa: E402

Tensor.igamma = igamma.igamma
Tensor.igamma_ = igamma.igamma_
Tensor.igammac = igamma.igammac
Tensor.igammac_ = igamma.igammac_
from .ops import counting  # noqa: E402

Tensor.bincount = counting.bincount_method
Tensor.histc = counting.histc_method
from .ops import frequency  # noqa: E402

Tensor.mode = frequency.mode
Tensor.histogram = frequency.histogram_method
Tensor.type = queries.type_method

# -- PyTorch's alias names: the very same functions (ops/aliases.py) -----------------------------
from .ops import aliases  # noqa: E402

Tensor.absolute = Tensor.abs
Tensor.absolute_ = Tensor.abs_
Tensor.arccos = Tensor.acos
Tensor.arccos_ = Tensor.acos_
Tensor.arcsin = Tensor.asin
Tensor.arcsin_ = Tensor.asin_
Tensor.arctan = Tensor.atan
Tensor.arctan_ = Tensor.atan_
Tensor.arccosh = Tensor.acosh
Tensor.arccosh_ = Tensor.acosh_
Tensor.arcsinh = Tensor.asinh
Tensor.arcsinh_ = Tensor.asinh_
Tensor.arctanh = Tensor.atanh
Tensor.arctanh_ = Tensor.atanh_
Tensor.arctan2 = Tensor.atan2
Tensor.arctan2_ = Tensor.atan2_
Tensor.divide = Tensor.div
Tensor.divide_ = Tensor.div_
Tensor.multiply = Tensor.mul
Tensor.multiply_ = Tensor.mul_
Tensor.subtract = Tensor.sub
Tensor.subtract_ = Tensor.sub_
Tensor.negative = Tensor.neg
Tensor.negative_ = Tensor.neg_
Tensor.greater = Tensor.gt
Tensor.greater_equal = Tensor.ge
Tensor.less = Tensor.lt
Tensor.less_equal = Tensor.le
Tensor.not_equal = Tensor.ne
Tensor.fix = Tensor.trunc
Tensor.fix_ = Tensor.trunc_
Tensor.ndimension = Tensor.dim
Tensor.ravel = aliases.ravel
Tensor.is_nonzero = aliases.is_nonzero
Tensor.__contains__ = aliases.contains
Tensor.argwhere = sorting.nonzero
Tensor.isin = queries.isin
Tensor.is_same_size = queries.is_same_size
Tensor.nbytes = property(queries.nbytes)
Tensor.itemsize = property(queries.itemsize)
Tensor.__reversed__ = lambda self: self if not self._sizes else self.flip(0)  # (as PyTorch)
Tensor.index_put = gather_scatter.index_put
from .ops import splits  # noqa: E402

Tensor.tensor_split = splits.tensor_split
Tensor.hsplit = splits.hsplit
Tensor.vsplit = splits.vsplit
Tensor.dsplit = splits.dsplit
Tensor.unflatten = splits.unflatten
from . import serialization  # noqa: E402

Tensor.__deepcopy__ = serialization.deepcopy
Tensor.__reduce_ex__ = serialization.reduce_ex
from .ops import misc_math  # noqa: E402

Tensor.resolve_conj = aliases.resolve_conj
Tensor.resolve_neg = aliases.resolve_neg
Tensor.is_conj = aliases.is_conj
Tensor.is_neg = aliases.is_conj
Tensor.real = property(aliases.real)
Tensor.imag = property(aliases.imag)
Tensor.isreal = aliases.isreal
Tensor.heaviside = misc_math.heaviside
Tensor.heaviside_ = misc_math.heaviside_
Tensor.vdot = misc_math.vdot
Tensor.pinverse = misc_math.pinverse
from .ops import matrix_exp as _matrix_exp  # noqa: E402

Tensor.matrix_exp = _matrix_exp.matrix_exp
from .ops import composites  # noqa: E402

Tensor.dist = composites.dist
Tensor.float_power = composites.float_power
Tensor.cov = composites.cov
Tensor.corrcoef = composites.corrcoef
from .ops import quantile as _quantile  # noqa: E402

Tensor.quantile = _quantile.quantile
Tensor.nanquantile = _quantile.nanquantile
from .ops import integer_ops  # noqa: E402

Tensor.bitwise_left_shift = integer_ops.bitwise_left_shift
Tensor.bitwise_right_shift = integer_ops.bitwise_right_shift
Tensor.bitwise_left_shift_ = integer_ops.bitwise_left_shift_
Tensor.bitwise_right_shift_ = integer_ops.bitwise_right_shift_
Tensor.__lshift__ = integer_ops.bitwise_left_shift
Tensor.__rshift__ = integer_ops.bitwise_right_shift
Tensor.__rlshift__ = lambda self, other: integer_ops.bitwise_left_shift(other, self)
Tensor.__rrshift__ = lambda self, other: integer_ops.bitwise_right_shift(other, self)
Tensor.__ilshift__ = integer_ops.bitwise_left_shift_
Tensor.__irshift__ = integer_ops.bitwise_right_shift_
Tensor.gcd = integer_ops.gcd
Tensor.lcm = integer_ops.lcm
Tensor.gcd_ = integer_ops.gcd_
Tensor.lcm_ = integer_ops.lcm_
Tensor.fill_diagonal_ = misc_math.fill_diagonal_
Tensor.unique_consecutive = misc_math.unique_consecutive
Tensor.nextafter = misc_math.nextafter
Tensor.nextafter_ = misc_math.nextafter_
Tensor.mvlgamma = misc_math.mvlgamma
Tensor.mvlgamma_ = misc_math.mvlgamma_
Tensor.sum_to_size = misc_math.sum_to_size
from .ops import compare_inplace  # noqa: E402

Tensor.eq_ = compare_inplace.eq_
Tensor.ne_ = compare_inplace.ne_
Tensor.lt_ = compare_inplace.lt_
Tensor.le_ = compare_inplace.le_
Tensor.gt_ = compare_inplace.gt_
Tensor.ge_ = compare_inplace.ge_
Tensor.not_equal_ = compare_inplace.ne_
Tensor.less_ = compare_inplace.lt_
Tensor.less_equal_ = compare_inplace.le_
Tensor.greater_ = compare_inplace.gt_
Tensor.greater_equal_ = compare_inplace.ge_
Tensor.logical_and_ = compare_inplace.logical_and_
Tensor.logical_or_ = compare_inplace.logical_or_
Tensor.logical_xor_ = compare_inplace.logical_xor_
Tensor.logical_not_ = compare_inplace.logical_not_
Tensor.bitwise_not_ = compare_inplace.bitwise_not_
Tensor.true_divide_ = division.true_divide_
Tensor.float_power_ = composites.float_power_
