"""Pool the matches of one agent against one opponent: the folders of FOLDER whose names start
with one of the PREFIXes (`python3 pool.py chu-network-matches hachu-sd2`, run from
reports/strength/; each holds a match's match.json and games.txt). Prints the pooled row with the
formula of `shogilab match` (eval::elo::score_summary), the same over the board (forfeits left
out), then each match.

    python3 pool.py FOLDER PREFIX [PREFIX ...] [--agent SPEC]

The row is the score of SPEC (default: the first agent of the first match of the first PREFIX).
A match that plays SPEC second (the colour-swapped folders of a tai opening) is counted from
SPEC's side: its wins are SPEC's losses. Matches are pooled only when they played the same two
agents under the same settings (the variant, limits, ply cap, openings, options; only the seed
and the number of games may differ): otherwise the script names the field and the two folders and
pools nothing."""
import argparse, glob, json, math, os, sys

Z95 = 1.959963984540054
FREE = {"seed", "games", "a", "b"}  # settings that may differ between pooled matches


def load(folder, prefixes):
    found = []  # the first prefix's matches first: its first match names the default agent
    for p in prefixes:
        found += [f for f in sorted(glob.glob(os.path.join(folder, p + "*", "match.json"))) if f not in found]
    if not found:
        sys.exit(f"no match.json in {' or '.join(os.path.join(folder, p) + '*' for p in prefixes)}")
    return [(os.path.basename(os.path.dirname(f)), json.load(open(f))) for f in found]


def oriented(name, m, agent):
    """The match's counts from `agent`'s side: (W, D, L, forfeit W, forfeit L, nodes, opponent)."""
    fw, fl, nodes = m.get("forfeit_wins", 0), m.get("forfeit_losses", 0), m["nodes_per_move"]
    if m["a"] == agent:
        return m["wins"], m["draws"], m["losses"], fw, fl, nodes, m["b"]
    if m["b"] == agent:
        return m["losses"], m["draws"], m["wins"], fl, fw, nodes[::-1], m["a"]
    sys.exit(f"{name}: neither agent is {agent} (a: {m['a']}, b: {m['b']}); nothing pooled")


def check_same(rows):
    """Exit naming the first field in which two matches differ (opponent or a setting)."""
    first_name, first = rows[0][0], rows[0][1]
    for name, row in rows[1:]:
        for key in sorted(set(first) | set(row)):
            if first.get(key, "(not recorded)") != row.get(key, "(not recorded)"):
                sys.exit(f"{first_name} and {name} differ in {key}: {first.get(key, '(not recorded)')} "
                         f"against {row.get(key, '(not recorded)')}; pool them apart (nothing pooled)")


def mean_var(w, d, l):
    k = w + d + l; s = (w + d / 2) / k
    return s, (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / k


def interval(w, d, l):
    """The 95% interval of the score, with one win and one loss added (as `shogilab match`)."""
    s, var = mean_var(w + 1, d, l + 1)
    se = math.sqrt(var / (w + d + l))
    return max(0.0, s - Z95 * se), min(1.0, s + Z95 * se)


def elo(x):
    return -400 * math.log10(1 / x - 1) if 0 < x < 1 else (math.inf if x >= 1 else -math.inf)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder"); ap.add_argument("prefix", nargs="+")
    ap.add_argument("--agent", help="the agent whose score is pooled (default: the first match's first agent)")
    args = ap.parse_args()
    matches = load(args.folder, args.prefix)
    agent = args.agent or matches[0][1]["a"]
    W = D = L = FW = FL = 0
    sims, moves, parts, kept = [0, 0], [0, 0], [], []
    for name, m in matches:
        w, d, l, fw, fl, nodes, opponent = oriented(name, m, agent)
        settings = {k: v for k, v in m.get("settings", {}).items() if k not in FREE}
        kept.append((name, {"opponent": opponent, **settings}))
        W += w; D += d; L += l; FW += fw; FL += fl
        for i in range(2):  # game-weighted mean of the matches' means (the first lacks the sums)
            if nodes[i] is not None:  # an external engine reports none
                moves[i] += m["games"]; sims[i] += m["games"] * nodes[i]
        parts.append((name, w, d, l, nodes))
    check_same(kept)
    n = W + D + L
    s = (W + D / 2) / n
    lo, hi = interval(W, D, L)
    if len(set(m["a"] for _, m in matches)) > 1:
        print(f"as seen by {agent} (colour-swapped matches counted from its side)")
    print(f"games {n}: +{W} ({FW} by forfeit) ={D} -{L} ({FL} by forfeit), score {s:.3} [{lo:.3}, {hi:.3}], "
          f"Elo {elo(s):+.0f} [{elo(lo):+.0f}, {elo(hi):+.0f}], nodes per move "
          + " / ".join(f"{x / k:.0f}" if k else "-" for x, k in zip(sims, moves)))
    w, l = W - FW, L - FL  # the same without the games decided by a forfeit (over the board)
    if w + D + l:
        blo, bhi = interval(w, D, l)
        print(f"over the board {w + D + l}: +{w} ={D} -{l}, score {(w + D / 2) / (w + D + l):.3} [{blo:.3}, {bhi:.3}]")
    for p in parts:
        print(p)


if __name__ == "__main__":
    main()
