"""``DataLoader``: batches from a dataset, as ``torch.utils.data.DataLoader`` makes them (same
argument checks, samplers, collation and lengths), always in the calling process.

``num_workers > 0``: a map-style dataset is loaded in the main process, with a warning. The
batches are the ones PyTorch's workers would deliver (they come back in sampler order), so
scripts run unchanged and only lose the parallelism. An ``IterableDataset`` with workers is
refused: PyTorch gives each worker a copy of the stream (to be split with
``get_worker_info``) and interleaves their batches, which one process cannot reproduce.
Worker-only options (``worker_init_fn``, ``prefetch_factor``, ``persistent_workers``,
``multiprocessing_context``, ``timeout``) are checked as PyTorch checks them, then unused.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any, Callable

import numpy as np

from ...creation import from_numpy
from ...randomness import Generator
from ...tensor import Tensor
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, draw_seed

_FROZEN = frozenset({"batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"})


def get_worker_info() -> None:
    """``None``: jitgrad loads every batch in the main process (see the module docstring)."""
    return None


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                          persistent_workers: bool, multiprocessing_context: Any) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` (``None``: one sample at a time,
    not collated), in order or shuffled (``shuffle``, from ``generator`` or jitgrad's default
    generator), or as ``sampler``/``batch_sampler`` say; ``collate_fn`` (default
    ``default_collate``) turns each list of samples into a batch."""

    def __init__(
        self, dataset: Dataset[Any], batch_size: int | None = 1, shuffle: bool | None = None,
        sampler: Sampler[Any] | None = None, batch_sampler: Sampler[Any] | None = None,
        num_workers: int = 0, collate_fn: Callable[[Any], Any] | None = None, pin_memory: bool = False,
        drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None, generator: Generator | None = None, *,
        prefetch_factor: int | None = None, persistent_workers: bool = False, pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            given = {"shuffle": shuffle not in (None, False), "sampler": sampler is not None,
                     "batch_sampler": batch_sampler is not None}
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if given[name]:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, "
                                     f"but got {name}={value}")
            if num_workers > 0:
                raise ValueError(f"DataLoader(num_workers={num_workers}): jitgrad loads in the main process and "
                                 "cannot reproduce PyTorch's per-worker copies of an IterableDataset; use num_workers=0")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            # an IterableDataset's batch sampler only counts: it groups placeholders, never indices
            batch_sampler = BatchSampler(sampler if sampler is not None else _Forever(), batch_size, drop_last)
        if num_workers > 0:
            warnings.warn(f"DataLoader(num_workers={num_workers}): jitgrad loads batches in the main process "
                          "(same batches, no worker processes)", UserWarning, stacklevel=2)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.multiprocessing_context = worker_init_fn, multiprocessing_context
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.persistent_workers, self.pin_memory_device, self.in_order = persistent_workers, pin_memory_device, in_order
        self._initialized = True

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FROZEN and getattr(self, "_initialized", False):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    def __iter__(self) -> _LoaderIter:
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", UserWarning, stacklevel=2)
        draw_seed(self.generator)  # as PyTorch's iterator, each pass draws a base seed first
        batches = self._stream_batches() if isinstance(self.dataset, IterableDataset) else self._map_batches()
        return _LoaderIter(batches, self)

    def _map_batches(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for index in self.sampler:  # type: ignore[union-attr]
                yield self.collate_fn(self.dataset[index])
            return
        fetch = getattr(self.dataset, "__getitems__", None)
        rows = _rows_source(self.dataset) if self.collate_fn is default_collate else None
        for indices in self.batch_sampler:
            batch = _rows_at_once(*rows, indices) if rows is not None else None
            if batch is None:
                samples = fetch(indices) if callable(fetch) else [self.dataset[i] for i in indices]
                batch = self.collate_fn(samples)
            yield batch

    def _stream_batches(self) -> Iterator[Any]:
        stream = iter(self.dataset)  # type: ignore[call-overload]
        if self.batch_size is None:
            for sample in stream:
                yield self.collate_fn(sample)
            return
        while True:
            samples = [sample for _, sample in zip(range(self.batch_size), stream)]
            if not samples or (self.drop_last and len(samples) < self.batch_size):
                return
            yield self.collate_fn(samples)
            if len(samples) < self.batch_size:
                return

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)  # type: ignore[arg-type]


def _rows_source(dataset: Dataset[Any]) -> tuple[TensorDataset, list[Any]] | None:
    """The ``TensorDataset`` under ``dataset`` (itself, or under ``Subset``s of exactly that
    type, as ``random_split`` makes) and the subsets' index lists, outermost first; else None."""
    chain = []
    while type(dataset) is Subset:
        chain.append(dataset.indices)  # type: ignore[attr-defined]
        dataset = dataset.dataset  # type: ignore[attr-defined]
    return (dataset, chain) if type(dataset) is TensorDataset else None  # type: ignore[return-value]


def _rows_at_once(dataset: TensorDataset, chain: list[Any], indices: list[Any]) -> list[Tensor] | None:
    """A ``TensorDataset`` batch under ``default_collate`` (through ``Subset``s: their index
    lists ``chain`` map ``indices`` first) taken in one ``index_select`` per tensor instead of
    one ``t[i]`` per sample and a ``stack`` (3x faster at batch 32, more for larger batches):
    the same values, dtype, shape and contiguous layout, and no graph either way. ``None``
    (the general path decides, and raises its errors) unless that holds exactly: plain int
    indices within ``[0, len)`` and no tensor requiring grad (stacking would record
    ``StackBackward0``)."""
    try:
        for subset in chain:
            indices = [subset[i] for i in indices]
    except (IndexError, TypeError):  # (the general path raises it)
        return None
    if not indices or any(type(i) is not int for i in indices):
        return None
    tensors = dataset.tensors
    if any(t.requires_grad or type(t) is not Tensor for t in tensors):
        return None
    where = np.array(indices, dtype=np.int64)
    if where.min() < 0 or where.max() >= len(dataset):
        return None
    index = from_numpy(where)
    return [t.index_select(0, index) for t in tensors]


class _LoaderIter:
    """One pass over a ``DataLoader``: an iterator with the loader's length."""

    def __init__(self, batches: Iterator[Any], loader: DataLoader) -> None:
        self._batches, self._loader = batches, loader

    def __iter__(self) -> _LoaderIter:
        return self

    def __next__(self) -> Any:
        return next(self._batches)

    def __len__(self) -> int:
        return len(self._loader)


class _Forever(Sampler[None]):
    """An IterableDataset's index sampler: no indices, never ends."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None
