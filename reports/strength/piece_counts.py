#!/usr/bin/env python3
"""Pieces on the board of each side every STEP plies of a match's games: how material went.

    python3 reports/strength/piece_counts.py BINARY VARIANT MATCH_DIR [STEP]

BINARY is a `shogilab` build (its `replay --final-sfen` cuts each game of MATCH_DIR/games.jsonl
at every STEP plies, 100 by default). Prints, per game, `ply: black/white` piece counts (board
only; pieces in hand are not counted), and which side the match's agent `a` played.
"""
import json
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"\{[^}]*\}|[A-Za-z]")


def counts(sfen):
    """Black's and White's pieces on the board of an SFEN (uppercase: Black)."""
    board = sfen.split()[0]
    black = white = 0
    for t in TOKEN.findall(board):
        letters = t.strip("{}")
        if letters.isupper():
            black += 1
        else:
            white += 1
    return black, white


def final_sfens(binary, variant, lines):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        out = subprocess.run([binary, "replay", "-v", variant, "--final-sfen", "-f", f.name],
                             check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    binary, variant, folder = sys.argv[1:4]
    step = int(sys.argv[4]) if len(sys.argv) == 5 else 100
    a = json.load(open(f"{folder}/match.json"))["a"]
    records = [json.loads(l) for l in open(f"{folder}/games.jsonl") if l.strip()]
    for i, record in enumerate(records):
        head, _, moves = record["line"].partition(" moves ")
        moves = moves.split()
        cuts = list(range(0, len(moves), step)) + [len(moves)]
        lines = [head + (" moves " + " ".join(moves[:c]) if c else "") for c in cuts]
        rows = [f"{c}: {b}/{w}" for c, (b, w) in zip(cuts, map(counts, final_sfens(binary, variant, lines)))]
        side = "black" if record["black"] == a else "white"
        print(f"game {i + 1} (a plays {side}): " + ", ".join(rows))


if __name__ == "__main__":
    main()
