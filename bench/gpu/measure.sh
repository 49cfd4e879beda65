#!/usr/bin/env bash
# GPU figures for the README and the chu strength report, in one bounded run on a CUDA machine:
#   1. the machine and the libraries (nvidia-smi, PyTorch's version);
#   2. the chu teacher export (the depth-2 imbalance log, every 4th position, depth-1 values);
#   3. training samples/s of preset small on those positions (300 steps of 256);
#   4. the reference recipe of models/chu.ot (preset small, 18,000 steps of 256 on the depth-1
#      values mixed half and half with the results, cosine to step 18,000) in 4,500-step chunks,
#      each `--init` the previous, as many as the measured rate lets finish inside the budget;
#   5. `bench-selfplay` on chu with the README's settings (self-play games/hour, evaluations/s,
#      raw forward throughput, training samples/s), then the medium and large presets' training
#      speed, in the time left.
#
# Usage: bench/gpu/measure.sh BINARY OUTDIR [BUDGET_SECONDS]
#   BINARY  a shogilab-full built against the machine's libtorch (bench/gpu/build-binary.sh),
#           or its .xz
#   OUTDIR  where the log, the JSON lines and the trained checkpoint go
#   BUDGET  seconds for the whole script (default 480); steps 4-5 stop inside it
# Env: TORCH_LIB  folder of libtorch_cpu.so / libtorch_cuda.so (default: python3's torch/lib);
#      SHOGILAB_GPU_DRY=1 shrinks every step (a check of the script on a CPU machine).
set -uo pipefail

default_budget=480
source "$(dirname "$0")/lib.sh" "$@"

steps=18000 probe=300 chunk=4500 games=128 every=4
if [ "$dry" = 1 ]; then steps=40 probe=10 chunk=10 games=4 every=64; fi

teacher=$scratch/chu-d2v1
timed "$bin" teacher -v chu --log reports/piece-values/depth2/games/chu --out "$teacher" \
    --every "$every" --value-depth 1 || exit 1

# Training speed of the reference preset on the teacher positions (and the rate the recipe
# below is planned with).
probe_train() { # preset
    timed "$bin" train -v chu --data "$teacher" --out "$scratch/probe-$1.ot" --preset "$1" \
        --steps "$probe" --batch-size 256 --learning-rate 0.002 --seed 1
}
probe_train small
rate=$(grep "^trained $probe steps" "$log" | tail -1 | grep -o '[0-9]* samples/s' | cut -d' ' -f1)

# The reference recipe in chunks (each `--init` the previous, one cosine over all of them), as
# many as fit in the budget less the time kept for the benchmarks after it.
keep=170
recipe=(-v chu --data "$teacher" --preset small --batch-size 256 --learning-rate 0.002
    --lr-schedule cosine --warmup-steps 500 --schedule-steps "$steps" --value-mix 0.5)
init=() done_steps=0 n=0
while [ $((done_steps + chunk)) -le "$steps" ] && [ "${rate:-0}" -gt 0 ]; do
    per=$((chunk * 256 / rate + 30))
    [ $((budget - keep - $(elapsed))) -gt "$per" ] || break
    n=$((n + 1))
    timed "$bin" train "${recipe[@]}" --out "$scratch/chunk-$n.ot" "${init[@]}" --steps "$chunk" \
        --seed $((2 + n)) || break
    init=(--init "$scratch/chunk-$n.ot") done_steps=$((done_steps + chunk))
done
say "recipe: ${rate:-?} samples/s planned; $n chunks, $done_steps of $steps steps"
if [ "$n" -gt 0 ]; then
    for ext in ot json csv png; do cp "$scratch/chunk-$n.$ext" "$out/chu-gpu.$ext"; done
fi

# Self-play with the README's settings, then the larger presets' training speed, in what is left.
left=$((budget - $(elapsed) - 10))
[ "$left" -gt 30 ] && timed timeout "$((left < 150 ? left : 150))" "$bin" bench-selfplay -v chu \
    --net small --games "$games" --concurrent 64 --max-plies 300 --json
grep '^{' "$log" >"$out/bench-selfplay.jsonl"
for preset in medium large; do
    [ $((budget - $(elapsed))) -gt 40 ] && probe_train "$preset"
done
say "done"
