# Shared by the GPU measurement scripts (sourced, not run): the log helpers, the binary built
# for the machine's libtorch (bench/gpu/build-binary.sh) unpacked into a scratch folder, and the
# libraries it loads, CUDA's registered by preloading libtorch_cuda.so.
#
# Sourced with the script's arguments (BINARY OUTDIR [BUDGET_SECONDS]) after setting
# default_budget. After: $bin (the runnable binary), $out, $budget, $dry (SHOGILAB_GPU_DRY),
# $scratch, $log, and the functions say, elapsed, timed, probe_rate, steps_in.

usage="usage: $(basename "$0") BINARY OUTDIR [BUDGET_SECONDS]"
bin_in=${1:?$usage}
out=${2:?$usage}
budget=${3:-$default_budget}
dry=${SHOGILAB_GPU_DRY:-0}
start=$(date +%s)
mkdir -p "$out"
log="$out/log.txt"
say() { echo "[$(($(date +%s) - start))s] $*" | tee -a "$log"; }
elapsed() { echo $(($(date +%s) - start)); }
# Runs a command, its output into the log, and says how long it took.
timed() {
    local t0=$(date +%s%N) rc
    "$@" >>"$log" 2>&1
    rc=$?
    say "rc=$rc in $((($(date +%s%N) - t0) / 1000000)) ms: $*"
    return $rc
}

# The samples/s of the last `train` run of $1 steps in the log (empty when none finished).
probe_rate() {
    grep "^trained $1 steps" "$log" | tail -1 | grep -o '[0-9]* samples/s' | cut -d' ' -f1
}
# Training steps of 256 positions, in hundreds, that rate $1 (samples/s) finishes in $2 seconds.
steps_in() { echo $((${1:-0} * $2 / 256 / 100 * 100)); }

scratch=$(mktemp -d)
bin=$scratch/shogilab-full
case "$bin_in" in
    *.xz) xz -dc "$bin_in" >"$bin" ;;
    *) cp "$bin_in" "$bin" ;;
esac
chmod +x "$bin"

lib=${TORCH_LIB:-$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')}
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The binary does not link libtorch_cuda.so (the linker drops it: no symbol of it is used);
# loading it registers the CUDA backend with libtorch.
if [ -f "$lib/libtorch_cuda.so" ]; then export LD_PRELOAD="$lib/libtorch_cuda.so"; fi

{
    echo "## machine"
    nvidia-smi -L 2>&1 || echo "no nvidia-smi"
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1
    python3 -c 'import torch; print("python torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
    nproc
    lscpu | grep -E "Model name|^CPU\(s\)"
} >>"$log" 2>&1
say "libtorch: $lib"
