#!/usr/bin/env bash
# The screened chu network against HaChu at depth 2 under HaChu's repetition rule, 10 games a
# seed (reports/strength/chu-network.md, "A tactical screen at the root"). Run from the
# repository root: DEPTH=3 EVAL=models/chu.ot reports/strength/chu-network-matches/screen-vs-hachu.sh 663 664 ...
# (EVAL=uniform with PREFIX=hachu-uniform-screen3 for the control). One match per core.
set -euo pipefail
B=${B:-target/release/shogilab}
DEPTH=${DEPTH:-3}
EVAL=${EVAL:-models/chu.ot}
PREFIX=${PREFIX:-hachu-screen$DEPTH}
for s in "$@"; do
  OMP_NUM_THREADS=1 "$B" match -v chu --a "mcts:$EVAL:batch=8:screen=$DEPTH@movetime=300" \
    --b "xboard:/usr/games/hachu|sd=2" --option repetition=forbidden --games 10 --seed "$s" \
    --max-plies 400 --out "reports/strength/chu-network-matches/$PREFIX-strict-sd2-s$s"
done
