"""Run by test_kernel_cache.py in a subprocess: touch the copy, fill and accumulate kernels
of whichever jitgrad is first on PYTHONPATH, check the results and print where it came from."""
import time; t=time.time()
import numpy as np, jitgrad as jg, os
x = jg.arange(12.0, dtype=jg.float64).view(3, 4).clone()
y = x.t().contiguous()
assert np.array_equal(y.detach().numpy(), np.arange(12.0).reshape(3, 4).T)
x[:, ::2].fill_(-1.0)
w = jg.tensor(np.ones(6), dtype=jg.float64, requires_grad=True)
b = w * 2.0; b[1::2].mul_(3.0); (b * b).sum().backward()
assert np.allclose(w.grad.detach().numpy(), [8, 72, 8, 72, 8, 72]), w.grad
# The kernels themselves, whatever route the tensor ops take to them.
import jitgrad.kernels as jk
d, s = np.zeros(12), np.arange(12.0)
jk.strided_copy(d, 0, (1, 3), s, 0, (4, 1), (3, 4))
assert np.array_equal(d, np.arange(12.0).reshape(3, 4).T.reshape(-1))
jk.strided_add(d, 0, (1,), s, 0, (1,), (12,))
jk.fill(d, 0, (2,), (6,), -1.0)
jk.scatter(d, 1, (2,), (6,), np.ones(6), accumulate=True)
assert d[0] == -1.0 and d[1] == np.arange(12.0).reshape(3, 4).T.reshape(-1)[1] + 1 + 1
print("OK", jg.__file__, round(time.time()-t, 2))
