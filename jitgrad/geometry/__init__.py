"""Pure-Python tensor geometry: sizes, strides and storage offset, in elements.

Nothing here touches data. Every function takes and returns plain tuples of ints, so the
tensor, autograd and kernel-launch layers above can share one definition of "what a view is".
What a view is: ``jitgrad/tensor.py``'s docstring.
"""

from .strided import (
    Size,
    Geometry,
    check_in_bounds,
    contiguous_strides,
    is_contiguous,
    is_non_overlapping_and_dense,
    numel,
    required_storage,
    wrap_dim,
)
from .broadcast import broadcast_shapes, check_broadcastable_to, infer_size
from . import views

__all__ = [
    "Size",
    "Geometry",
    "broadcast_shapes",
    "check_broadcastable_to",
    "check_in_bounds",
    "contiguous_strides",
    "infer_size",
    "is_contiguous",
    "is_non_overlapping_and_dense",
    "numel",
    "required_storage",
    "views",
    "wrap_dim",
]
