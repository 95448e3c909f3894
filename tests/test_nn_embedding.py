"""F.embedding / nn.Embedding options side by side with PyTorch: ``max_norm`` (rows renormed
in place before the lookup, one version bump per call), ``scale_grad_by_freq`` (gradients
over index counts, double backward too), ``Embedding.from_pretrained``, and bad indices."""

from __future__ import annotations

import numpy as np
import pytest

import jitgrad

from tests.compat_helpers import both

# rows whose 2-norms are exact (7, 9, 11, 3, 15, 1): the renorm scale is the same double
# on both libraries whatever order the squares are summed in
WEIGHT = np.array([[2.0, 3, 6], [1, 4, 8], [2, 6, 9], [1, 2, 2], [5, 10, 10], [0, 0, 1]])
INDICES = [[0, 2, 2], [5, 0, 1]]


@pytest.mark.parametrize("max_norm, norm_type", [(5.0, 2.0), (8.0, 2.0), (100.0, 2.0), (6.0, 1.0)])
def test_max_norm_renorms_the_picked_rows_in_place(max_norm, norm_type):
    def program(lib):
        w = lib.tensor(WEIGHT, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(INDICES), w, max_norm=max_norm, norm_type=norm_type)
        (out * lib.arange(18.0, dtype=lib.float64).view(2, 3, 3)).sum().backward()
        return w.detach().clone(), w._version, out, w.grad

    both(program)


def test_max_norm_on_a_float32_weight_and_a_second_call():
    def program(lib):
        w = lib.tensor(WEIGHT * 0.37, dtype=lib.float32)
        first = lib.nn.functional.embedding(lib.tensor([3, 1, 4]), w, max_norm=1.5)
        second = lib.nn.functional.embedding(lib.tensor([4, 4]), w, max_norm=1.5)
        return first, second, w, w._version

    both(program)


IDX = [[0, 2, 2, 5], [5, 0, 5, 1]]


def _freq_scaled_grads(lib, padding_idx, composite=False):
    """The lookup's gradient and the gradient of its squared norm (double backward); with
    ``composite``, the scaled gradient written out with differentiable ops instead."""
    w = lib.tensor(WEIGHT, requires_grad=True)
    idx = lib.tensor(IDX)
    upstream = lib.arange(24.0, dtype=lib.float64).view(2, 4, 3)
    if composite:
        out = lib.nn.functional.embedding(idx, w, padding_idx=padding_idx)
        seed = upstream * out.cos()
        counts = lib.bincount(idx.flatten(), minlength=WEIGHT.shape[0])[idx].unsqueeze(-1)
        keep = (idx != (padding_idx % 6 if padding_idx is not None else -1)).unsqueeze(-1)
        g = lib.zeros(6, 3, dtype=lib.float64).index_add(0, idx.flatten(), (seed / counts * keep).view(-1, 3))
    else:
        out = lib.nn.functional.embedding(idx, w, padding_idx=padding_idx, scale_grad_by_freq=True)
        (g,) = lib.autograd.grad((out.sin() * upstream).sum(), w, create_graph=True)
    (gg,) = lib.autograd.grad((g ** 2).sum(), w)
    return out, g, gg


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_scale_grad_by_freq_divides_by_the_index_counts(padding_idx):
    both(lambda lib: _freq_scaled_grads(lib, padding_idx))


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_scale_grad_by_freq_double_backward_is_that_of_the_written_out_formula(padding_idx):
    """The second derivative of a function of the scaled gradient carries the counts once
    (PyTorch's double backward gathers without them): as when the scaled gradient is
    written out with a plain lookup and index_add."""
    import torch

    ours = _freq_scaled_grads(jitgrad, padding_idx)[2]
    written_out = _freq_scaled_grads(torch, padding_idx, composite=True)[2]
    np.testing.assert_allclose(ours.numpy(), written_out.numpy(), rtol=1e-14)


def test_embedding_module_options_reach_the_lookup():
    def program(lib):
        torch_like = lib.nn.Embedding.from_pretrained(lib.tensor(WEIGHT), freeze=False, padding_idx=1,
                                                      max_norm=8.0, scale_grad_by_freq=True)
        out = torch_like(lib.tensor([[0, 1, 2], [2, 4, 4]]))
        out.sum().backward()
        return repr(torch_like), torch_like.weight.detach().clone(), torch_like.weight.grad, out

    both(program)


def test_from_pretrained_shares_memory_and_freezes_by_default():
    def program(lib):
        vectors = lib.tensor(WEIGHT)
        e = lib.nn.Embedding.from_pretrained(vectors)
        vectors[0, 0] = -1.0
        return e.weight.requires_grad, e.weight[0], repr(e), repr(lib.nn.Embedding(4, 2, max_norm=1.0, norm_type=1.0))

    both(program)


def test_from_pretrained_refuses_a_non_matrix_and_a_mismatched_weight():
    both(lambda lib: lib.nn.Embedding.from_pretrained(lib.zeros(3)), "2-dimensional")
    both(lambda lib: lib.nn.Embedding(3, 2, _weight=lib.zeros(2, 2)), "Shape of weight")


@pytest.mark.parametrize("bad", [[7], [-1]])
@pytest.mark.parametrize("max_norm", [None, 1.0])
def test_out_of_range_index_raises_and_leaves_the_weight(bad, max_norm):
    w = jitgrad.tensor(WEIGHT)
    with pytest.raises(IndexError, match="index out of range"):
        jitgrad.nn.functional.embedding(jitgrad.tensor(bad), w, max_norm=max_norm)
    assert w._version == 0 and np.array_equal(w.numpy(), WEIGHT)
    both(lambda lib: lib.nn.functional.embedding(lib.tensor(bad), lib.tensor(WEIGHT)), "index out of range")


def test_sparse_gradients_are_refused():
    with pytest.raises(NotImplementedError, match="sparse"):
        jitgrad.nn.functional.embedding(jitgrad.tensor([0]), jitgrad.tensor(WEIGHT), sparse=True)
