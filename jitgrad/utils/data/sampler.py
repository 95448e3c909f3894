"""Samplers: what order a ``DataLoader`` visits a map-style dataset in (``SequentialSampler``,
``RandomSampler``, ``SubsetRandomSampler``, ``WeightedRandomSampler``) and how it groups the
indices into batches (``BatchSampler``). Random ones draw from ``generator`` or, without one,
from a fresh generator seeded from jitgrad's default generator at each pass (so
``jitgrad.manual_seed`` makes every epoch's order reproducible)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import numpy as np

from ...randomness import Generator, randint, randperm

T_co = TypeVar("T_co", covariant=True)

_SEED_BOUND = 2**63 - 1


def draw_seed(generator: Generator | None) -> int:
    """A seed drawn from ``generator`` (or the default generator): one int64 in ``[0, 2**63 - 1)``."""
    return int(randint(0, _SEED_BOUND, (), generator=generator).item())


def _pass_generator(generator: Generator | None) -> Generator:
    return generator if generator is not None else Generator().manual_seed(draw_seed(None))


class Sampler(Generic[T_co]):
    """Iterates over indices (or batches of them) of a dataset."""

    def __init__(self, data_source: Sized | None = None) -> None:
        del data_source  # accepted for PyTorch's older signature; unused, as there

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _positive_int(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _boolean(name: str, value: Any, error: type[Exception]) -> None:
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


class RandomSampler(Sampler[int]):
    """A random permutation of the indices (``num_samples`` of them: whole permutations, then
    part of one), or ``num_samples`` indices drawn with ``replacement``."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        _boolean("replacement", replacement, TypeError)
        _positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _pass_generator(self.generator)
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (a new one each pass)."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        _positive_int("num_samples", num_samples)
        _boolean("replacement", replacement, ValueError)
        values = np.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, dtype=np.float64)
        if values.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(values.shape)}")
        if (values < 0).any() or not np.isfinite(values).all() or values.sum() <= 0:
            raise RuntimeError("WeightedRandomSampler: weights must be finite, non-negative, with a positive sum")
        if not replacement and num_samples > np.count_nonzero(values):
            raise RuntimeError("WeightedRandomSampler: cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        self.weights, self.num_samples, self.replacement, self.generator = values, num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        rng = np.random.default_rng(draw_seed(self.generator))
        chosen = rng.choice(len(self.weights), size=self.num_samples, replace=self.replacement,
                            p=self.weights / self.weights.sum())
        yield from (int(i) for i in chosen)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices ``sampler`` yields into lists of ``batch_size`` (the last one shorter,
    or dropped with ``drop_last``)."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        _positive_int("batch_size", batch_size)
        _boolean("drop_last", drop_last, ValueError)
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
