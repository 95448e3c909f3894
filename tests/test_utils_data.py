"""``jitgrad.utils.data`` side by side with ``torch.utils.data``: the same dataset through both
``DataLoader``s gives the same batches (unshuffled), the same lengths, and the same errors;
shuffled passes are permutations, reproducible from a seed."""

from __future__ import annotations

import collections
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgrad
import jitgrad.utils.data
from compat_helpers import outcome
from conftest import budget

Point = collections.namedtuple("Point", "x y")


def plain(x: Any) -> Any:
    """A library-neutral picture of a batch: tensors as (dtype, shape, values), containers kept."""
    if isinstance(x, (torch.Tensor, jitgrad.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().tolist())
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


def both(program: Callable[[Any], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """``(outcome kind, plain result or message)`` of ``program`` on jitgrad, then on torch."""
    ours, theirs = (outcome(lambda lib=lib: program(lib)) for lib in (jitgrad, torch))
    return (ours[0], plain(ours[1])), (theirs[0], plain(theirs[1]))


def batches(loader: Any) -> list[Any]:
    return list(loader)


def stream(L: Any, n: int, with_len: bool = True) -> Any:
    """An IterableDataset of ``0 .. n-1`` built on ``L``'s base class."""
    class Numbers(L.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(n))

        if with_len:
            def __len__(self) -> int:
                return n
    return Numbers()


COLLATE: dict[str, list[Any]] = {
    "ints": [1, 2, 3],
    "floats (float64)": [1.0, 2.0],
    "int first decides": [1, 2.5],
    "bools": [True, False],
    "strings": ["a", "b"],
    "numpy arrays": [np.ones(2, np.float32), np.zeros(2, np.float32)],
    "numpy float32 scalars": [np.float32(1), np.float32(2)],
    "numpy int scalars": [np.int64(1), np.int64(2)],
    "numpy strings": [np.array(["a"]), np.array(["b"])],
    "tuples give lists": [(1, 2.0), (3, 4.0)],
    "lists": [[1, 2], [3, 4]],
    "ragged lists": [[1, 2], [3]],
    "dicts": [{"a": 1, "b": [1.0]}, {"a": 2, "b": [2.0]}],
    "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
    "objects": [object()],
}


@pytest.mark.parametrize("name", list(COLLATE))
def test_default_collate_like_pytorch(name: str) -> None:
    ours, theirs = both(lambda L: L.utils.data.default_collate(COLLATE[name]))
    assert ours == theirs


def test_default_collate_stacks_tensors_and_keeps_the_graph() -> None:
    for L in (jitgrad, torch):
        rows = [L.ones(2, requires_grad=True), L.zeros(2)]
        batch = L.utils.data.default_collate(rows)
        assert tuple(batch.shape) == (2, 2) and batch.requires_grad
    ours, theirs = both(lambda L: L.utils.data.default_collate([L.zeros(2), L.zeros(3)]))
    assert ours[0] == theirs[0] == "RuntimeError"


def test_default_convert_like_pytorch() -> None:
    sample = (np.arange(3), 1, [np.float64(2.0)], {"k": np.ones(1)}, "text", Point(np.int32(1), 2))
    ours, theirs = both(lambda L: L.utils.data.default_convert(sample))
    assert ours == theirs


@settings(max_examples=budget(25))
@given(st.integers(0, 23), st.integers(1, 7), st.booleans())
def test_unshuffled_batches_and_lengths_like_pytorch(n: int, batch_size: int, drop_last: bool) -> None:
    def program(L: Any) -> Any:
        data = L.utils.data.TensorDataset(L.arange(2.0 * n).reshape(n, 2), L.arange(n))
        loader = L.utils.data.DataLoader(data, batch_size=batch_size, drop_last=drop_last)
        return len(loader), batches(loader), len(iter(loader))

    ours, theirs = both(program)
    assert ours == theirs


@settings(max_examples=budget(15))
@given(st.integers(0, 17), st.integers(1, 5), st.booleans(), st.booleans())
def test_iterable_dataset_batches_like_pytorch(n: int, batch_size: int, drop_last: bool, auto: bool) -> None:
    def program(L: Any) -> Any:
        loader = L.utils.data.DataLoader(stream(L, n), batch_size=batch_size if auto else None,
                                         drop_last=drop_last and auto)
        return len(loader), batches(loader)

    ours, theirs = both(program)
    assert ours == theirs


LOADERS: dict[str, Callable[[Any], Any]] = {
    "dict samples": lambda L: batches(L.utils.data.DataLoader([{"x": np.float64(i), "y": [i, i]} for i in range(5)], batch_size=2)),
    "batch_size None": lambda L: batches(L.utils.data.DataLoader([np.arange(2), (np.arange(1), 3)], batch_size=None)),
    "batch_sampler": lambda L: batches(L.utils.data.DataLoader(list(range(7)), batch_sampler=L.utils.data.BatchSampler(L.utils.data.SequentialSampler(range(7)), 3, False))),
    "sampler": lambda L: batches(L.utils.data.DataLoader(list(range(10)), sampler=[9, 1, 5], batch_size=2)),
    "collate_fn": lambda L: batches(L.utils.data.DataLoader(list(range(7)), batch_size=3, collate_fn=sum)),
    "subset": lambda L: batches(L.utils.data.DataLoader(L.utils.data.Subset(L.utils.data.TensorDataset(L.arange(10)), [9, 2, 4]), batch_size=2)),
    "subset of subset by list": lambda L: L.utils.data.Subset(L.utils.data.Subset(list(range(10)), [5, 6, 7]), [2, 0])[0],
    "concat": lambda L: [(L.utils.data.TensorDataset(L.arange(3)) + L.utils.data.TensorDataset(L.arange(4)))[i] for i in (0, 2, 3, 6, -1, -7)],
    "concat sizes": lambda L: L.utils.data.ConcatDataset([list(range(2)), list(range(5))]).cumulative_sizes,
    "chain": lambda L: batches(L.utils.data.DataLoader(stream(L, 3) + stream(L, 2), batch_size=2)),
    "chain len": lambda L: len(L.utils.data.ChainDataset([stream(L, 3), stream(L, 4)])),
    "stack tuple": lambda L: L.utils.data.StackDataset(L.arange(3), L.arange(3) * 2)[1],
    "stack dict": lambda L: L.utils.data.StackDataset(a=L.arange(3), b=[7, 8, 9])[2],
    "split fractions": lambda L: [len(s) for s in L.utils.data.random_split(range(10), [0.3, 0.3, 0.4])],
    "split remainder": lambda L: [len(s) for s in L.utils.data.random_split(range(11), [0.5, 0.25, 0.25])],
    "split lengths": lambda L: [len(s) for s in L.utils.data.random_split(range(9), [2, 7])],
    "random sampler len": lambda L: [len(L.utils.data.RandomSampler(range(3), num_samples=7)), len(list(L.utils.data.RandomSampler(range(3), num_samples=7)))],
    "batch sampler len": lambda L: [len(L.utils.data.BatchSampler(range(n), 3, d)) for n in range(8) for d in (False, True)],
    "weighted len": lambda L: len(list(L.utils.data.WeightedRandomSampler([0.0, 1.0, 2.0], 5))),
    "weighted zero weight": lambda L: sorted(set(L.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 5))),
    # refused, with PyTorch's exception type and message
    "concat index too negative": lambda L: L.utils.data.ConcatDataset([list(range(3))])[-4],
    "concat of nothing": lambda L: L.utils.data.ConcatDataset([]),
    "concat of a stream": lambda L: L.utils.data.ConcatDataset([stream(L, 2)]),
    "split sum": lambda L: L.utils.data.random_split(range(10), [3, 4]),
    "split fraction out of range": lambda L: L.utils.data.random_split(range(10), [1.5, -0.5]),
    "sampler and shuffle": lambda L: L.utils.data.DataLoader(range(3), sampler=L.utils.data.SequentialSampler(range(3)), shuffle=True),
    "batch_sampler and batch_size": lambda L: L.utils.data.DataLoader(range(3), batch_size=2, batch_sampler=[[0]]),
    "batch_sampler and drop_last": lambda L: L.utils.data.DataLoader(range(3), batch_sampler=[[0]], drop_last=True),
    "batch_size None and drop_last": lambda L: L.utils.data.DataLoader(range(3), batch_size=None, drop_last=True),
    "negative num_workers": lambda L: L.utils.data.DataLoader(range(3), num_workers=-1),
    "negative timeout": lambda L: L.utils.data.DataLoader(range(3), timeout=-1),
    "prefetch without workers": lambda L: L.utils.data.DataLoader(range(3), prefetch_factor=2),
    "persistent without workers": lambda L: L.utils.data.DataLoader(range(3), persistent_workers=True),
    "batch_size 0": lambda L: L.utils.data.DataLoader(range(3), batch_size=0),
    "batch_size bool": lambda L: L.utils.data.BatchSampler(range(3), True, False),
    "drop_last not bool": lambda L: L.utils.data.BatchSampler(range(3), 2, 1),
    "replacement not bool": lambda L: L.utils.data.RandomSampler(range(3), replacement=1),
    "num_samples 0": lambda L: L.utils.data.RandomSampler(range(3), num_samples=0),
    "weighted 2-d": lambda L: L.utils.data.WeightedRandomSampler([[1.0]], 2),
    "stream shuffled": lambda L: L.utils.data.DataLoader(stream(L, 3), shuffle=True),
    "stream sampler": lambda L: L.utils.data.DataLoader(stream(L, 3), sampler=[0]),
    "stream without len": lambda L: len(L.utils.data.DataLoader(stream(L, 3, with_len=False))),
    "attribute frozen": lambda L: setattr(L.utils.data.DataLoader(range(3)), "batch_size", 3),
    "dataset without getitem": lambda L: L.utils.data.Dataset()[0],
}


@pytest.mark.parametrize("name", list(LOADERS))
def test_loaders_and_datasets_like_pytorch(name: str) -> None:
    ours, theirs = both(LOADERS[name])
    assert ours == theirs


def test_tensor_dataset_size_mismatch_names_the_sizes() -> None:
    ours, theirs = both(lambda L: L.utils.data.TensorDataset(L.zeros(2), L.zeros(3)))
    assert ours[0] == theirs[0] == "AssertionError"
    assert ours[1].startswith(theirs[1]) and "[2, 3]" in ours[1]


def _epoch(seed: int | None, generator: Any = None, n: int = 20) -> list[int]:
    if seed is not None:
        jitgrad.manual_seed(seed)
    loader = jitgrad.utils.data.DataLoader(list(range(n)), batch_size=3, shuffle=True, generator=generator)
    return [i for batch in loader for i in batch.tolist()]


def test_shuffled_passes_are_permutations_reproducible_from_a_seed() -> None:
    first, again = _epoch(0), _epoch(0)
    assert sorted(first) == list(range(20)) and first == again
    assert _epoch(1) != first
    jitgrad.manual_seed(0)
    loader = jitgrad.utils.data.DataLoader(list(range(20)), batch_size=3, shuffle=True)
    one, two = ([i for b in loader for i in b.tolist()] for _ in range(2))
    assert one != two and sorted(two) == list(range(20))  # each epoch a new order
    seeded = [_epoch(None, jitgrad.Generator().manual_seed(5)) for _ in range(2)]
    assert seeded[0] == seeded[1] and sorted(seeded[0]) == list(range(20))


def test_random_split_is_a_partition_reproducible_from_a_generator() -> None:
    parts = [jitgrad.utils.data.random_split(range(10), [0.3, 0.7], generator=jitgrad.Generator().manual_seed(3))
             for _ in range(2)]
    assert [list(p) for p in parts[0]] == [list(p) for p in parts[1]]
    assert sorted(list(parts[0][0]) + list(parts[0][1])) == list(range(10))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        jitgrad.utils.data.random_split(range(1), [0.5, 0.5])


def test_a_refused_split_draws_nothing() -> None:
    jitgrad.manual_seed(4)
    before = jitgrad.get_rng_state()
    with pytest.raises(ValueError, match="Sum of input lengths"):
        jitgrad.utils.data.random_split(range(10), [3, 4])
    assert jitgrad.equal(jitgrad.get_rng_state(), before)


def test_random_samplers_draw_what_they_should() -> None:
    jitgrad.manual_seed(0)
    with_replacement = list(jitgrad.utils.data.RandomSampler(range(4), replacement=True, num_samples=50))
    assert len(with_replacement) == 50 and set(with_replacement) <= set(range(4))
    several = list(jitgrad.utils.data.RandomSampler(range(4), num_samples=10))
    assert sorted(several[:4]) == sorted(several[4:8]) == list(range(4)) and len(several) == 10
    subset = list(jitgrad.utils.data.SubsetRandomSampler([7, 8, 9]))
    assert sorted(subset) == [7, 8, 9]
    weighted = list(jitgrad.utils.data.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
    assert sorted(weighted) == [0, 1, 2]


def test_iterating_draws_from_the_default_generator_as_pytorch() -> None:
    """Each pass draws a base seed, so what follows a pass differs from what follows none."""
    for L in (jitgrad, torch):
        L.manual_seed(0)
        untouched = L.rand(1).item()
        L.manual_seed(0)
        list(L.utils.data.DataLoader(range(3)))
        assert L.rand(1).item() != untouched


def test_workers_run_in_the_main_process_with_a_warning() -> None:
    data = jitgrad.utils.data.TensorDataset(jitgrad.arange(7))
    with pytest.warns(UserWarning, match="main process"):
        loader = jitgrad.utils.data.DataLoader(data, batch_size=2, num_workers=2, persistent_workers=True,
                                               prefetch_factor=4, worker_init_fn=print)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [b[0].tolist() for b in loader]
    assert got == [[0, 1], [2, 3], [4, 5], [6]] and jitgrad.utils.data.get_worker_info() is None


def test_workers_with_an_iterable_dataset_are_refused() -> None:
    with pytest.raises(ValueError, match="num_workers=2.*IterableDataset"):
        jitgrad.utils.data.DataLoader(stream(jitgrad, 3), num_workers=2)


def test_reached_as_attributes_after_import_jitgrad() -> None:
    assert jitgrad.utils.data.DataLoader is jitgrad.utils.data.dataloader.DataLoader
    assert jitgrad.utils.data.Dataset[int] is not None  # generic, as PyTorch's (type hints subscript it)


def _picture(t: Any) -> tuple[Any, ...]:
    return (t.dtype, tuple(t.shape), t.stride(), t.is_contiguous(), t.requires_grad, t.grad_fn, t._version,
            t.numpy().tobytes())


def _sources(L: Any, values: Any, labels: Any, picks: list[int], inner: list[int]) -> dict[str, Any]:
    """TensorDatasets as a loader meets them: bare, in a Subset, in a Subset of a Subset."""
    whole = L.utils.data.TensorDataset(values, labels)
    return {"bare": whole, "subset": L.utils.data.Subset(whole, picks),
            "subset of subset": L.utils.data.Subset(L.utils.data.Subset(whole, picks), inner)}


@settings(max_examples=budget(30))
@given(st.integers(1, 9), st.sampled_from([(), (3,), (2, 0), (2, 3)]), st.sampled_from(["float32", "float64", "int64", "bool", "float16"]),
       st.booleans(), st.integers(1, 5), st.sampled_from(["bare", "subset", "subset of subset"]), st.data())
def test_tensor_dataset_rows_at_once_match_the_general_path(n: int, tail: tuple[int, ...], dtype: str,
                                                            transposed: bool, batch_size: int, source: str,
                                                            data: st.DataObject) -> None:
    """The loader's one-index_select-per-tensor batches equal the sample-by-sample stacked ones
    (another collate_fn object takes the general path) bit for bit: values, dtype, shape,
    strides, no graph; for any sampler order, through Subsets too."""
    values = jitgrad.testing.make_tensor(n, *tail, dtype=getattr(jitgrad, dtype), device="cpu")
    if transposed and values.dim() >= 2:
        values = values.transpose(0, 1).contiguous().transpose(0, 1)  # same shape, other strides
    picks = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=8))
    inner = data.draw(st.lists(st.integers(0, len(picks) - 1), min_size=1, max_size=6))
    dataset = _sources(jitgrad, values, jitgrad.arange(n) * 10, picks, inner)[source]
    order = data.draw(st.lists(st.integers(0, len(dataset) - 1), max_size=12))
    collates = (jitgrad.utils.data.default_collate, lambda b: jitgrad.utils.data.default_collate(b))
    fast, general = (list(jitgrad.utils.data.DataLoader(dataset, batch_size=batch_size, sampler=order, collate_fn=c))
                     for c in collates)
    assert [[_picture(t) for t in b] for b in fast] == [[_picture(t) for t in b] for b in general]


@pytest.mark.parametrize("source", ["bare", "subset", "subset of subset"])
def test_tensor_dataset_batches_through_subsets_like_pytorch(source: str) -> None:
    def program(L: Any) -> Any:
        dataset = _sources(L, L.arange(24.0).reshape(8, 3), L.arange(8), [7, 0, 3, 3, 5], [4, 1, 2])[source]
        return list(L.utils.data.DataLoader(dataset, batch_size=2))

    ours, theirs = both(program)
    assert ours == theirs


@pytest.mark.parametrize("order", [[0, -1], [0, 5], [True, 1], [np.int64(1), 0]])
@pytest.mark.parametrize("subset", [False, True])
def test_tensor_dataset_odd_indices_take_the_general_path(order: list[Any], subset: bool) -> None:
    """Negative, out-of-range and non-int indices are the general path's to serve or refuse."""
    def program(L: Any) -> Any:
        dataset = L.utils.data.TensorDataset(L.arange(5.0))
        if subset:
            dataset = L.utils.data.Subset(dataset, [4, 3, 2, 1, 0])
        return list(L.utils.data.DataLoader(dataset, batch_size=2, sampler=order))

    ours, theirs = both(program)
    assert ours == theirs


def test_tensor_dataset_requiring_grad_stacks_as_pytorch() -> None:
    """A tensor that requires grad is stacked sample by sample: the batch's node is PyTorch's."""
    def program(L: Any) -> Any:
        (batch,) = next(iter(L.utils.data.DataLoader(L.utils.data.TensorDataset(L.ones(4, 2, requires_grad=True)), batch_size=3)))
        return type(batch.grad_fn).__name__, batch.requires_grad

    ours, theirs = both(program)
    assert ours == theirs == ("ok", ("tuple", ["StackBackward0", True]))
