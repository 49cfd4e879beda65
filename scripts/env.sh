# shellcheck shell=bash
# Source me (from any folder):  source scripts/env.sh
# Sets what building and running the workspace needs in the current shell:
#   SHOGILAB_CACHE     cache root (default ~/.cache/shogilab)
#   CARGO_TARGET_DIR   ${CARGO_TARGET_DIR:-$SHOGILAB_CACHE/target}; ./target links to it
#   LIBTORCH (+ LD_LIBRARY_PATH=$LIBTORCH/lib)            on CPU machines
#   LIBTORCH_USE_PYTORCH=1, PATH and LD_LIBRARY_PATH       on GPU machines (torch venv)
# libtorch is only downloaded when it is missing and the workspace depends on tch (torch-sys in
# Cargo.lock) or SHOGILAB_NEED_LIBTORCH=1; otherwise nothing is fetched.
_shogilab_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SHOGILAB_CACHE="${SHOGILAB_CACHE:-$HOME/.cache/shogilab}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$SHOGILAB_CACHE/target}"
# ./target -> $CARGO_TARGET_DIR (created if absent, a real folder is left alone)
(cd "$_shogilab_root" && source scripts/lib/target.sh)
source "$_shogilab_root/scripts/lib/libtorch.sh"
if [ "${SHOGILAB_NEED_LIBTORCH:-0}" = 1 ] ||
    grep -qs '^name = "torch-sys"' "$_shogilab_root/Cargo.lock" ||
    [ -f "$SHOGILAB_CACHE/libtorch-$SHOGILAB_TCH_TORCH_VERSION-cpu/.shogilab-complete" ] ||
    [ -f "$SHOGILAB_CACHE/torch-$SHOGILAB_TCH_TORCH_VERSION-venv/.shogilab-complete" ]; then
    shogilab_ensure_libtorch
fi
unset _shogilab_root
