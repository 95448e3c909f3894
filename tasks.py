#!/usr/bin/env python3
"""Set up and run jitgrad's jobs with nothing but Python and pip.

    python3 tasks.py demo        # make .venv, install jitgrad, run the demo
    python3 tasks.py test        # make .venv, install jitgrad[test], run the test suite
    python3 tasks.py test-slow   # the long fuzz runs too (pytest -m slow, 20x Hypothesis budgets)
    python3 tasks.py bench       # headline benchmarks against NumPy and PyTorch
    python3 tasks.py asv         # the asv suite on this checkout (asv run --python=same --quick)
    python3 tasks.py warmup      # compile and cache every kernel

Extra arguments go to the command being run (e.g. ``python3 tasks.py test -k views``).
The virtualenv is re-installed only when pyproject.toml changes. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

EXTRAS = {"demo": "", "warmup": "", "test": "test", "test-slow": "test", "bench": "bench", "asv": "bench"}


def ensure_venv(extra: str) -> None:
    """Create ``.venv`` and install jitgrad (editable) with ``extra`` when anything changed."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".installed-{extra or 'base'}-{wanted}"
    if stamp.exists():
        return
    if not PYTHON.exists():
        print(f"tasks.py: creating virtualenv {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    spec = f".[{extra}]" if extra else "."
    print(f"tasks.py: installing jitgrad{spec[1:]} into {VENV} (once per pyproject.toml change)", flush=True)
    pip = [str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["-e", spec], cwd=ROOT, check=True)
    for old in VENV.glob(f".installed-{extra or 'base'}-*"):
        old.unlink()
    stamp.touch()


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in EXTRAS:
        print(__doc__)
        return 2
    task, rest = argv[0], argv[1:]
    ensure_venv(EXTRAS[task])
    env = dict(os.environ)
    if task == "demo":
        cmd = ["-m", "jitgrad", "demo", *rest]
    elif task == "warmup":
        cmd = ["-m", "jitgrad", "warmup", *rest]
    elif task == "test":
        cmd = ["-m", "pytest", *rest]
    elif task == "test-slow":
        env["JITGRAD_FUZZ_SCALE"] = env.get("JITGRAD_FUZZ_SCALE", "20")
        cmd = ["-m", "pytest", "-m", "", *rest]
    elif task == "bench":
        cmd = ["-m", "jitgrad", "bench", *rest]
    else:
        os.chdir(ROOT / "asv_bench")
        cmd = ["-m", "asv", "run", "--python=same", "--quick", "--show-stderr", *rest]
        subprocess.run([str(PYTHON), "-m", "asv", "machine", "--yes"], check=True)
    return subprocess.run([str(PYTHON), *cmd], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
