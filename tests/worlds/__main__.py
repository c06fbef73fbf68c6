"""Fact hits of ``Memory.retrieve`` on the evaluation worlds, beside BM25 over fact sentences.

Run from the repository root: ``python -m tests.worlds [--embedder hashing|default]``.
Prints, per world (design and held-out apart), the share of questions whose answering
fact is among the top 1 / 3 / 5 results of a default ``retrieve``, and the same for a
BM25 ranking of the fact sentences alone (the keyword baseline, same run).
"""

from __future__ import annotations

import argparse

from tests.worlds import DESIGN, HELD_OUT, evaluate


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.worlds")
    parser.add_argument("--embedder", choices=["hashing", "default"], default="default")
    parser.add_argument("--worlds", nargs="*", default=[*DESIGN, *HELD_OUT])
    parser.add_argument("--show", action="store_true", help="print each question missed")
    args = parser.parse_args()
    for name in args.worlds:
        tag = "held out" if name in HELD_OUT else "design"
        figures = evaluate(name, embedder=args.embedder, show_misses=args.show)
        line = "  ".join(f"{key} {value:.2f}" for key, value in figures.items())
        print(f"{name:<10} ({tag:<8}) {line}")


if __name__ == "__main__":
    main()
