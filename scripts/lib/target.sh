# shellcheck shell=bash
# Sourced by the scripts: keep Cargo's build artefacts in a folder that survives fresh clones on
# the same machine (CI clones the repository anew for every run), and make ./target point to it
# so that target/release/shogilab works as documented.
SHOGILAB_CACHE="${SHOGILAB_CACHE:-$HOME/.cache/shogilab}"
export SHOGILAB_CACHE
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$SHOGILAB_CACHE/target}"
mkdir -p "$CARGO_TARGET_DIR"
if [ ! -e target ] && [ ! -L target ]; then
    ln -s "$CARGO_TARGET_DIR" target
elif [ -L target ] && [ "$(readlink target)" != "$CARGO_TARGET_DIR" ]; then
    ln -sfn "$CARGO_TARGET_DIR" target
fi
