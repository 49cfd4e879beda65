#!/bin/bash
# Both colours of one tai opening, one one-game match per core (a match task keeps an opening's
# two colours together, so each colour is its own match with the agents' order swapped):
#   BIN=runs/bin-s40b/shogilab-full reports/strength/tai-network-matches/colours.sh SEED TAG [COLOUR]
# writes k20k-top16s8TAG-ab2-1000-cap4000-sSEED-black/ and ab2-k20k-top16s8TAG-1000-cap4000-sSEED-white/
# (COLOUR black or white: only that one, to fill a free core).
# (session 40: TAG r for the build of fa640d0, h for af0b967; session 41: s for 1ee0e6b;
# session 42: t for 9ffc4ec with NET=models/tai.ot, the same file as tai-k20k.ot; u for 153423a
# with EXTRA=--still-royals; session 45: ud for f3ba7e2 with
# SCREEN=':trade=0.25:approach=3:decisive=200000'). EXTRA: more options of both matches;
# SCREEN: more settings of the network's agent (appended to its spec before the time limit).
set -e
SEED=$1; TAG=$2; COLOUR=${3:-both}
NET=${NET:-reports/strength/tai-network-teacher/nets/tai-k20k.ot}
A="mcts:$NET:batch=8:screen=8:top=16${SCREEN:-}@movetime=1000"; B='alphabeta:2@movetime=1000'
M=reports/strength/tai-network-matches
BIN=${BIN:-target/release/shogilab-full}
if [ "$COLOUR" != white ]; then
  OMP_NUM_THREADS=1 $BIN match -v tai --a "$A" --b "$B" --games 1 --seed "$SEED" --max-plies 4000 $EXTRA \
    --out "$M/k20k-top16s8$TAG-ab2-1000-cap4000-s$SEED-black" &
fi
if [ "$COLOUR" != black ]; then
  OMP_NUM_THREADS=1 $BIN match -v tai --a "$B" --b "$A" --games 1 --seed "$SEED" --max-plies 4000 $EXTRA \
    --out "$M/ab2-k20k-top16s8$TAG-1000-cap4000-s$SEED-white" &
fi
wait
