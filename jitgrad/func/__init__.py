"""PyTorch's ``torch.func`` on jitgrad's autograd: function transforms (``grad``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``), ``vmap``, and ``functional_call``."""

from ._functional_call import functional_call
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp",
           "vmap"]
