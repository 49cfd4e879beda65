#!/usr/bin/env bash
# The tai network with a depth-2 screen of candidates (the policy's 16 most probable moves, the
# captures and the moves of threatened pieces; `screen=2:top=16`) at 300 ms a move on one
# thread against `alphabeta:2` at the same time, 2 games a seed (colours swapped), 1,000-ply cap
# (reports/strength/tai-network.md, "A screen of candidates"). Run from the repository root,
# one seed list per core:
#   B=runs/bin-top/shogilab-full reports/strength/tai-network-matches/top16.sh 841 843 ...
# Outputs: reports/strength/tai-network-matches/k20k-top16-ab2-300-s$SEED.
set -euo pipefail
B=${B:-target/release/shogilab}
NET=${NET:-reports/strength/tai-network-teacher/nets/tai-k20k.ot}
for s in "$@"; do
  OMP_NUM_THREADS=1 "$B" match -v tai --a "mcts:$NET:batch=8:screen=2:top=16@movetime=300" \
    --b 'alphabeta:2@movetime=300' --games 2 --seed "$s" --max-plies 1000 \
    --out "reports/strength/tai-network-matches/k20k-top16-ab2-300-s$s"
done
