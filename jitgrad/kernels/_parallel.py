"""When the partitioned ``*_par`` kernels (``jit_parallel`` in ``_policy.py``) run instead
of the serial ones. Pure Python: consulted on every large copy/add, after validation.

Three hazards decide the rules besides the size threshold:

* Launching Numba's thread pool costs tens of microseconds (more when the cores are busy),
  so small arrays stay serial: see :data:`PARALLEL_MIN_NUMEL`.
* A parallel region ends when its slowest thread does. With another process running on
  one of 2 cores, one of our 2 threads waits for the scheduler to give it that core, and a
  copy of 2**22 float32 took 20-40x longer than the serial kernel here (measured by
  ``python -m jitgrad bench --only busy_core``; PyTorch's OpenMP copies suffer the same).
  So the kernels split work only over cores that are idle *now*: :func:`idle_cpus` reads
  the number of runnable threads on the machine (``/proc/loadavg``, ~2 us) before each
  large copy/add, and with no idle core besides ours they run serial.
* GNU OpenMP's workers spin for a while after each parallel region (its default wait
  policy), and ``/proc/loadavg`` counts them as runnable: the next large copy/add, in the
  same backward pass, then saw no idle core and ran serial (a fan-out of eight 2048x2048
  gradients took 18.5 ms instead of 10.5). So Numba's pool is started with
  ``OMP_WAIT_POLICY=PASSIVE`` (:func:`_launch_pool`, unless the user set the variable):
  its workers sleep between regions. The variable is set only while the pool's OpenMP
  library loads and reads it, and restored at once, so another OpenMP library loaded
  later (PyTorch's) keeps its own default; a pool started earlier (the user's own
  ``parallel=True`` function) is left as it is. When an OpenMP runtime was already loaded
  (``import torch`` first: the pool shares it, and its workers spin), the workers of our
  own last region are counted as ours for :data:`SPIN_WINDOW` after it ended
  (:func:`ran_parallel`): a backward's next large add then takes the pool it just used.
  Only our own region's workers, only that briefly: a core another process wants is
  still busy.
* With the GNU OpenMP threading layer (Numba's default on Linux when TBB is absent), a
  process forked *after* a parallel region ran aborts as soon as it launches one
  ("fork() called from a process already using GNU OpenMP"). A forked child (a DataLoader
  worker, ``multiprocessing`` with the fork start method) therefore stays serial.
  The serial and parallel kernels give bit-identical results, so this changes only speed.
"""
from __future__ import annotations

import os
import time

PARALLEL_MIN_NUMEL = 1 << 20
"""Elements below which copies/adds stay serial. Measured on 2 idle cores: at 2**20
float32 elements a serial contiguous copy takes ~0.14 ms and the 2-thread one ~0.09 ms;
at 2**18 both take ~0.03 ms, so the pool launch (~10 us when its threads are awake) buys
nothing. On busy cores a parallel region waits for a descheduled worker (milliseconds),
whatever its size: ``numba.set_num_threads(1)`` (or ``NUMBA_NUM_THREADS=1``) turns the
parallel kernels off entirely."""

_MIN_CHUNK = 64  # the *_par kernels round chunk starts down to multiples of 64

try:  # kept open: pread of /proc/loadavg costs ~2 us, open + read + close ~40 us
    _LOADAVG: int | None = os.open("/proc/loadavg", os.O_RDONLY)
except OSError:  # not Linux: os.getloadavg's one-minute average instead
    _LOADAVG = None

_state = {"launched": False, "forked": False, "pool": False, "spinning": False}

SPIN_WINDOW = 3e-4
"""Seconds after our last parallel region during which its workers, spinning in a shared
OpenMP runtime, are counted as ours (a backward's next add comes within tens of us; GNU
OpenMP's default spin lasts milliseconds)."""

_last_region = [0.0, 0]  # (when our last parallel region ended, its workers besides ours)


def ran_parallel(chunks: int) -> None:
    """A ``*_par`` kernel of ``chunks`` threads has just returned (see :data:`SPIN_WINDOW`)."""
    if _state["spinning"]:
        _last_region[0], _last_region[1] = time.perf_counter(), chunks - 1


def _openmp_loaded() -> bool:
    """Whether an OpenMP runtime is already in the process (read once, at the pool's start)."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return any(b"libgomp" in line or b"libiomp" in line for line in maps)
    except OSError:  # pragma: no cover - not Linux
        return True


def _launch_pool() -> None:
    """Start Numba's thread pool (what its first parallel kernel would do) with OpenMP's
    workers sleeping between regions, ``OMP_WAIT_POLICY=PASSIVE`` (see the module
    docstring), unless the user chose a policy; the environment is restored after."""
    _state["pool"] = True
    policy = os.environ.get("OMP_WAIT_POLICY")
    if policy is not None:
        _state["spinning"] = policy.strip().upper() != "PASSIVE"
    else:  # (an OpenMP loaded before us read no PASSIVE: the pool, shared with it, spins)
        _state["spinning"] = _openmp_loaded()
    try:  # (Numba's own name: should it go, Numba starts its pool itself, as before)
        from numba.np.ufunc.parallel import _launch_threads
    except ImportError:  # pragma: no cover - depends on Numba's version
        return
    if "OMP_WAIT_POLICY" in os.environ:
        _launch_threads()
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        _launch_threads()
    finally:
        del os.environ["OMP_WAIT_POLICY"]


def _after_fork_in_child() -> None:
    if _state["launched"]:
        _state["forked"] = True


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def idle_cpus() -> int:
    """CPUs this process may use that no runnable thread wants right now, besides the one
    running this code (0 when that cannot be told: the caller then stays serial)."""
    try:
        if _LOADAVG is not None:
            # "0.52 0.58 0.59 3/512 1234": 3 threads runnable now, this one included
            running = int(os.pread(_LOADAVG, 64, 0).split()[3].split(b"/")[0])
        else:  # pragma: no cover - not Linux
            running = 1 + int(os.getloadavg()[0] + 0.5)
    except (OSError, ValueError, IndexError):  # pragma: no cover - unreadable
        return 0
    return max(0, _cpus() - running)


def chunks_for(numel: int, outer: int) -> int:
    """How many disjoint chunks of the outermost (coalesced) dimension, of size ``outer``,
    to hand to a ``*_par`` kernel; 1 means run the serial kernel. Never more than the cores
    idle now, ours included (see the module docstring)."""
    if numel < PARALLEL_MIN_NUMEL or _state["forked"]:
        return 1
    chunks = outer // _MIN_CHUNK
    if chunks < 2:
        return 1
    idle = idle_cpus()
    if idle < chunks - 1 and _state["spinning"] and time.perf_counter() - _last_region[0] < SPIN_WINDOW:
        idle = min(idle + _last_region[1], _cpus() - 1)  # (our own region's spinning workers)
    chunks = min(chunks, 1 + idle)
    if chunks < 2:
        return 1
    if not _state["pool"]:
        _launch_pool()
    from numba import get_num_threads  # reached only with a kernel about to run

    chunks = min(get_num_threads(), chunks)
    if chunks < 2:
        return 1
    _state["launched"] = True  # (set slightly early if the caller then stays serial: harmless)
    return chunks
