"""The ``python -m jitgrad`` command line: ``demo``, ``tour``, ``info``, ``warmup``, ``bench``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitgrad", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo_parser = sub.add_parser("demo", help="fit a PDE solver that writes in place into views "
                                              "(--tour: the views walkthrough)")
    demo_parser.add_argument("--tour", action="store_true",
                             help="run the walkthrough of views, in-place writes and kernels instead")
    from .demo import add_arguments

    add_arguments(demo_parser)
    sub.add_parser("tour", help="walk through strided views, in-place writes and the kernels")
    sub.add_parser("info", help="versions, threads, kernel cache location and contents")
    sub.add_parser("warmup", help="compile and cache every kernel, showing progress")
    bench_parser = sub.add_parser("bench", help="time the headline scenarios against PyTorch "
                                                "and NumPy, with targets")
    from .bench import add_arguments as add_bench_arguments

    add_bench_arguments(bench_parser)
    args = parser.parse_args(argv)
    if args.command == "bench":
        from .bench import run_from_args as run_bench

        return run_bench(args)
    if args.command == "tour" or (args.command == "demo" and args.tour):
        from .walkthrough import run

        return run()
    if args.command == "demo":
        from .demo import run_from_args

        return run_from_args(args)
    if args.command == "info":
        from .info import run

        return run()
    from .info import warmup

    return warmup()


if __name__ == "__main__":
    sys.exit(main())
