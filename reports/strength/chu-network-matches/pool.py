"""Pool the network-vs-mcts:material matches at 300 ms a move (the material-300* folders beside
this file: each match's match.json and games.txt) with the formula of `shogilab match`
(eval::elo::score_summary) and print the pooled row."""
import glob, json, math, os
Z95 = 1.959963984540054
W = D = L = FW = FL = 0
sims = [0, 0]; moves = [0, 0]; parts = []
for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "material-300*", "match.json"))):
    m = json.load(open(f))
    W += m["wins"]; D += m["draws"]; L += m["losses"]
    FW += m.get("forfeit_wins", 0); FL += m.get("forfeit_losses", 0)
    for a in range(2):  # game-weighted mean of the matches' means (the first lacks the sums)
        moves[a] += m["games"]; sims[a] += m["games"] * m["nodes_per_move"][a]
    parts.append((os.path.basename(os.path.dirname(f)), m["wins"], m["draws"], m["losses"], m["nodes_per_move"]))
n = W + D + L
s = (W + D / 2) / n
def mv(w, d, l):
    k = w + d + l; sa = (w + d / 2) / k
    return sa, (w * (1 - sa) ** 2 + d * (0.5 - sa) ** 2 + l * sa ** 2) / k
sa, var = mv(W + 1, D, L + 1)
se = math.sqrt(var / n)
lo, hi = max(0, sa - Z95 * se), min(1, sa + Z95 * se)
elo = lambda x: -400 * math.log10(1 / x - 1) if 0 < x < 1 else (math.inf if x >= 1 else -math.inf)
print(f"games {n}: +{W} ({FW} by forfeit) ={D} -{L} ({FL} by forfeit), score {s:.3} [{lo:.3}, {hi:.3}], Elo {elo(s):+.0f} [{elo(lo):+.0f}, {elo(hi):+.0f}], nodes per move {sims[0]/moves[0]:.0f} / {sims[1]/moves[1]:.0f}")
for p in parts:
    print(p)
