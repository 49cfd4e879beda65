#!/usr/bin/env python3
"""Peer benchmark: cshogi (C++ shogi library, PyPI `cshogi`) perft.

What it measures: standard-shogi perft from the initial position (hirate,
`lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1`), the
way a cshogi user would write it: a recursive walk with Board.push/Board.pop
over Board.legal_moves, with bulk counting at the last ply (the leaf count is
len(board.legal_moves), i.e. the C++ generator's size(), without playing the
leaf moves). cshogi has no built-in perft helper (as of 1.1.0).

Every depth 1..N is checked against the published node counts
(30, 900, 25470, 719731, 19861490, 547581517) and the program exits non-zero
on a mismatch. Timing is wall-clock (time.perf_counter) around the perft call
of the reported depth only; depths below it are run first as correctness checks.
The timed call is repeated $SHOGILAB_PEER_RUNS times (default 3) and the fastest
run is reported ("runs" in the output).

Output: one JSON line on stdout:
  {"engine":"cshogi","variant":"shogi","depth":5,"nodes":...,"seconds":...,"nps":...,"method":"bulk","runs":3,"version":"..."}

Usage: cshogi_perft.py [DEPTH]   (default 5)
"""
import json
import os
import sys
import time

import cshogi

EXPECTED = {1: 30, 2: 900, 3: 25470, 4: 719731, 5: 19861490, 6: 547581517}


def perft(board, depth):
    if depth == 1:
        return len(board.legal_moves)  # bulk count: no push/pop at the leaves
    nodes = 0
    push = board.push
    pop = board.pop
    for move in board.legal_moves:
        push(move)
        nodes += perft(board, depth - 1)
        pop()
    return nodes


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    if depth not in EXPECTED:
        sys.exit(f"cshogi_perft: no published count for depth {depth}")
    board = cshogi.Board()  # hirate start position
    # Correctness gate: every shallower depth must match before timing.
    for d in range(1, depth):
        n = perft(board, d)
        if n != EXPECTED[d]:
            sys.exit(f"cshogi_perft: MISMATCH at depth {d}: got {n}, expected {EXPECTED[d]}")
    runs = max(1, int(os.environ.get("SHOGILAB_PEER_RUNS", "3")))
    secs = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        nodes = perft(board, depth)
        secs = min(secs, time.perf_counter() - t0)
        if nodes != EXPECTED[depth]:
            sys.exit(f"cshogi_perft: MISMATCH at depth {depth}: got {nodes}, expected {EXPECTED[depth]}")
    try:
        from importlib.metadata import version
        ver = version("cshogi")
    except Exception:  # pragma: no cover
        ver = getattr(cshogi, "__version__", "unknown")
    print(json.dumps({
        "engine": "cshogi",
        "variant": "shogi",
        "depth": depth,
        "nodes": nodes,
        "seconds": round(secs, 3),
        "nps": int(nodes / secs) if secs > 0 else None,
        "method": "bulk",
        "runs": runs,
        "version": ver,
    }, separators=(",", ":")))


if __name__ == "__main__":
    main()
