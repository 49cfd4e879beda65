#!/usr/bin/env bash
# A tai network from games decided over the board, in one bounded run on a CUDA machine:
#   1. GEN_MINUTES more games of the depth-1 imbalance log LOG (a copy of it), on every core, by
#      the command that began it (below): setups that keep both sides' princes, a ply cap long
#      enough for games to end by royal capture (43% did in the first 100);
#   2. the teacher export of the log, every EVERY-th position, with depth-1 search values (a
#      logistic scale fitted to the results, or VALUE_SCALE), on all the machine's cores;
#   3. the recipe of models/tenjiku.ot (preset small, batch 256 at 0.002, warm-up 500, one cosine,
#      seed 1; value target VALUE_MIX of depth-1 value, the rest the result), with as many steps
#      as the rate measured by a 100-step probe lets finish in the budget (at most MAX_STEPS).
#
# Usage: bench/gpu/tai-teacher.sh BINARY OUTDIR LOG [BUDGET_SECONDS]
# Env: GEN_MINUTES (default 3; 0: none), EVERY (default 3), VALUE_MIX (default 0.5),
#      MAX_STEPS (default 6000), VALUE_SCALE (default: fitted), TORCH_LIB and SHOGILAB_GPU_DRY as
#      in lib.sh.
# Out: OUTDIR/log.txt, OUTDIR/tai-teacher.{ot,json,csv} (the network, its metadata, its losses),
#      OUTDIR/games/ (the log's parts played here).
set -uo pipefail

default_budget=330
log_in=${3:?usage: tai-teacher.sh BINARY OUTDIR LOG [BUDGET_SECONDS]}
source "$(dirname "$0")/lib.sh" "$1" "$2" "${4:-}"

gen=${GEN_MINUTES:-3} every=${EVERY:-3} max_steps=${MAX_STEPS:-6000} probe=100 min_steps=500
if [ "$dry" = 1 ]; then gen=0.2 every=50 max_steps=10 probe=5 min_steps=5; fi
scale=()
[ -n "${VALUE_SCALE:-}" ] && scale=(--value-scale "$VALUE_SCALE")

recipe=(--preset small --batch-size 256 --learning-rate 0.002 --lr-schedule cosine
    --warmup-steps 500 --value-mix "${VALUE_MIX:-0.5}")
[ "$dry" = 1 ] && recipe=(--preset small --batch-size 16 --learning-rate 0.002 --value-mix "${VALUE_MIX:-0.5}")

games=$scratch/log
cp -r "$log_in" "$games"
before=$(ls "$games")
# The command that began the log (seed 901); it plays the setups the log does not hold yet.
[ "$gen" = 0 ] || timed "$bin" values -v tai --out "$scratch/gen" --log "$games" --games 20000 --safe-royals \
    --royal-drop 0 --max-plies 1000 --part-games 100 --seed 901 --no-positions --bootstrap 20 \
    --max-minutes "$gen" || say "values exited non-zero: its fit or report (the games are stored first)"
mkdir -p "$out/games"
for f in $(ls "$games"); do
    grep -qx "$f" <<<"$before" || cp "$games/$f" "$out/games/"
done

timed "$bin" teacher -v tai --log "$games" --out "$scratch/data" --every "$every" \
    --value-depth 1 "${scale[@]}" || exit 1

timed "$bin" train -v tai --data "$scratch/data" --out "$scratch/probe.ot" "${recipe[@]}" \
    --steps "$probe" --seed 1 || exit 1
rate=$(probe_rate "$probe")
left=$((budget - $(elapsed) - 30))
steps=$(steps_in "$rate" $((left - 20)))
[ "$steps" -gt "$max_steps" ] && steps=$max_steps
[ "$dry" = 1 ] && steps=$min_steps
say "${rate:-?} samples/s in the probe, $left s left: $steps steps"
[ "$steps" -ge "$min_steps" ] || exit 1
timed "$bin" train -v tai --data "$scratch/data" --out "$scratch/tai.ot" "${recipe[@]}" \
    --steps "$steps" --seed 1 || exit 1
for ext in ot json csv; do cp "$scratch/tai.$ext" "$out/tai-teacher.$ext"; done
say "done"
