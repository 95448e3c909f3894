"""Module hooks side by side with PyTorch: full backward hooks and pre hooks (what they see,
in which order, what their return values replace), forward hooks with kwargs / prepend /
always_call; get_parameter, get_buffer, set_submodule, extra state in the state dict."""

from __future__ import annotations

import warnings

import pytest
import torch

import jitgrad
from compat_helpers import both, both_close


def _net(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2)).double()
    with lib.no_grad():
        for k, p in enumerate(net.parameters()):
            p.copy_(lib.linspace(-0.5, 0.7, p.numel(), dtype=lib.float64).reshape(p.shape) * (k + 1))
    return net


def _x(lib, requires_grad=False):
    return lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=lib.float64, requires_grad=requires_grad)


def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


@pytest.mark.parametrize("input_grad", [True, False])
def test_full_backward_hook_sees_grad_input_and_grad_output(input_grad):
    def program(lib):
        net = _net(lib)
        seen = []
        for i, layer in enumerate(net):
            layer.register_full_backward_hook(
                lambda m, gi, go, i=i: seen.append((i, "hook", _shapes(gi), [g.clone() for g in go])))
            layer.register_full_backward_pre_hook(lambda m, go, i=i: seen.append((i, "pre", _shapes(go))))
        x = _x(lib, input_grad)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (net(x) ** 2).sum().backward()
        messages = [str(w.message)[:60] for w in caught]
        return seen, messages, [p.grad for p in net.parameters()], x.grad
    both_close(program)


def test_backward_hooks_replace_gradients():
    def program(lib):
        net = _net(lib)
        net[1].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        net[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
        removed = net[2].register_full_backward_hook(lambda m, gi, go: (gi[0] * 100,))
        removed.remove()
        x = _x(lib, True)
        out = net(x)
        out.sum().backward()
        return x.grad, [p.grad for p in net.parameters()], net[1](x).grad_fn.name()
    both_close(program)


def _split_module_program(lib, b_requires_grad):
    class Split(lib.nn.Module):
        def forward(self, a, scale, b):
            return a * scale + b, (a - b).exp()

    m = Split()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=b_requires_grad)
    u, v = m(a, 3.0, b)
    (u.sum() + v.sum()).backward()
    return seen, a.grad, u.grad_fn.name(), v.grad_fn.name()


def test_backward_hook_on_module_with_several_inputs_and_outputs():
    both(lambda lib: _split_module_program(lib, True))


def test_backward_hook_sees_zeros_for_an_input_not_requiring_grad():
    """PyTorch's post hooks of a node see every gradient the node returned, also for an
    input that needs none (validate_outputs skips such edges; the identity Function returns
    zeros there)."""
    seen = _split_module_program(torch, False)[0]
    assert seen[0][0][2].tolist() == [0.0, 0.0]


def test_backward_hook_sees_zeros_for_an_input_not_requiring_grad_on_jitgrad():
    seen = _split_module_program(jitgrad, False)[0]
    assert seen[0][0][2] is not None and seen[0][0][2].tolist() == [0.0, 0.0]


def test_backward_hook_wrong_number_of_gradients_raises():
    def program(lib):
        net = _net(lib)
        net[0].register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        net(_x(lib, True)).sum().backward()
    both(program)


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    def program(lib):
        log = []

        class Scale(lib.nn.Module):
            def forward(self, x, factor=1.0):
                if factor < 0:
                    raise ValueError("negative factor")
                return x * factor

        m = Scale()
        m.register_forward_hook(lambda mod, args, out: log.append("plain") or out + 1)
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("kw", sorted(kwargs))) or None,
                                with_kwargs=True, prepend=True)
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": kwargs.get("factor", 1.0) * 2}),
                                    with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: log.append("pre-first"), prepend=True)
        m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
        x = lib.tensor([1.0, 2.0], dtype=lib.float64)
        y = m(x, factor=1.5)
        try:
            m(x, factor=-1.0)
        except ValueError as e:
            log.append(str(e))
        return y, log
    both(program)


def test_get_parameter_get_buffer_set_submodule():
    def program(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        out = [tuple(net.get_parameter("0.weight").shape), tuple(net.get_buffer("1.running_var").shape)]
        net.set_submodule("1", lib.nn.Identity())
        out.append(type(net[1]).__name__)
        for bad in (lambda: net.get_parameter("0.nothing"), lambda: net.get_buffer("0.weight"),
                    lambda: net.get_parameter("5.weight"), lambda: net.set_submodule("0.weight", lib.nn.ReLU()),
                    lambda: net.set_submodule("", lib.nn.ReLU())):
            try:
                bad()
            except (AttributeError, ValueError) as e:
                out.append((type(e).__name__, str(e)))
        out.append(str(net.half()[0].weight.dtype).split(".")[-1])
        return out
    both(program)


def test_extra_state_round_trips_through_state_dict():
    def program(lib):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(1, 1)
                self.calls = 0

            def get_extra_state(self):
                return {"calls": self.calls}

            def set_extra_state(self, state):
                self.calls = state["calls"]

        a = lib.nn.Sequential(Counter())
        a[0].calls = 7
        sd = a.state_dict()
        b = lib.nn.Sequential(Counter())
        result = b.load_state_dict(sd)
        del sd["0._extra_state"]
        try:
            b.load_state_dict(sd)
        except RuntimeError as e:
            missing = str(e)
        return sorted(a.state_dict()), b[0].calls, str(result), missing
    both(program)
