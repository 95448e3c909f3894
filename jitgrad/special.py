"""``torch.special``'s counterpart: the same functions as the top level (declared pointwise
ops) under PyTorch's ``special`` names, plus ``xlog1py``."""

from __future__ import annotations

from .ops.activations import logit
from .ops.binary_math import xlog1py, xlogy
from .ops.pointwise import erf, erfc, erfinv, exp2, expm1, log1p
from .ops.pointwise import sigmoid as expit

__all__ = ["erf", "erfc", "erfinv", "exp2", "expit", "expm1", "log1p", "logit", "xlog1py", "xlogy"]

# -- reductions under torch.special's names (ops/reduction.py) --
from .ops.reduction import logsumexp  # noqa: E402
from .ops.softmax import log_softmax, softmax  # noqa: E402

__all__ += ["log_softmax", "logsumexp", "softmax"]

# -- gamma functions (ops/gamma_fns.py) --
from .ops.gamma_fns import digamma, polygamma  # noqa: E402
from .ops.gamma_fns import digamma as psi  # noqa: E402
from .ops.gamma_fns import lgamma as gammaln  # noqa: E402

__all__ += ["digamma", "gammaln", "polygamma", "psi"]

# -- the normal CDF and relatives (ops/normal_cdf.py), aliases of top-level functions --
from .ops.normal_cdf import entr, erfcx, log_ndtr, ndtr, ndtri  # noqa: E402
from .ops.misc_math import mvlgamma as multigammaln  # noqa: E402
from .ops.pointwise import round, sinc  # noqa: E402,A004

__all__ += ["entr", "erfcx", "log_ndtr", "multigammaln", "ndtr", "ndtri", "round", "sinc"]

# -- modified Bessel functions (ops/bessel.py) --
from .ops.bessel import i0, i0e, i1, i1e  # noqa: E402

__all__ += ["i0", "i0e", "i1", "i1e"]


# -- the regularized incomplete gamma functions (ops/igamma.py) --
from .ops.igamma import igamma as gammainc, igammac as gammaincc  # noqa: E402

__all__ += ["gammainc", "gammaincc"]

# -- the Hurwitz zeta function and Bessel functions (ops/zeta_bessel.py) --
from .ops.zeta_bessel import (  # noqa: E402
    bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0, modified_bessel_i1, modified_bessel_k0,
    modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1, zeta,
)

__all__ += ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
            "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "zeta"]
