#!/usr/bin/env bash
# GPU figures for the tenjiku and tai networks, in one bounded run on a CUDA machine:
#   1. the tenjiku teacher export (the committed depth-1 imbalance games, every position,
#      depth-1 values) and the tai one (every second position, results only: tai's depth-1
#      values cost about 11 ms of CPU a position), on all the machine's cores;
#   2. the recipe of models/tenjiku.ot (preset small, 6,000 steps of 256 at 0.002, warm-up 500,
#      one cosine, value target half result half depth-1 value, seed 1): the same command as on
#      the CPU (models/README.md), timed;
#   3. a tai network by the same settings with as many steps as the measured rate lets finish in
#      the budget (a 100-step probe first; one cosine over the steps planned);
#   4. `bench-selfplay` on tenjiku (preset small, 32 simulations) in the time left (90 s at most).
#
# Usage: bench/gpu/recipes.sh BINARY OUTDIR [BUDGET_SECONDS]
#   BINARY  a shogilab-full built against the machine's libtorch (bench/gpu/build-binary.sh),
#           or its .xz
#   OUTDIR  where the log, the JSON lines and the trained networks (with metadata) go
#   BUDGET  seconds for the whole script (default 540)
# Env: TORCH_LIB as for measure.sh; SHOGILAB_GPU_DRY=1 shrinks every step (a check of the
#      script on a CPU machine).
set -uo pipefail

default_budget=540
source "$(dirname "$0")/lib.sh" "$@"

ten_every=1 tai_every=2 ten_steps=6000 probe=100 games=64 min_tai=500
if [ "$dry" = 1 ]; then ten_every=200 tai_every=30 ten_steps=20 probe=5 games=2 min_tai=5; fi

recipe=(--preset small --batch-size 256 --learning-rate 0.002 --lr-schedule cosine
    --warmup-steps 500 --value-mix 0.5)
[ "$dry" = 1 ] && recipe=(--preset small --batch-size 16 --learning-rate 0.002 --value-mix 0.5)

timed "$bin" teacher -v tenjiku --log reports/piece-values/games/tenjiku --out "$scratch/ten" \
    --every "$ten_every" --value-depth 1 || exit 1
timed "$bin" teacher -v tai --log reports/piece-values/games/tai --out "$scratch/tai" \
    --every "$tai_every" --value-depth 0 || exit 1

timed "$bin" train -v tenjiku --data "$scratch/ten" --out "$scratch/tenjiku.ot" "${recipe[@]}" \
    --steps "$ten_steps" --seed 1 &&
    for ext in ot json csv; do cp "$scratch/tenjiku.$ext" "$out/tenjiku-gpu.$ext"; done

# Tai: a probe for the rate, then as many steps as fit, leaving a minute for the benchmark.
timed "$bin" train -v tai --data "$scratch/tai" --out "$scratch/tai-probe.ot" "${recipe[@]}" \
    --steps "$probe" --seed 1
rate=$(probe_rate "$probe")
left=$((budget - $(elapsed) - 105))
steps=$(steps_in "$rate" $((left - 40)))
[ "$dry" = 1 ] && steps=$min_tai
say "tai: ${rate:-?} samples/s in the probe, $left s left: $steps steps"
if [ "$steps" -ge "$min_tai" ]; then
    timed "$bin" train -v tai --data "$scratch/tai" --out "$scratch/tai.ot" "${recipe[@]}" \
        --steps "$steps" --seed 1 &&
        for ext in ot json csv; do cp "$scratch/tai.$ext" "$out/tai-gpu.$ext"; done
fi

left=$((budget - $(elapsed) - 10))
[ "$left" -gt 30 ] && timed timeout "$((left < 90 ? left : 90))" "$bin" bench-selfplay \
    -v tenjiku --net small --games "$games" --concurrent 64 --max-plies 300 --json
grep '^{' "$log" >"$out/bench-selfplay-tenjiku.jsonl"
say "done"
