"""jitgrad.nn modules against torch.nn (float64): the same model on both sides with copied
weights gives the same outputs, losses and parameter gradients; registration, state dicts,
reprs, modes and conversions behave as PyTorch's."""

from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch

import jitgrad
from jitgrad import nn
from tests.compat_helpers import both

RNG = np.random.default_rng(1)


def build(lib):
    class MLP(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 4),
                                          lib.nn.Softplus(beta=2.0))
            self.heads = lib.nn.ModuleList([lib.nn.Linear(4, 2), lib.nn.Linear(4, 2, bias=False)])
            self.scale = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
            self.register_buffer("offset", lib.full((2,), 0.5, dtype=lib.float64))
            self.register_buffer("scratch", lib.zeros(1, dtype=lib.float64), persistent=False)

        def forward(self, x):
            h = self.body(x)
            return (self.heads[0](h) + lib.nn.functional.relu(self.heads[1](h))) * self.scale + self.offset

    return MLP().double()


def copy_weights(ours: nn.Module, theirs: torch.nn.Module) -> None:
    with torch.no_grad():
        for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            tp.copy_(torch.from_numpy(p.detach().numpy().copy()))


def test_same_model_same_outputs_losses_and_gradients():
    ours, theirs = build(jitgrad), build(torch)
    copy_weights(ours, theirs)
    x = RNG.standard_normal((6, 3))
    target = RNG.standard_normal((6, 2))
    loss = nn.MSELoss()(ours(jitgrad.tensor(x)), jitgrad.tensor(target))
    tloss = torch.nn.MSELoss()(theirs(torch.tensor(x)), torch.tensor(target))
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-13)
    loss.backward()
    tloss.backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.detach().numpy(), tp.grad.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=name)


def test_names_orders_and_state_dict_keys_match_torch():
    ours, theirs = build(jitgrad), build(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters(recurse=False)] == ["scale"]
    assert len(list(ours.parameters())) == len(list(theirs.parameters())) == 8
    assert all(not v.requires_grad for v in ours.state_dict().values())
    assert all(isinstance(v, nn.Parameter) for k, v in ours.state_dict(keep_vars=True).items() if k != "offset")


def test_repr_matches_torch():
    class Net(torch.nn.Module):
        pass

    def make(lib):
        m = lib.nn.Sequential(
            lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Identity(),
            lib.nn.ModuleList([lib.nn.Linear(3, 3) for _ in range(3)] + [lib.nn.Tanh()]),
            lib.nn.ModuleDict({"a": lib.nn.Sigmoid(), "b": lib.nn.Softplus(beta=2.0)}),
            lib.nn.GELU(), lib.nn.SiLU(), lib.nn.ELU(alpha=0.5), lib.nn.LeakyReLU(0.2),
            lib.nn.Dropout(0.1), lib.nn.Softmax(dim=1), lib.nn.LogSoftmax(dim=1),
            lib.nn.MSELoss(), lib.nn.L1Loss(), lib.nn.CrossEntropyLoss(), lib.nn.NLLLoss(),
            lib.nn.ReLU(inplace=True),
        )
        return m

    assert repr(make(jitgrad)) == repr(make(torch))
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())


def test_parameter_is_a_leaf_tensor_with_torchs_repr():
    p = nn.Parameter(jitgrad.tensor([1.0, 2.0]))
    assert isinstance(p, nn.Parameter) and isinstance(p, jitgrad.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    assert not nn.Parameter(jitgrad.zeros(2), requires_grad=False).requires_grad
    q = p * 2
    assert type(q) is jitgrad.Tensor and type(p[0]) is jitgrad.Tensor
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])
    with pytest.raises(RuntimeError):
        nn.Parameter(jitgrad.tensor([1, 2]))
    data = jitgrad.zeros(3)
    shared = nn.Parameter(data)
    data.fill_(2.0)
    assert shared.tolist() == [2.0, 2.0, 2.0]  # shares memory with its data
    c = copy.deepcopy(shared)
    assert isinstance(c, nn.Parameter) and c.tolist() == [2.0] * 3
    data.fill_(3.0)
    assert c.tolist() == [2.0] * 3


def test_load_state_dict_round_trip_and_incompatible_keys():
    a, b = build(jitgrad), build(jitgrad)
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    for (_, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    sd, tsd = a.state_dict(), build(torch).state_dict()
    for d in (sd, tsd):
        del d["body.0.bias"]
        d["extra.weight"] = d["offset"]
        d["body.9.bias"] = d["offset"]
    ours = b.load_state_dict(sd, strict=False)
    theirs = build(torch).load_state_dict(tsd, strict=False)
    assert ours.missing_keys == theirs.missing_keys == ["body.0.bias"]
    assert ours.unexpected_keys == theirs.unexpected_keys
    with pytest.raises(RuntimeError) as ours_err:
        b.load_state_dict(sd)
    with pytest.raises(RuntimeError) as theirs_err:
        build(torch).load_state_dict(tsd)
    assert str(ours_err.value) == str(theirs_err.value).replace("torch", "jitgrad")


def test_load_state_dict_shape_mismatch_and_bad_values():
    m, t = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        m.load_state_dict({"weight": jitgrad.zeros(3, 3), "bias": jitgrad.zeros(3)})
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        t.load_state_dict({"weight": torch.zeros(3, 3), "bias": torch.zeros(3)})
    with pytest.raises(RuntimeError, match="expected jitgrad.Tensor"):
        m.load_state_dict({"weight": [[0.0] * 2] * 3, "bias": jitgrad.zeros(3)})
    with pytest.raises(TypeError):
        m.load_state_dict(5)


def test_setattr_registration_and_errors_match_torch():
    for lib in (jitgrad, torch):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.zeros(2))
        m.child = lib.nn.Linear(1, 1)
        m.register_buffer("buf", lib.zeros(1))
        m.plain = 3
        assert list(m._parameters) == ["w"] and list(m._modules) == ["child"] and list(m._buffers) == ["buf"]
        assert "plain" not in m.state_dict() and m.plain == 3
        with pytest.raises(TypeError):
            m.w = lib.zeros(2)
        with pytest.raises(TypeError):
            m.child = 5
        with pytest.raises(TypeError):
            m.buf = 5
        with pytest.raises(KeyError):
            m.register_buffer("a.b", lib.zeros(1))
        with pytest.raises(KeyError):
            m.register_parameter("plain", None)
        with pytest.raises(AttributeError):
            m.missing
        m.w = None
        assert m.w is None and list(m.state_dict()) == ["buf", "child.weight", "child.bias"]
        del m.child
        assert not hasattr(m, "child")

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(jitgrad.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_train_eval_requires_grad_zero_grad_apply():
    m = build(jitgrad)
    assert m.training and all(c.training for c in m.modules())
    assert m.eval() is m and not any(c.training for c in m.modules())
    m.train()
    with pytest.raises(ValueError):
        m.train("yes")
    m(jitgrad.ones(2, 3, dtype=jitgrad.float64)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.detach().numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen[-1] == "MLP" and seen[0] == "Linear"


def test_to_double_float_keep_identity_and_convert_grads():
    m = nn.Linear(3, 2)
    w = m.weight
    m(jitgrad.ones(1, 3)).sum().backward()
    m.double()
    assert m.weight is w and w.dtype == jitgrad.float64 and w.grad.dtype == jitgrad.float64
    assert w.requires_grad and w.is_leaf
    m.float()
    assert w.dtype == jitgrad.float32
    m.register_buffer("count", jitgrad.tensor([1]))
    m.to(jitgrad.float64)
    assert m.count.dtype == jitgrad.int64 and m.bias.dtype == jitgrad.float64
    assert m.to("cpu") is m and m.cpu() is m
    m.to(jitgrad.zeros(1, dtype=jitgrad.float32))
    assert w.dtype == jitgrad.float32
    with pytest.raises(TypeError):
        m.to(jitgrad.int64)


@pytest.mark.parametrize("convert", ["double", "float", "half", "to64"])
def test_conversion_keeps_each_parameters_version_counter(convert):
    """``Module.double()`` sets ``param.data``: a parameter (and its grad) keeps its own
    version counter (an Embedding's weight starts at 1: its init writes in place), and a
    later in-place write moves it on from there, as in PyTorch."""
    def program(lib):
        m = lib.nn.Embedding(4, 3, padding_idx=0)
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():
            lin.weight.mul_(2)
        lin.weight.grad = lib.ones(2, 3)
        lin.weight.grad.add_(1)
        for mod in (m, lin):
            if convert == "to64":
                mod.to(lib.float64)
            else:
                getattr(mod, convert)()
        before = [m.weight._version, lin.weight._version, lin.weight.grad._version]
        with lib.no_grad():
            lin.weight.add_(1)
        return before, lin.weight._version, str(lin.weight.grad.dtype).split(".")[-1]

    both(program)


def test_linear_init_bounds_seeded_and_reset():
    jitgrad.manual_seed(7)
    a = nn.Linear(50, 20)
    jitgrad.manual_seed(7)
    b = nn.Linear(50, 20)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    bound = 1 / np.sqrt(50)  # kaiming_uniform_(a=sqrt(5)) gives the same bound as the bias
    assert np.abs(a.weight.detach().numpy()).max() <= bound
    assert np.abs(a.weight.detach().numpy()).max() > 0.9 * bound
    assert np.abs(a.bias.detach().numpy()).max() <= bound
    before = a.weight.detach().numpy().copy()
    a.reset_parameters()
    assert not np.array_equal(before, a.weight.detach().numpy())
    assert a.weight.is_leaf and a.weight.grad_fn is None
    assert nn.Linear(2, 3, dtype=jitgrad.float64).weight.dtype == jitgrad.float64


def test_init_functions():
    t = jitgrad.empty(40, 30, dtype=jitgrad.float64, requires_grad=True)
    nn.init.zeros_(t)
    assert not t.detach().numpy().any() and t.is_leaf
    nn.init.ones_(t)
    assert (t.detach().numpy() == 1).all()
    nn.init.constant_(t, 2.5)
    assert (t.detach().numpy() == 2.5).all()
    nn.init.uniform_(t, -2, -1)
    assert ((t.detach().numpy() >= -2) & (t.detach().numpy() < -1)).all()
    nn.init.normal_(t, 3.0, 0.01)
    assert abs(t.detach().numpy().mean() - 3.0) < 0.01
    nn.init.xavier_uniform_(t)
    assert np.abs(t.detach().numpy()).max() <= np.sqrt(6 / 70)
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    assert np.abs(t.detach().numpy()).max() <= np.sqrt(6 / 30)
    assert nn.init.calculate_gain("tanh") == torch.nn.init.calculate_gain("tanh")
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    with pytest.raises(ValueError):
        nn.init.xavier_uniform_(jitgrad.zeros(3))
    with pytest.raises(ValueError):
        torch.nn.init.xavier_uniform_(torch.zeros(3))
    with pytest.raises(ValueError):
        nn.init.calculate_gain("nope")
    assert t.grad is None and t.grad_fn is None


def test_containers_behave_like_torch():
    for lib in (jitgrad, torch):
        s = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        assert len(s) == 2 and isinstance(s[1], lib.nn.Tanh) and isinstance(s[-1], lib.nn.Tanh)
        assert isinstance(s[:1], lib.nn.Sequential) and len(s[:1]) == 1
        s.append(lib.nn.Sigmoid())
        assert [type(m).__name__ for m in s] == ["ReLU", "Tanh", "Sigmoid"]
        del s[0]
        assert list(s._modules) == ["0", "1"]
        with pytest.raises(IndexError):
            s[5]
        named = lib.nn.Sequential(OrderedDict([("first", lib.nn.ReLU()), ("second", lib.nn.Tanh())]))
        assert list(named.state_dict()) == [] and list(named._modules) == ["first", "second"]
        ml = lib.nn.ModuleList([lib.nn.ReLU()])
        ml += [lib.nn.Tanh()]
        ml.insert(0, lib.nn.Sigmoid())
        assert [type(m).__name__ for m in ml] == ["Sigmoid", "ReLU", "Tanh"]
        assert isinstance(ml[1:], lib.nn.ModuleList)
        md = lib.nn.ModuleDict({"a": lib.nn.Linear(1, 1)})
        md["b"] = lib.nn.Linear(1, 2)
        assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
        assert list(md.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias"]
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2)), lib.ones(3)])
        pl.append(lib.zeros(1))
        assert len(pl) == 3 and all(isinstance(p, lib.nn.Parameter) for p in pl)
        assert list(pl.state_dict()) == ["0", "1", "2"]
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = jitgrad.ones(4, 2)
    np.testing.assert_array_equal(s(x).detach().numpy(), s[2](s[1](s[0](x))).detach().numpy())


def test_parameter_list_repr():
    pl = nn.ParameterList([nn.Parameter(jitgrad.zeros(2, 3, dtype=jitgrad.float64))])
    assert repr(pl) == "ParameterList(  (0): Parameter containing: [jitgrad.float64 of size 2x3])"


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre") or (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append("post") or out + 1)
    out = m(jitgrad.ones(1, 2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), m.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    m(jitgrad.ones(1, 2))
    assert calls == ["pre", "post"]


def test_missing_forward_raises_like_torch():
    with pytest.raises(NotImplementedError):
        torch.nn.Module()(1)
    with pytest.raises(NotImplementedError):
        nn.Module()(1)


@pytest.mark.parametrize("name, kwargs", [
    ("CrossEntropyLoss", dict(label_smoothing=0.1)), ("NLLLoss", dict(ignore_index=1)),
    ("CrossEntropyLoss", dict(reduction="sum")), ("MSELoss", dict(reduction="none")), ("L1Loss", {}),
])
def test_loss_modules_match_torch(name, kwargs):
    x = RNG.standard_normal((5, 3))
    classes = name in ("CrossEntropyLoss", "NLLLoss")
    t = RNG.integers(0, 3, 5) if classes else RNG.standard_normal((5, 3))
    w = RNG.uniform(0.5, 2, 3)
    extra = dict(weight=True) if classes else {}
    results = []
    for lib in (jitgrad, torch):
        xi = lib.tensor(x, requires_grad=True)
        kw = dict(kwargs, **({"weight": lib.tensor(w)} if extra else {}))
        loss_fn = getattr(lib.nn, name)(**kw)
        loss = loss_fn(xi, lib.tensor(t))
        loss.sum().backward()
        results.append((loss.detach().numpy(), xi.grad.detach().numpy(), list(loss_fn.state_dict())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-15)
    assert results[0][2] == results[1][2]


def test_utils_clip_grad_norm_and_vectors():
    ours, theirs = build(jitgrad), build(torch)
    copy_weights(ours, theirs)
    x = RNG.standard_normal((4, 3))
    ours(jitgrad.tensor(x)).pow(2).sum().backward()
    theirs(torch.tensor(x)).pow(2).sum().backward()
    for norm_type in (2.0, 1.0, float("inf")):
        n = nn.utils.clip_grad_norm_(ours.parameters(), 0.5, norm_type)
        tn = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5, norm_type)
        np.testing.assert_allclose(n.item(), tn.item(), rtol=1e-12)
        for p, tp in zip(ours.parameters(), theirs.parameters()):
            np.testing.assert_allclose(p.grad.detach().numpy(), tp.grad.detach().numpy(), rtol=1e-12, atol=1e-15)
    v = nn.utils.parameters_to_vector(ours.parameters())
    tv = torch.nn.utils.parameters_to_vector(theirs.parameters())
    np.testing.assert_allclose(v.detach().numpy(), tv.detach().numpy(), rtol=1e-15)
    nn.utils.vector_to_parameters(v.detach() * 2, ours.parameters())
    np.testing.assert_allclose(nn.utils.parameters_to_vector(ours.parameters()).detach().numpy(),
                               2 * tv.detach().numpy(), rtol=1e-15)


def test_fit_with_optim_matches_torch():
    ours, theirs = build(jitgrad), build(torch)
    copy_weights(ours, theirs)
    x, y = RNG.standard_normal((8, 3)), RNG.standard_normal((8, 2))
    opt = jitgrad.optim.Adam(ours.parameters(), lr=0.05)
    topt = torch.optim.Adam(theirs.parameters(), lr=0.05)
    for _ in range(5):
        for model, o, lib in ((ours, opt, jitgrad), (theirs, topt, torch)):
            o.zero_grad()
            lib.nn.functional.mse_loss(model(lib.tensor(x)), lib.tensor(y)).backward()
            o.step()
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_tensor_data_reads_and_swaps_memory_outside_autograd():
    m = nn.Linear(2, 1).double()
    m(jitgrad.ones(3, 2, dtype=jitgrad.float64)).sum().backward()
    before = m.weight.detach().numpy().copy()
    for p in m.parameters():
        p.data -= 0.1 * p.grad  # the manual SGD step of many PyTorch scripts
    np.testing.assert_allclose(m.weight.detach().numpy(), before - 0.3)
    assert m.weight.is_leaf and m.weight.requires_grad and isinstance(m.weight, nn.Parameter)
    d = m.weight.data
    assert not d.requires_grad and d.grad_fn is None and type(d) is jitgrad.Tensor
    w = m.weight
    m.weight.data = jitgrad.zeros(1, 2, dtype=jitgrad.float64)
    assert m.weight is w and not w.detach().numpy().any()
    with pytest.raises(TypeError):
        w.data = [[0.0, 0.0]]
    with pytest.raises(RuntimeError):
        w.data = jitgrad.tensor([[1, 2]])


def test_deepcopy_and_pickle_of_a_model():
    import pickle

    m = build(jitgrad)
    m(jitgrad.ones(2, 3, dtype=jitgrad.float64)).sum().backward()
    s = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
    for clone, m in ((copy.deepcopy(m), m), (pickle.loads(pickle.dumps(s)), s)):
        assert list(clone.state_dict()) == list(m.state_dict())
        for (n, p), (_, q) in zip(clone.named_parameters(), m.named_parameters()):
            assert isinstance(p, nn.Parameter) and p is not q and p.requires_grad, n
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        with jitgrad.no_grad():
            next(clone.parameters()).fill_(7.0)
        assert (next(m.parameters()).detach().numpy() != 7.0).all()


@pytest.mark.parametrize("strict", [True, False])
def test_refused_load_state_dict_changes_nothing(strict):
    """PyTorch has already copied the matching keys when it raises; jitgrad copies none."""
    m = nn.Linear(2, 3)
    before = [p.detach().numpy().copy() for p in m.parameters()]
    versions = [p._version for p in m.parameters()]
    bad = {"weight": jitgrad.ones(3, 2), "bias": jitgrad.ones(4)}  # bias has the wrong shape
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        m.load_state_dict(bad, strict=strict)
    for p, b, v in zip(m.parameters(), before, versions):
        np.testing.assert_array_equal(p.detach().numpy(), b)
        assert p._version == v


def test_load_state_dict_assign_replaces_parameters():
    m = nn.Linear(2, 3)
    new_w = jitgrad.ones(3, 2)
    m.load_state_dict({"weight": new_w, "bias": jitgrad.zeros(3)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    new_w.fill_(5.0)
    assert (m.weight.detach().numpy() == 5.0).all()  # shares the given tensor's memory


def test_to_accepts_device_dtype_and_non_blocking_like_torch():
    for lib in (jitgrad, torch):
        m = lib.nn.Linear(2, 2)
        assert m.to("cpu", lib.float64, False) is m and m.weight.dtype == lib.float64
        assert m.to(device="cpu", dtype=lib.float32, non_blocking=True) is m
        assert m.weight.dtype == lib.float32


def test_parameter_dict_behaves_like_torch():
    for lib in (jitgrad, torch):
        d = lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.zeros(2)), "a": lib.ones(3, 1)})
        d["c"] = lib.zeros(1)
        assert list(d.keys()) == ["a", "b", "c"] and len(d) == 3 and "a" in d  # a dict is sorted
        assert all(isinstance(v, lib.nn.Parameter) for v in d.values())
        assert list(d.state_dict()) == ["a", "b", "c"]
        assert [n for n, _ in d.named_parameters()] == ["a", "b", "c"]
        ordered = lib.nn.ParameterDict(OrderedDict([("z", lib.zeros(1)), ("y", lib.zeros(1))]))
        assert list(ordered.keys()) == ["z", "y"]
        del d["b"]
        assert list(d.keys()) == ["a", "c"] and len(list(d.parameters())) == 2
        with pytest.raises((KeyError, AttributeError)):  # PyTorch: AttributeError; jitgrad: KeyError
            d["zzz"]
    d = nn.ParameterDict({"w": jitgrad.zeros(2, 3, dtype=jitgrad.float64)})
    assert repr(d) == "ParameterDict(  (w): Parameter containing: [jitgrad.float64 of size 2x3])"
