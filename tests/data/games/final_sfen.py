"""Final positions of the games in final-sfen.txt, as SFEN, from two independent libraries
(cshogi and python-shogi, both from PyPI); the script stops if they disagree.

Usage: python final_sfen.py < final-sfen.txt > final-sfen.expected
"""

import importlib.metadata
import sys

import cshogi
import shogi


def play_python_shogi(sfen, moves):
    board = shogi.Board(sfen) if sfen else shogi.Board()
    for usi in moves:
        move = shogi.Move.from_usi(usi)
        if move not in board.legal_moves:
            sys.exit(f"python-shogi: illegal move {usi}")
        board.push(move)
    return board.sfen()


def play_cshogi(sfen, moves):
    board = cshogi.Board(sfen) if sfen else cshogi.Board()
    for usi in moves:
        move = board.move_from_usi(usi)
        if not board.is_legal(move):
            sys.exit(f"cshogi: illegal move {usi}")
        board.push(move)
    return board.sfen()


def parse(line):
    toks = line.split()
    end = toks.index("moves") if "moves" in toks else len(toks)
    sfen = " ".join(toks[1:end]) if toks[0] == "sfen" else None
    return sfen, toks[end + 1:]


def main():
    version = importlib.metadata.version
    print(f"# cshogi {version('cshogi')}, python-shogi {version('python-shogi')}: "
          "both libraries gave every position below")
    for line in sys.stdin:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        sfen, moves = parse(line)
        a = play_cshogi(sfen, moves)
        b = play_python_shogi(sfen, moves)
        if a != b:
            sys.exit(f"{line}: cshogi {a} != python-shogi {b}")
        print(a)


if __name__ == "__main__":
    main()
