#!/usr/bin/env bash
# Builds shogilab-full against another PyTorch release than the pinned one, for a machine that
# has that PyTorch (with CUDA) but no Rust toolchain and no way to fetch the pinned libtorch: the
# lent GPU machines hold PyTorch 2.11.0+cu130, and libtorch cannot travel to them (its CUDA
# library alone is 456 MB against a 64 MiB transfer).
#
# libtorch's C++ ABI changes between releases (a binary built for 2.13 and run on 2.11 libraries
# loads, then reads wrong scalar types), so the build uses the tch release made for that PyTorch
# (tch 0.24 <-> 2.11.0), in a scratch worktree whose Cargo files name it, against the headers
# and CPU libraries of the same PyPI wheel. Nothing in the repository's own build changes.
#
# Usage: bench/gpu/build-binary.sh OUTFILE.xz [TORCH_VERSION TCH_VERSION]   (default 2.11.0 0.24.0)
# Env: SHOGILAB_GPU_SCRATCH  scratch folder (default ~/.cache/shogilab/gpu-build)
#      SHOGILAB_CACHE/target/release is hard-linked into the scratch target folder first, so
#      the crates that do not depend on tch (polars among them) are not rebuilt.
set -euo pipefail

out=${1:?usage: build-binary.sh OUTFILE.xz [TORCH_VERSION TCH_VERSION]}
torch=${2:-2.11.0}
tch=${3:-0.24.0}
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SHOGILAB_CACHE:-$HOME/.cache/shogilab}
scratch=${SHOGILAB_GPU_SCRATCH:-$cache/gpu-build}
mkdir -p "$scratch"

# 1. The wheel's headers and CPU libraries (+ the CUDA runtime that libtorch_cpu.so needs to link).
lt=$scratch/libtorch-$torch
if [ ! -f "$lt/build-version" ]; then
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 -d "$scratch/wheel" "torch==$torch"
    rm -rf "$lt.tmp" && mkdir -p "$lt.tmp/lib"
    (cd "$lt.tmp" && unzip -q "$scratch"/wheel/torch-"$torch"-*.whl 'torch/include/*' \
        'torch/lib/libtorch_cpu.so' 'torch/lib/libtorch.so' 'torch/lib/libc10.so' 'torch/lib/libgomp.so.1')
    mv "$lt.tmp/torch/include" "$lt.tmp/include" && mv "$lt.tmp"/torch/lib/* "$lt.tmp/lib/"
    cp "$cache"/libtorch-*-cpu/lib/libcu*.so.13 "$lt.tmp/lib/"
    echo "$torch" >"$lt.tmp/build-version"
    rm -rf "$lt" && mv "$lt.tmp" "$lt"
fi

# 2. A worktree of HEAD whose crates name the matching tch release.
wt=$scratch/worktree
git -C "$root" worktree remove --force "$wt" 2>/dev/null || true
git -C "$root" worktree add --detach "$wt" HEAD
sed -i "s/^tch = \".*\"/tch = \"${tch%.*}\"/" "$wt/Cargo.toml" "$wt/pipeline/Cargo.toml" "$wt/train/Cargo.toml"
(cd "$wt" && cargo update -p tch --precise "$tch")

# 3. Build (the crates that do not depend on tch come from the main target folder).
target=$scratch/target
if [ ! -d "$target/release" ] && [ -d "$cache/target/release" ]; then
    mkdir -p "$target" && cp -al "$cache/target/release" "$target/release"
fi
(cd "$wt" && CARGO_TARGET_DIR=$target LIBTORCH=$lt LD_LIBRARY_PATH=$lt/lib \
    cargo build --release --bin shogilab-full)
strip -o "$scratch/shogilab-full" "$target/release/shogilab-full"
xz -T0 -6 -c "$scratch/shogilab-full" >"$out.tmp" && mv "$out.tmp" "$out"
git -C "$root" worktree remove --force "$wt"
ls -la "$out"
