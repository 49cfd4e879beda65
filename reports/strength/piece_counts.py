#!/usr/bin/env python3
"""Pieces on the board of each side every STEP plies of a match's games: how material went.

    python3 reports/strength/piece_counts.py BINARY VARIANT MATCH_DIR [STEP] [--track TOKENS]

BINARY is a `shogilab` build of session 41 or later (its `replay --sfen-every STEP` gives each
game of MATCH_DIR/games.jsonl every STEP plies, 100 by default, and after its last move). Prints,
per game, `ply: black/white` piece counts (board only; pieces in hand are not counted), and which
side the match's agent `a` played. With `--track E,e` (SFEN tokens, comma-separated: tai's
Emperors here) it prints instead the plies at which the counts of those tokens change, e.g.
`5: E 1, e 0` (STEP 1 gives the exact ply).
"""
import argparse
import json
import re
import subprocess
import tempfile

TOKEN = re.compile(r"\{[^}]*\}|[A-Za-z]")


def tokens(sfen):
    """The piece tokens of an SFEN's board (`{fk}` or a letter; uppercase: Black)."""
    return [t.strip("{}") for t in TOKEN.findall(sfen.split()[0])]


def counts(sfen):
    """Black's and White's pieces on the board of an SFEN."""
    present = tokens(sfen)
    black = sum(1 for t in present if t.isupper())
    return black, len(present) - black


def positions(binary, variant, lines, step):
    """Per game line, the list of (ply, SFEN) every `step` plies and at its end."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        out = subprocess.run([binary, "replay", "-v", variant, "--sfen-every", str(step),
                              "-f", f.name], check=True, capture_output=True, text=True)
    games = [[] for _ in lines]
    for row in out.stdout.splitlines():
        game, ply, sfen = row.split(" ", 2)
        games[int(game) - 1].append((int(ply), sfen))
    return games


def tracked(snapshots, kinds):
    """The (ply, counts) at which the counts of the `kinds` tokens change, the start first."""
    rows, before = [], None
    for ply, sfen in snapshots:
        present = tokens(sfen)
        now = tuple(present.count(k) for k in kinds)
        if now != before:
            rows.append(f"{ply}: " + ", ".join(f"{k} {n}" for k, n in zip(kinds, now)))
            before = now
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("variant")
    p.add_argument("folder")
    p.add_argument("step", nargs="?", type=int, default=100)
    p.add_argument("--track", help="comma-separated SFEN tokens whose counts to follow")
    a = p.parse_args()
    match_a = json.load(open(f"{a.folder}/match.json"))["a"]
    records = [json.loads(l) for l in open(f"{a.folder}/games.jsonl") if l.strip()]
    games = positions(a.binary, a.variant, [r["line"] for r in records], a.step)
    for i, (record, snapshots) in enumerate(zip(records, games)):
        if a.track:
            rows = tracked(snapshots, a.track.split(","))
        else:
            rows = [f"{ply}: {b}/{w}" for ply, (b, w) in ((p, counts(s)) for p, s in snapshots)]
        side = "black" if record["black"] == match_a else "white"
        print(f"game {i + 1} (a plays {side}): " + ", ".join(rows))


if __name__ == "__main__":
    main()
