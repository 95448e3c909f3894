"""nn.utils.parametrize and parametrizations.weight_norm side by side with PyTorch: the
class swap and state-dict names, the original parameter kept (an optimizer made before
registering still updates it), gradients through the parametrization, assignment through
right_inverse, cached(), removal, and weight_norm trained with SGD."""

from __future__ import annotations

import importlib

from compat_helpers import both_close


def _modules(lib):
    return (importlib.import_module(lib.__name__ + ".nn.utils.parametrize"),
            importlib.import_module(lib.__name__ + ".nn.utils.parametrizations"))


def test_symmetric_parametrization_and_weight_norm():
    def program(lib):
        P, PZ = _modules(lib)

        class Symmetric(lib.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).mT

            def right_inverse(self, A):
                return A.triu()

        lin = lib.nn.Linear(3, 3, dtype=lib.float64)
        with lib.no_grad():
            lin.weight.copy_(lib.arange(9.0, dtype=lib.float64).reshape(3, 3) / 10)
            lin.bias.fill_(0.1)
        before = lin.weight
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        P.register_parametrization(lin, "weight", Symmetric())
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]], dtype=lib.float64)
        for _ in range(2):
            opt.zero_grad()
            (lin(x) ** 2).sum().backward()
            opt.step()
        with P.cached():
            same = lin.weight is lin.weight
        lin.weight = lib.tensor([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [0.0, 0.0, 6.0]], dtype=lib.float64)
        out = [lin.parametrizations.weight.original is before, lin.weight, type(lin).__name__,
               sorted(lin.state_dict()), same, P.is_parametrized(lin), P.is_parametrized(lin, "bias"),
               P.type_before_parametrizations(lin).__name__]
        P.remove_parametrizations(lin, "weight")
        out += [type(lin).__name__, sorted(lin.state_dict()), lin.weight, lin.weight is before]

        wn = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            wn.weight.copy_(lib.arange(6.0, dtype=lib.float64).reshape(2, 3) - 2.5)
            wn.bias.zero_()
        PZ.weight_norm(wn)
        opt = lib.optim.SGD(wn.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (wn(x) ** 2).sum().backward()
            opt.step()
        out += [wn.weight, [n for n, _ in wn.named_parameters()], wn.parametrizations.weight.original0,
                wn.parametrizations.weight.original1.grad]
        whole = lib.nn.Linear(2, 2, dtype=lib.float64)
        PZ.weight_norm(whole, dim=None)
        out.append(tuple(whole.parametrizations.weight.original0.shape))
        return out
    both_close(program)


def test_hook_based_weight_norm():
    """The deprecated torch.nn.utils.weight_norm: weight_g / weight_v parameters, the weight
    recomputed before each call, training, and remove_weight_norm."""
    import warnings

    def program(lib):
        m = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(lib.arange(6.0, dtype=lib.float64).reshape(2, 3) - 2.5)
            m.bias.fill_(0.25)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(m)
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]], dtype=lib.float64)
        opt = lib.optim.Adam(m.parameters(), lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            (m(x) ** 2).sum().backward()
            opt.step()
        names = [n for n, _ in m.named_parameters()]
        g, g_grad = m.weight_g.detach().clone(), m.weight_g.grad
        lib.nn.utils.remove_weight_norm(m)
        return ([type(w.message).__name__ for w in caught], names, g, g_grad, m(x),
                [n for n, _ in m.named_parameters()], type(m.weight).__name__)
    both_close(program)
