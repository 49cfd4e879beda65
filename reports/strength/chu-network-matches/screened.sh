#!/usr/bin/env bash
# The screened chu network (models/chu.agent: mcts:models/chu.ot:batch=8:screen=3) at 300 ms a
# move on one thread against an opponent, one match per seed (reports/strength/chu-network.md,
# "A tactical screen at the root"). Run from the repository root:
#   reports/strength/chu-network-matches/screened.sh 667 668 ...   HaChu at depth 2, 10 games a
#     seed, under HaChu's repetition rule (the default)
#   OPP='alphabeta:2@movetime=300' RULES= PREFIX=ab2-screen3-300 GAMES=20 .../screened.sh 701 ...
#     (RULES empty: chu's default fourfold-repetition rule, as the unscreened rows were played)
#   DEPTH=2, or EVAL=uniform with PREFIX=hachu-uniform-screen3-strict-sd2 for the control.
#   TOP=16 DEPTH=4: a depth-4 screen of candidates (`screen=4:top=16`: the policy's 16 best
#     moves, the captures and the moves of threatened pieces) instead of every move.
# One match per core. Outputs: reports/strength/chu-network-matches/$PREFIX-s$SEED.
set -euo pipefail
B=${B:-target/release/shogilab}
DEPTH=${DEPTH:-3}
EVAL=${EVAL:-models/chu.ot}
OPP=${OPP:-xboard:/usr/games/hachu|sd=2}
GAMES=${GAMES:-10}
RULES=${RULES-repetition=forbidden}
TOP=${TOP:-}
PREFIX=${PREFIX:-hachu-screen$DEPTH-strict-sd2}
for s in "$@"; do
  OMP_NUM_THREADS=1 "$B" match -v chu --a "mcts:$EVAL:batch=8:screen=$DEPTH${TOP:+:top=$TOP}@movetime=300" \
    --b "$OPP" ${RULES:+--option "$RULES"} --games "$GAMES" --seed "$s" \
    --max-plies 400 --out "reports/strength/chu-network-matches/$PREFIX-s$s"
done
