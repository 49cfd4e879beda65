"""Perft counts of tsume-shogi positions (one side without a king) from two independent
libraries, cshogi and python-shogi (both from PyPI). Prints `<sfen> ;D1 n ;D2 n ;D3 n` lines.

Usage: python reference_perft.py > ../perft/shogi-tsume.perft

Each position is given as (label, board, side to move, attacker's hand); the attacker is the
side without a king. As in published tsume problems, the defender (the side with the king)
holds every other piece of the set in hand. Both libraries count every depth; the script stops
with an error if they disagree, so every number written was produced twice. A position with no
legal move stops at depth 1 (its deeper counts are 0 too).
"""

import collections
import importlib.metadata
import sys

import cshogi
import shogi

FULL_SET = {"R": 2, "B": 2, "G": 4, "S": 4, "N": 4, "L": 4, "P": 18}
HAND_ORDER = "RBGSNLP"
MAX_DEPTH = 3

# The attacker is the side without a king on the board.
POSITIONS = [
    ("gold drop on the head: a 1-move mate", "4k4/9/4P4/9/9/9/9/9/9", "b", "G"),
    ("pawn drop at 1b would mate: forbidden (uchifuzume)", "7nk/9/7G1/9/9/9/9/9/9", "b", "P"),
    ("pawn drop at 1b is check but not mate (2a is free)", "8k/9/7G1/9/9/9/9/9/9", "b", "P"),
    ("rook and bishop that may promote", "6snl/6gk1/7pp/9/9/9/9/9/1B5R1", "b", "GS"),
    ("defender to move, in check, can drop to interpose", "4k4/9/4L4/9/9/9/9/9/9", "w", "G"),
    ("checkmated defender: no reply", "4k4/4G4/4P4/9/9/9/9/9/9", "w", ""),
    ("White attacks without a king", "9/9/9/9/9/9/4p4/9/4K4", "w", "g"),
    ("lance, knight and silver", "7nl/6gk1/6ppp/7N1/9/9/9/9/9", "b", "LS"),
    ("defender's gold pinned by a dragon, horse and drops", "4k4/4g4/9/8+B/4+R4/9/9/9/9", "b", "NP"),
    ("attacker with nothing to move: no legal move", "4k4/9/9/9/9/9/9/9/9", "b", ""),
]


def board_counts(board):
    """Pieces on the board per (upper-case) kind, promoted pieces under their base kind."""
    counts = collections.Counter()
    for ch in board:
        if ch.isalpha():
            counts[ch.upper()] += 1
    return counts


def hand_text(counts, white):
    out = ""
    for kind in HAND_ORDER:
        n = counts.get(kind, 0)
        if n:
            out += (str(n) if n > 1 else "") + (kind.lower() if white else kind)
    return out


def tsume_sfen(board, side, attacker_hand):
    """SFEN with the defender holding every piece not on the board or in the attacker's hand."""
    if ("K" in board) == ("k" in board):
        sys.exit(f"{board}: exactly one side must have a king")
    attacker_white = "K" in board
    if attacker_hand and attacker_hand.islower() != attacker_white:
        sys.exit(f"{board} {attacker_hand}: the attacker's hand is of the wrong colour")
    used = board_counts(board)
    used.update(board_counts(attacker_hand))
    rest = {k: FULL_SET[k] - used.get(k, 0) for k in HAND_ORDER}
    if any(n < 0 for n in rest.values()):
        sys.exit(f"{board} {attacker_hand}: more pieces than a set has")
    attacker = hand_text(board_counts(attacker_hand), attacker_white)
    defender = hand_text(rest, not attacker_white)
    hands = (defender + attacker) if attacker_white else (attacker + defender)
    return f"{board} {side} {hands or '-'} 1"


def perft(board, depth):
    """Leaf count of a cshogi or python-shogi board (both have legal_moves, push and pop)."""
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        board.push(m)
        n += perft(board, depth - 1)
        board.pop()
    return n


def main():
    version = importlib.metadata.version
    print(f"# cshogi {version('cshogi')}, python-shogi {version('python-shogi')}: "
          "both libraries gave every number below")
    for label, board, side, hand in POSITIONS:
        sfen = tsume_sfen(board, side, hand)
        fields = []
        for depth in range(1, MAX_DEPTH + 1):
            a = perft(cshogi.Board(sfen), depth)
            b = perft(shogi.Board(sfen), depth)
            if a != b:
                sys.exit(f"{sfen}: perft({depth}) cshogi {a} != python-shogi {b}")
            fields.append(f"D{depth} {a}")
            if a == 0:
                break
        print(f"# {label}")
        print(f"{sfen} ;" + " ;".join(fields), flush=True)


if __name__ == "__main__":
    main()
