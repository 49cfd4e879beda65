#!/bin/bash
# The tai network's agent (screen=8:top=16, the one shipped until session 44, plus SCREEN) from a
# position of one of its drawn games (where it held the only Emperor), against alphabeta:2, both
# at 1 s a move, the ply cap the rest of the game's 4,000:
#   BIN=runs/bin-s43b/shogilab-full reports/strength/tai-network-matches/endgame.sh GAME PLY COLOUR TAG [SCREEN]
# GAME: a match folder here; PLY: the position (a multiple of 500; of 1,000 until session 53); COLOUR: the network's side
# in that game (black or white); SCREEN: more settings of the network's screen (e.g.
# ':trade=0.25'). Writes endgames/GAME-PLY.txt (the position, `replay --sfen-every` of the
# game) and endgame-TAG-GAME-PLY/. Session 43: TAG trade25 for e457d59 (runs/bin-s43b) with
# SCREEN=':trade=0.25'; trade25-approach3 for 61b055c (runs/bin-s43c) with ':trade=0.25:approach=3';
# trade25-approach3-margin0 for 61b055c and trade25-approach3-margin0-fixed for 997e553 (runs/bin-s43d,
# the screen's margin-0 fix) with ':trade=0.25:approach=3:margin=0'. Session 44: TAG decisive for
# 744cec5 (runs/bin-s44a) with ':trade=0.25:approach=3:decisive=200000' (margin 0 only where the
# side to move leads by 2,000 pawns or more: the only Emperor, the terms everywhere); decisive2 for
# f3ba7e2 (runs/bin-s44b; the terms only where the lead is decisive) with the same SCREEN.
# Session 52: TAG trade1-approach20-decisive for f3ba7e2 (runs/bin-s44b) with
# ':trade=1:approach=20:decisive=200000'; trade1-approach20-hunt300-decisive for 90b3c2d
# (runs/bin-s52a, the hunt term) with ':trade=1:approach=20:hunt=300:decisive=200000'; session 53:
# the same TAG and SCREEN for 69f272f (runs/bin-s53a; plays as 90b3c2d); trade1-approach20-hunt300-guard300-decisive
# for the build with the guard term (runs/bin-s53b) with ':trade=1:approach=20:hunt=300:guard=300:decisive=200000'.
set -e
GAME=$1; PLY=$2; COLOUR=$3; TAG=$4; SCREEN=${5:-}
M=reports/strength/tai-network-matches
BIN=${BIN:-target/release/shogilab-full}
FRONT=$(dirname "$BIN")/shogilab
mkdir -p "$M/endgames"
POS="$M/endgames/$GAME-$PLY.txt"
"$FRONT" replay -v tai --sfen-every 500 -f "$M/$GAME/games.txt" \
  | awk -v p="$PLY" '$2 == p {print "sfen", $3, $4, $5, $6}' > "$POS"
test -s "$POS" || { echo "no position at ply $PLY in $M/$GAME" >&2; exit 1; }
NET="mcts:models/tai.ot:batch=8:screen=8:top=16$SCREEN@movetime=1000"; AB='alphabeta:2@movetime=1000'
if [ "$COLOUR" = black ]; then A=$NET; B=$AB; else A=$AB; B=$NET; fi
OMP_NUM_THREADS=1 $BIN match -v tai --a "$A" --b "$B" --games 1 --seed 1 --max-plies $((4000 - PLY)) \
  --openings "$POS" --out "$M/endgame-$TAG-$GAME-$PLY"
