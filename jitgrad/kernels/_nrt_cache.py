"""Numba's runtime (NRT) loaded from an on-disk cache, like the kernels themselves.

Every process that calls a Numba kernel first starts Numba's runtime: a handful of LLVM
functions (``NRT_incref``, ``NRT_decref``, ...) that Numba compiles from IR
(``numba.core.runtime.nrtdynmod.compile_nrt_functions``) on every start, even when all
kernels come from the cache. That one compile pages in LLVM's optimiser and x86 back end:
~29 MB of a cold start's RSS and ~0.05 s (measured, 2 cores, numba 0.68; loading it from
the cache costs ~9.5 MB and ~2 ms). Its result is the
same on every start on one machine, so it is cached here the way Numba caches a kernel: the
library's object code plus its bitcode for linking (``serialize_using_object_code``), keyed
on what determines it (Numba, llvmlite and LLVM versions, the optimisation level, and the
codegen's target triple, CPU name and features). Loading it only links object code.

A kernel compiled later in the process links the cached bitcode, which is the IR Numba's own
compile would have produced: compiled kernels are the same. An unreadable file is a miss
(compiled as usual, then rewritten; a checksum catches damage inside the object code); a
failed write only leaves it uncached.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import uuid
from typing import Any

import llvmlite
import llvmlite.binding as ll
import numba
from numba.core import config
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import nrtdynmod, rtsys


def _path(directory: str, codegen: Any) -> str:
    key = repr((numba.__version__, llvmlite.__version__, ll.llvm_version_info, int(config.OPT),
                codegen.magic_tuple()))
    return os.path.join(directory, f"numba-nrt-{hashlib.sha256(key.encode()).hexdigest()[:16]}.nbo")


def _compile_or_load(ctx: Any, directory: str) -> Any:
    """``compile_nrt_functions(ctx)``, from the cache in ``directory`` when it is there."""
    codegen = ctx.codegen()
    path = _path(directory, codegen)
    try:
        with open(path, "rb") as f:
            digest, blob = pickle.load(f)
        # the bytes checked before LLVM links them: damaged object code could crash it
        if hashlib.sha256(blob).digest() == digest:
            return codegen.unserialize_library(pickle.loads(blob))
    except Exception:  # missing, truncated or garbled: compile it
        pass
    ir_mod, library = nrtdynmod.create_nrt_module(ctx)
    library.enable_object_caching()  # keeps the object code (the machine code is the same)
    library.add_ir_module(ir_mod)
    library.finalize()
    tmp = f"{path}.{os.getpid()}.{uuid.uuid4().hex}.tmp"  # (open() honours the umask)
    try:
        os.makedirs(directory, exist_ok=True)
        blob = pickle.dumps(library.serialize_using_object_code(), protocol=pickle.HIGHEST_PROTOCOL)
        with open(tmp, "xb") as f:
            pickle.dump((hashlib.sha256(blob).digest(), blob), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)  # whole or not at all
    except OSError:  # (a read-only or full disk: uncached)
        with contextlib.suppress(OSError):
            os.remove(tmp)
    return library


def initialize(ctx: Any, directory: str) -> None:
    """``rtsys.initialize(ctx)`` with the runtime's library cached in ``directory``.
    (On a Numba without these internals this module fails to import or raises
    AttributeError: ``_policy`` then lets Numba set up as usual.)"""
    if rtsys._init:
        return
    with global_compiler_lock:  # (rtsys.initialize takes it too; no compile runs meanwhile)
        compile_nrt = nrtdynmod.compile_nrt_functions
        nrtdynmod.compile_nrt_functions = lambda c: _compile_or_load(c, directory)
        try:
            rtsys.initialize(ctx)
        finally:
            nrtdynmod.compile_nrt_functions = compile_nrt
