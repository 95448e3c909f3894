"""``jitgrad.save`` / ``jitgrad.load`` in PyTorch's file format (the zip archive of
``torch.save``: ``data.pkl`` plus one raw record per storage), so a file written by either
library is read by the other: ``jitgrad.load`` reads ``torch.save``'s files and
``torch.load`` (also with its default ``weights_only=True``) reads ``jitgrad.save``'s.

Tensors are pickled as PyTorch pickles them, ``torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, OrderedDict())`` with the storage a persistent id
``('storage', torch.<Type>Storage, key, 'cpu', numel)``; tensors sharing memory share the
storage (views stay views), Parameters go through ``_rebuild_parameter``. The names in
``torch`` are written without importing torch (a stand-in for each global). ``load`` only
accepts the globals such files hold (tensors, Parameters, ``OrderedDict``, dtypes): PyTorch's
``weights_only=True``; ``weights_only=False`` also resolves other globals by import.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import zipfile
from typing import Any, BinaryIO

import numpy as np

from . import dtypes
from .autograd import variable
from .storage import Storage
from .tensor import Tensor

# PyTorch's storage class name of each dtype (``torch.FloatStorage`` ...)
_STORAGE_NAMES = {
    np.dtype(np.float32): "FloatStorage", np.dtype(np.float64): "DoubleStorage",
    np.dtype(np.float16): "HalfStorage", np.dtype(np.int64): "LongStorage",
    np.dtype(np.int32): "IntStorage", np.dtype(np.int16): "ShortStorage",
    np.dtype(np.int8): "CharStorage", np.dtype(np.uint8): "ByteStorage",
    np.dtype(np.bool_): "BoolStorage",
}
_STORAGE_DTYPES = {name: d for d, name in _STORAGE_NAMES.items()}
_DTYPE_NAMES = {"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "float", "double", "half", "long", "int", "short"}


class _Global:
    """A global of another module written by name (``torch FloatStorage``)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # (pickle's save_reduce wants a callable)
        raise TypeError(f"{self.module}.{self.name} is only a name written into a saved file")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_STORAGE_GLOBALS = {d: _Global("torch", name) for d, name in _STORAGE_NAMES.items()}


class _StorageRef:
    __slots__ = ("storage",)

    def __init__(self, storage: Storage) -> None:
        self.storage = storage


class _Pickler(pickle._Pickler):  # type: ignore[name-defined,misc]  # (the Python one: save_global)
    def __init__(self, file: BinaryIO, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, tuple[str, Storage]] = {}
        self.refs: dict[int, _StorageRef] = {}  # one ref per storage: pickle memoises it

    dispatch = pickle._Pickler.dispatch.copy()  # type: ignore[attr-defined]

    def _save_standin(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_standin

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, Tensor):
            return NotImplemented
        from .nn.parameter import Parameter

        if isinstance(obj, Parameter):
            data = Tensor._make(obj._storage, obj._sizes, obj._strides, obj._offset)
            return (_REBUILD_PARAMETER, (data, bool(obj._requires_grad), collections.OrderedDict()))
        ref = self.refs.get(id(obj._storage))
        if ref is None:
            ref = self.refs[id(obj._storage)] = _StorageRef(obj._storage)
        requires_grad = bool(obj._requires_grad or obj._grad_fn is not None)
        return (_REBUILD_TENSOR, (ref, obj._offset, tuple(obj._sizes), tuple(obj._strides), requires_grad,
                                  collections.OrderedDict()))

    def persistent_id(self, obj: Any) -> Any:
        if not isinstance(obj, _StorageRef):
            return None
        storage = obj.storage
        entry = self.storages.get(id(storage))
        if entry is None:
            entry = self.storages[id(storage)] = (str(len(self.storages)), storage)
        buffer = storage.buffer
        if buffer.dtype not in _STORAGE_GLOBALS:
            raise RuntimeError(f"save: tensors of dtype {buffer.dtype} cannot be saved")
        return ("storage", _STORAGE_GLOBALS[buffer.dtype], entry[0], "cpu", int(buffer.size))


def save(obj: Any, f: str | os.PathLike[str] | BinaryIO, pickle_module: Any = pickle,
         pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True) -> None:
    """Write ``obj`` (tensors, Parameters, and containers of them and of plain Python
    values) to ``f`` (a path or a binary file) in ``torch.save``'s format."""
    if pickle_module is not pickle or not _use_new_zipfile_serialization:
        raise NotImplementedError("save: only the default pickle module and the zip format are supported")
    data = io.BytesIO()
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        archive = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    else:
        archive = "archive"
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(f"{archive}/data.pkl", data.getvalue())
        zf.writestr(f"{archive}/.format_version", b"1")
        zf.writestr(f"{archive}/.storage_alignment", b"64")
        zf.writestr(f"{archive}/byteorder", b"little")
        for key, storage in pickler.storages.values():
            zf.writestr(f"{archive}/data/{key}", np.ascontiguousarray(storage.buffer).tobytes())
        zf.writestr(f"{archive}/version", b"3\n")


def _rebuild_tensor_v2(storage: Storage, offset: int, size: Any, stride: Any, requires_grad: bool,
                       backward_hooks: Any = None, metadata: Any = None) -> Tensor:
    t = Tensor._make(storage, tuple(int(s) for s in size), tuple(int(s) for s in stride), int(offset))
    if requires_grad:
        variable.requires_grad_(t, True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any = None, *rest: Any) -> Any:
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


_ALLOWED: dict[tuple[str, str], Any] = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: BinaryIO, zf: zipfile.ZipFile, prefix: str, weights_only: bool) -> None:
        super().__init__(file)
        self.zf, self.prefix, self.weights_only = zf, prefix, weights_only
        self.storages: dict[str, Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        if module == "torch" and name in _DTYPE_NAMES:
            return dtypes.to_dtype(name if name != "bool" else "bool", "load")
        if self.weights_only or module.split(".")[0] == "torch":
            raise pickle.UnpicklingError(
                f"Weights only load failed: unsupported global {module}.{name} (jitgrad.load reads "
                "tensors, Parameters, OrderedDict and plain Python values; pass weights_only=False "
                "for other objects you trust, but not torch's)"
            )
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"load: unsupported persistent id {pid!r}")
        _, dtype, key, _location, numel = pid
        storage = self.storages.get(key)
        if storage is None:
            raw = self.zf.read(f"{self.prefix}/data/{key}")
            buffer = np.frombuffer(raw, dtype=dtype, count=int(numel)).copy()
            storage = self.storages[key] = Storage(buffer)
        return storage


def load(f: str | os.PathLike[str] | BinaryIO, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Read what ``save`` (or ``torch.save``) wrote to ``f``; tensors come back on the CPU
    (``map_location`` is accepted and ignored). ``weights_only`` (default True, as PyTorch):
    only tensors, Parameters, ``OrderedDict`` and plain Python values."""
    if not zipfile.is_zipfile(f):
        raise RuntimeError(
            "load: not a zip archive: jitgrad reads the format of torch.save (PyTorch >= 1.6), not "
            "PyTorch's legacy format"
        )
    if not isinstance(f, (str, os.PathLike)):
        f.seek(0)  # type: ignore[union-attr]
    with zipfile.ZipFile(f) as zf:
        pkl = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("load: the archive has no data.pkl record")
        prefix = pkl[0][: -len("/data.pkl")]
        unpickler = _Unpickler(io.BytesIO(zf.read(pkl[0])), zf, prefix, weights_only is not False)
        return unpickler.load()
