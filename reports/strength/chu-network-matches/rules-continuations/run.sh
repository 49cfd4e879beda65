#!/usr/bin/env bash
# The games that the shipped chu agent lost by the perpetual-attack rule (before the root rules
# of eval/src/root_rules.rs), played on from the position before the losing move with a build
# that has them: each position twice, colours swapped (the agent to move in one of the two).
#   B=runs/bin-s54b/shogilab reports/strength/chu-network-matches/rules-continuations/run.sh OPP NAME
# OPP: alphabeta:2@movetime=300 (ab2-screen3-300) or material@movetime=300 (material-screen3-300)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
B=${B:-shogilab}
opp=$1 name=$2
dir=reports/strength/chu-network-matches/rules-continuations
n=$(grep -c '^sfen' "$dir/$name.openings")
OMP_NUM_THREADS=1 "$B" match -v chu --a "mcts:models/chu.ot:batch=8:screen=3@movetime=300" --b "$opp" \
    --openings "$dir/$name.openings" --games $((2 * n)) --max-plies 400 --seed 7 --out "$dir/$name"
