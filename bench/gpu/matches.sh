#!/usr/bin/env bash
# Many CPU matches at once on a lent machine's cores: one `shogilab match` per core, each a whole
# match of its own seed (SEED0, SEED0+1, ...), so that a match the budget cuts off is lost whole
# and every other one is complete. The network runs on the CPU with one libtorch thread, as in
# the matches of this 2-core machine (libtorch_cuda.so is not preloaded: no CUDA backend), and
# HaChu, when a spec names /usr/games/hachu, is installed there from .gpu/hachu.
#
# Usage: bench/gpu/matches.sh BINARY OUTDIR BUDGET_SECONDS JOBS SEED0 NAME -- MATCH_ARGS...
#   MATCH_ARGS  everything of `shogilab match` but --seed and --out (-v, --a, --b, --games, ...)
# Out: OUTDIR/log.txt (machine, every match's last line), OUTDIR/NAME.tgz (the match folders
#      NAME-sSEED, each with match.json, games.txt, games.jsonl, as `shogilab match` writes them).
# Env: SHOGILAB_GPU_DRY=1 as in lib.sh (TORCH_LIB naming a CPU libtorch).
set -uo pipefail

default_budget=540
source "$(dirname "$0")/lib.sh" "$1" "$2" "$3"
jobs=${4:?JOBS} seed0=${5:?SEED0} name=${6:?NAME}
shift 6
[ "${1:-}" = "--" ] && shift
unset LD_PRELOAD
if [ -f .gpu/hachu ] && [ ! -x /usr/games/hachu ]; then
    mkdir -p /usr/games && cp .gpu/hachu /usr/games/hachu && chmod +x /usr/games/hachu
fi

say "$jobs matches of: $*"
left=$((budget - $(elapsed) - 20))
pids=()
for i in $(seq 0 $((jobs - 1))); do
    s=$((seed0 + i))
    OMP_NUM_THREADS=1 timeout "$left" "$bin" match "$@" --seed "$s" --out "$scratch/$name-s$s" \
        >"$scratch/$name-s$s.log" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for i in $(seq 0 $((jobs - 1))); do
    s=$((seed0 + i))
    if [ -f "$scratch/$name-s$s/match.json" ]; then
        say "seed $s: $(tail -1 "$scratch/$name-s$s.log")"
    else
        say "seed $s: unfinished (cut off by the budget), dropped"
        rm -rf "${scratch:?}/$name-s$s"
    fi
done
tar czf "$out/$name.tgz" -C "$scratch" $(cd "$scratch" && ls -d "$name"-s*/ 2>/dev/null)
say "done"
