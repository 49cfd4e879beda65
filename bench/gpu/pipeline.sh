#!/usr/bin/env bash
# The Ray pipeline loop (cluster/shogilab_ray, `pipeline`) on the lent GPU machine: a one-node
# Ray cluster started with `ray start --head --num-cpus C --num-gpus 1`, joined by the launcher
# with `--address auto`; self-play and evaluation tasks on the CPU cores, the training task on
# the GPU (`--train-gpus 1`). Everything the run stores (shards, checkpoints, matches) and the
# pipeline's state file go to a folder that outlives the call while the machine stays warm, so a
# second call with the same arguments resumes the run; $OUT gets the logs and the summary.
#
# Usage (from the repository root, .gpu/ carried):
#   bench/gpu/pipeline.sh BINARY OUTDIR BUDGET_SECONDS RAY_SITE [CPUS] -- PIPELINE ARGS...
# BINARY is build-binary.sh's output; RAY_SITE a .tar.xz of site-packages holding ray==2.60.0
# and the dependencies the machine lacks (make-ray-site.sh), or `-` when ray is importable.
# PIPELINE ARGS are the pipeline's options and, after their own `--`, the shared arguments.
# Env: SHOGILAB_GPU_RUN  the run and state folder (default /tmp/shogilab-gpu-pipeline)
#      SHOGILAB_GPU_DRY=1 (with TORCH_LIB): check the script on a CPU machine; Ray is then told
#      of one GPU it does not have, and training falls back to the CPU.
set -uo pipefail
default_budget=480
ray_site=${4:?usage: pipeline.sh BINARY OUTDIR BUDGET RAY_SITE [CPUS] -- PIPELINE ARGS...}
cpus=${5:-$(nproc)}
args=("$@")
for i in "${!args[@]}"; do [ "${args[$i]}" = -- ] && { pipeline=("${args[@]:$((i + 1))}"); break; }; done
[ -n "${pipeline+x}" ] || { echo "pipeline.sh: no -- before the pipeline's arguments" >&2; exit 2; }
root=$(pwd)
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# lib.sh preloads CUDA's backend for every process; here only the training task gets it (below).
unset LD_PRELOAD

# The binary every task runs: training loads libtorch's CUDA backend, self-play and matches
# keep the network on the CPU with one libtorch thread each, like the CPU cluster's tasks.
wrapper=$scratch/shogilab
cat >"$wrapper" <<EOF
#!/bin/sh
if [ "\$1" = train ] && [ -f "$lib/libtorch_cuda.so" ]; then export LD_PRELOAD="$lib/libtorch_cuda.so"; fi
exec "$bin" "\$@"
EOF
chmod +x "$wrapper"

if [ "$ray_site" != - ]; then
    site=/tmp/shogilab-ray-site
    [ -d "$site/ray" ] || timed sh -c "mkdir -p $site && xz -dc '$ray_site' | tar -x -C $site"
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$root/cluster${PYTHONPATH:+:$PYTHONPATH}"
export RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0 PYTHONUNBUFFERED=1
ray_cli() { python3 -c 'import sys; from ray.scripts.scripts import main; sys.argv[0] = "ray"; main()' "$@"; }
timed ray_cli start --head --num-cpus "$cpus" --num-gpus 1 --include-dashboard=false \
    --disable-usage-stats || { say "ray start failed"; exit 1; }
trap 'ray_cli stop --force >>"$log" 2>&1' EXIT

# The GPU's use, once a second, beside the run.
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 1 \
        >"$out/gpu-use.csv" 2>&1 &
fi

run=${SHOGILAB_GPU_RUN:-/tmp/shogilab-gpu-pipeline}
mkdir -p "$run"
say "pipeline: ${pipeline[*]}"
timeout $((budget - $(elapsed))) python3 -m shogilab_ray --address auto --binary "$wrapper" \
    pipeline --run "$run/run" --state "$run/state.json" "${pipeline[@]}" \
    >"$out/summary.json" 2>"$out/pipeline-stderr.txt"
say "pipeline rc=$?"
cp "$run/state.json" "$out/state.json" 2>/dev/null
tail -n 40 "$out/pipeline-stderr.txt"
cat "$out/summary.json"
