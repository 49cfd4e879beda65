#!/usr/bin/env python3
"""Per position of NAME.openings: how the original game ended and the two continuations (the
agent with the move, the same position with the colours swapped), from NAME/games.jsonl.
    python3 summary.py NAME"""
import json
import sys
from pathlib import Path

here = Path(__file__).parent
name = sys.argv[1]
lines = (here / f"{name}.openings").read_text().splitlines()
comments = [l[2:] for l in lines if l.startswith("# ") and "plies, lost by" in l]
openings = [l for l in lines if l.startswith("sfen")]
games = [json.loads(l) for l in (here / name / "games.jsonl").read_text().splitlines()]
agent = "mcts:models/chu.ot"


def outcome(g):
    a_black = g["black"].startswith(agent)
    if g["result"] == "1/2-1/2":
        return f"draw ({g['termination']}, ply {g['plies']})"
    won = (g["result"] == "1-0") == a_black
    return f"{'won' if won else 'lost'} ({g['termination']}, ply {g['plies']})"


tally = {"with the move": [0, 0, 0], "colours swapped": [0, 0, 0]}
print("| position (original game) | the agent with the move | colours swapped |")
print("|---|---|---|")
for i, (c, op) in enumerate(zip(comments, openings)):
    to_move_black = len(op.split(" moves ")[1].split()) % 2 == 0
    pair = [g for g in games if g["index"] in (2 * i, 2 * i + 1)]
    with_move = [g for g in pair if g["black"].startswith(agent) == to_move_black]
    swapped = [g for g in pair if g not in with_move]
    row = []
    for key, gs in (("with the move", with_move), ("colours swapped", swapped)):
        g = gs[0]
        o = outcome(g)
        tally[key][0 if o.startswith("won") else 1 if o.startswith("draw") else 2] += 1
        row.append(o)
    print(f"| {c.split(';')[0]} | {row[0]} | {row[1]} |")
for key, (w, d, l) in tally.items():
    print(f"\n{key}: +{w} ={d} -{l}", end="")
print()
