"""The ``python -m jitgrad`` command line: ``demo``, ``info``, ``warmup``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitgrad", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="walk through strided views, in-place writes and the kernels")
    sub.add_parser("info", help="versions, threads, kernel cache location and contents")
    sub.add_parser("warmup", help="compile and cache every kernel, showing progress")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .walkthrough import run

        return run()
    if args.command == "info":
        from .info import run

        return run()
    from .info import warmup

    return warmup()


if __name__ == "__main__":
    sys.exit(main())
