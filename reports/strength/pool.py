"""Pool the matches of a network against one opponent: the folders of FOLDER whose names start
with PREFIX (`python3 pool.py chu-network-matches hachu-sd2`, run from reports/strength/; each
holds a match's match.json and games.txt). Prints the pooled row with the formula of `shogilab
match` (eval::elo::score_summary), the same over the board (forfeits left out), then each match."""
import glob, json, math, os, sys
Z95 = 1.959963984540054
W = D = L = FW = FL = 0
sims = [0, 0]; moves = [0, 0]; parts = []
if len(sys.argv) != 3:
    sys.exit("usage: pool.py FOLDER PREFIX")
found = sorted(glob.glob(os.path.join(sys.argv[1], sys.argv[2] + "*", "match.json")))
if not found:
    sys.exit(f"no match.json in {sys.argv[1]}/{sys.argv[2]}*")
for f in found:
    m = json.load(open(f))
    W += m["wins"]; D += m["draws"]; L += m["losses"]
    FW += m.get("forfeit_wins", 0); FL += m.get("forfeit_losses", 0)
    for a in range(2):  # game-weighted mean of the matches' means (the first lacks the sums)
        if m["nodes_per_move"][a] is not None:  # an external engine reports none
            moves[a] += m["games"]; sims[a] += m["games"] * m["nodes_per_move"][a]
    parts.append((os.path.basename(os.path.dirname(f)), m["wins"], m["draws"], m["losses"], m["nodes_per_move"]))
n = W + D + L
s = (W + D / 2) / n
def mv(w, d, l):
    k = w + d + l; sa = (w + d / 2) / k
    return sa, (w * (1 - sa) ** 2 + d * (0.5 - sa) ** 2 + l * sa ** 2) / k
sa, var = mv(W + 1, D, L + 1)
se = math.sqrt(var / n)
lo, hi = max(0.0, sa - Z95 * se), min(1.0, sa + Z95 * se)
elo = lambda x: -400 * math.log10(1 / x - 1) if 0 < x < 1 else (math.inf if x >= 1 else -math.inf)
print(f"games {n}: +{W} ({FW} by forfeit) ={D} -{L} ({FL} by forfeit), score {s:.3} [{lo:.3}, {hi:.3}], Elo {elo(s):+.0f} [{elo(lo):+.0f}, {elo(hi):+.0f}], nodes per move " + " / ".join(f"{x / k:.0f}" if k else "-" for x, k in zip(sims, moves)))
# the same without the games decided by a forfeit (over the board)
w, l = W - FW, L - FL
k = w + D + l
if k:
    sb, vb = mv(w + 1, D, l + 1)
    seb = math.sqrt(vb / k)
    print(f"over the board {k}: +{w} ={D} -{l}, score {(w + D / 2) / k:.3} [{max(0.0, sb - Z95 * seb):.3}, {min(1.0, sb + Z95 * seb):.3}]")
for p in parts:
    print(p)
