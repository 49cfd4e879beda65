# shellcheck shell=bash
# Sourced by the scripts: makes libtorch available to the `tch` crate (torch-sys build script) and
# to the built binaries, without the crate's own download (download.pytorch.org is not reachable
# everywhere; PyPI is).
#
#   shogilab_ensure_libtorch   prepare libtorch once per machine (idempotent, stamp file), then
#                              export what torch-sys and the binaries need:
#
#   CPU machines (default when `nvidia-smi -L` fails):
#     $SHOGILAB_CACHE/libtorch-<version>-cpu/{include,lib}, taken from the PyPI torch wheel:
#       lib/libtorch_cpu.so lib/libc10.so lib/libgomp.so.1 (+ libtorch.so, libgomp.so links)
#       lib/libcudart.so.13 lib/libcupti.so.13   (libtorch_cpu.so has them as NEEDED, from the
#                                                 PyPI nvidia-cuda-runtime/-cupti wheels)
#       build-version                            (torch-sys checks it against the version it wants)
#     exports LIBTORCH=<that folder>, LD_LIBRARY_PATH=<that folder>/lib:...
#   GPU machines (`nvidia-smi -L` works):
#     $SHOGILAB_CACHE/torch-<version>-venv: a python venv with the full torch wheel (CUDA included)
#     exports LIBTORCH_USE_PYTORCH=1, PATH=<venv>/bin:..., LD_LIBRARY_PATH=<venv torch/lib>:...
#   LIBTORCH_BYPASS_VERSION_CHECK=1 is exported only when SHOGILAB_TORCH_VERSION overrides the
#   version that the pinned tch release expects.
#
# Everything is built in a temporary sibling folder and renamed into place at the end, under a
# lock, so an interrupted run never leaves a folder that looks installed. Progress goes to stderr.
#
# Env: SHOGILAB_CACHE          cache root (default ~/.cache/shogilab)
#      SHOGILAB_TORCH_VERSION  torch version (default 2.13.0: the one tch 0.26 / torch-sys 0.26 wants)
#      SHOGILAB_TORCH_DEVICE   auto (default) | cpu | cuda
#      LIBTORCH                if already set to a usable libtorch folder, it is used as is.

# The torch version that the workspace's tch release (0.26.x) is built against; keep in sync with
# torch-sys's TORCH_VERSION when bumping tch.
SHOGILAB_TCH_TORCH_VERSION=2.13.0
# CUDA runtime libraries that libtorch_cpu.so of that wheel is linked against (from the wheel's
# own requirements: nvidia-cuda-runtime==13.0.96.*, nvidia-cuda-cupti==13.0.85.*).
SHOGILAB_CUDART_REQ='nvidia-cuda-runtime==13.0.96.*'
SHOGILAB_CUPTI_REQ='nvidia-cuda-cupti==13.0.85.*'

_shogilab_log() { echo "[libtorch] $*" >&2; }

# Prepend a folder to a PATH-like variable unless already there.
_shogilab_prepend() { # var dir
    local var=$1 dir=$2 cur
    cur=${!var:-}
    case ":$cur:" in
        *":$dir:"*) ;;
        *) if [ -n "$cur" ]; then export "$var=$dir:$cur"; else export "$var=$dir"; fi ;;
    esac
}

_shogilab_torch_device() {
    case "${SHOGILAB_TORCH_DEVICE:-auto}" in
        cpu) echo cpu ;;
        cuda | gpu) echo cuda ;;
        *) if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
               echo cuda
           else
               echo cpu
           fi ;;
    esac
}

_shogilab_python() {
    local p
    for p in python3 python; do
        if command -v "$p" >/dev/null 2>&1; then echo "$p"; return 0; fi
    done
    _shogilab_log "error: python3 is needed (for pip) to fetch libtorch from PyPI"
    return 1
}

# Extract the CPU part of libtorch from the torch wheel + the two CUDA runtime wheels into $1.
_shogilab_extract_cpu() { # tmpdir torch_wheel cudart_wheel cupti_wheel version
    local tmp=$1 torch_whl=$2 cudart_whl=$3 cupti_whl=$4 version=$5 py
    py=$(_shogilab_python) || return 1
    "$py" - "$tmp" "$torch_whl" "$cudart_whl" "$cupti_whl" <<'PY' || return 1
import os, re, shutil, sys, zipfile
tmp, torch_whl, cudart_whl, cupti_whl = sys.argv[1:5]
lib = os.path.join(tmp, "lib")
os.makedirs(lib, exist_ok=True)

def copy(z, name, dest):
    with z.open(name) as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    os.chmod(dest, 0o755)

with zipfile.ZipFile(torch_whl) as z:
    names = z.namelist()
    want = {"libtorch_cpu.so": "torch/lib/libtorch_cpu.so", "libc10.so": "torch/lib/libc10.so"}
    # libgomp: torch/lib/libgomp.so.1 in recent wheels, torch.libs/libgomp-<hash>.so.1 in older ones
    gomp = [n for n in names if re.fullmatch(r"torch(/lib|\.libs)/libgomp[^/]*\.so\.1", n)]
    if not gomp:
        sys.exit("no libgomp*.so.1 in " + torch_whl)
    want["libgomp.so.1"] = gomp[0]
    for dest, name in want.items():
        print(f"[libtorch]   {name}", file=sys.stderr)
        copy(z, name, os.path.join(lib, dest))
    inc = [n for n in names if n.startswith("torch/include/") and not n.endswith("/")]
    print(f"[libtorch]   torch/include ({len(inc)} headers)", file=sys.stderr)
    for n in inc:
        dest = os.path.join(tmp, "include", n[len("torch/include/"):])
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with z.open(n) as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out)
    ver = re.search(r"__version__\s*=\s*'([^']+)'", z.read("torch/version.py").decode())
    with open(os.path.join(tmp, "build-version"), "w") as f:
        f.write(ver.group(1) if ver else "")

for whl, so in ((cudart_whl, "libcudart.so.13"), (cupti_whl, "libcupti.so.13")):
    with zipfile.ZipFile(whl) as z:
        hits = [n for n in z.namelist() if n.endswith("/" + so)]
        if not hits:
            sys.exit(f"no {so} in {whl}")
        print(f"[libtorch]   {hits[0]}", file=sys.stderr)
        copy(z, hits[0], os.path.join(lib, so))
PY
    ln -s libtorch_cpu.so "$tmp/lib/libtorch.so"
    ln -s libgomp.so.1 "$tmp/lib/libgomp.so"
    # torch-sys compares build-version with the version it expects (the part before '+').
    [ -s "$tmp/build-version" ] || echo "$version" >"$tmp/build-version"
}

_shogilab_prepare_cpu() { # dest version cache
    local dest=$1 version=$2 cache=$3 py dl tmp t0
    py=$(_shogilab_python) || return 1
    dl=$cache/downloads/torch-$version
    mkdir -p "$dl"
    t0=$(date +%s)
    _shogilab_log "downloading torch==$version (CPU libraries only are kept) and CUDA runtime wheels from PyPI into $dl"
    # Pin the platform/interpreter so any python3 can fetch the same (manylinux x86_64) wheel.
    "$py" -m pip download --no-deps --no-cache-dir --only-binary=:all: \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_25_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --python-version 3.11 --implementation cp --abi cp311 \
        -d "$dl" "torch==$version" "$SHOGILAB_CUDART_REQ" "$SHOGILAB_CUPTI_REQ" >&2 || {
        _shogilab_log "error: pip download failed"
        return 1
    }
    local torch_whl cudart_whl cupti_whl
    torch_whl=$(ls "$dl"/torch-"$version"-*.whl 2>/dev/null | head -n 1)
    cudart_whl=$(ls "$dl"/nvidia_cuda_runtime-*.whl 2>/dev/null | head -n 1)
    cupti_whl=$(ls "$dl"/nvidia_cuda_cupti-*.whl 2>/dev/null | head -n 1)
    if [ -z "$torch_whl" ] || [ -z "$cudart_whl" ] || [ -z "$cupti_whl" ]; then
        _shogilab_log "error: wheels missing in $dl"
        return 1
    fi
    tmp=$(mktemp -d "$dest.tmp.XXXXXX") || return 1
    _shogilab_log "extracting into $tmp"
    if ! _shogilab_extract_cpu "$tmp" "$torch_whl" "$cudart_whl" "$cupti_whl" "$version"; then
        _shogilab_log "error: extraction failed"
        rm -rf "$tmp"
        return 1
    fi
    chmod 755 "$tmp" # mktemp -d makes it 0700
    echo "torch $version cpu $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/.shogilab-complete"
    rm -rf "$dest"
    mv -T "$tmp" "$dest" || { rm -rf "$tmp"; return 1; }
    # The wheels (~0.5 GiB, mostly CUDA code) are not needed any more.
    rm -rf "$dl"
    rmdir "$cache/downloads" 2>/dev/null || true
    _shogilab_log "libtorch $version (cpu) ready in $dest ($(($(date +%s) - t0)) s, $(du -sh "$dest" | cut -f1))"
}

_shogilab_prepare_cuda() { # dest(venv) version
    local dest=$1 version=$2 py tmp t0
    py=$(_shogilab_python) || return 1
    t0=$(date +%s)
    tmp=$(mktemp -d "$dest.tmp.XXXXXX") || return 1
    rmdir "$tmp"
    _shogilab_log "creating venv $tmp with torch==$version (CUDA) from PyPI"
    if ! { "$py" -m venv "$tmp" >&2 &&
        "$tmp/bin/python" -m pip install --no-cache-dir "torch==$version" >&2 &&
        "$tmp/bin/python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >&2; }; then
        _shogilab_log "error: venv/torch installation failed"
        rm -rf "$tmp"
        return 1
    fi
    echo "torch $version cuda $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/.shogilab-complete"
    rm -rf "$dest"
    # The venv is only used through `bin/python` (torch-sys runs `python3 -c ...`), which survives
    # the rename; pip console scripts inside it keep the temporary path in their shebang.
    mv -T "$tmp" "$dest" || { rm -rf "$tmp"; return 1; }
    _shogilab_log "torch $version (cuda) ready in $dest ($(($(date +%s) - t0)) s)"
}

# Prepare (once) and export the environment. Returns non-zero on failure (never exits the shell).
shogilab_ensure_libtorch() {
    local cache=${SHOGILAB_CACHE:-$HOME/.cache/shogilab}
    local version=${SHOGILAB_TORCH_VERSION:-$SHOGILAB_TCH_TORCH_VERSION}
    local device dest lockfd

    # An explicit, usable LIBTORCH wins (e.g. a system-wide libtorch).
    if [ -n "${LIBTORCH:-}" ] && [ -e "$LIBTORCH/lib/libtorch_cpu.so" ]; then
        _shogilab_prepend LD_LIBRARY_PATH "$LIBTORCH/lib"
        return 0
    fi

    device=$(_shogilab_torch_device)
    if [ "$device" = cuda ]; then
        dest=$cache/torch-$version-venv
    else
        dest=$cache/libtorch-$version-cpu
    fi

    if [ ! -f "$dest/.shogilab-complete" ]; then
        mkdir -p "$cache" || return 1
        # Serialise concurrent preparations (two scripts started at once).
        if command -v flock >/dev/null 2>&1; then
            exec {lockfd}>"$cache/.libtorch.lock"
            _shogilab_log "libtorch $version ($device) not prepared yet; taking lock $cache/.libtorch.lock"
            flock "$lockfd"
        fi
        if [ ! -f "$dest/.shogilab-complete" ]; then
            # leftovers of interrupted runs (we hold the lock, so nobody is using them)
            rm -rf "$dest".tmp.* 2>/dev/null
            if [ "$device" = cuda ]; then
                _shogilab_prepare_cuda "$dest" "$version" || { [ -n "${lockfd:-}" ] && exec {lockfd}>&-; return 1; }
            else
                _shogilab_prepare_cpu "$dest" "$version" "$cache" || { [ -n "${lockfd:-}" ] && exec {lockfd}>&-; return 1; }
            fi
        fi
        if [ -n "${lockfd:-}" ]; then exec {lockfd}>&-; fi
    fi

    if [ "$device" = cuda ]; then
        unset LIBTORCH
        export LIBTORCH_USE_PYTORCH=1
        _shogilab_prepend PATH "$dest/bin"
        local torchlib
        torchlib=$(echo "$dest"/lib/python3*/site-packages/torch/lib)
        _shogilab_prepend LD_LIBRARY_PATH "$torchlib"
    else
        unset LIBTORCH_USE_PYTORCH
        export LIBTORCH=$dest
        _shogilab_prepend LD_LIBRARY_PATH "$dest/lib"
    fi
    if [ "$version" != "$SHOGILAB_TCH_TORCH_VERSION" ]; then
        export LIBTORCH_BYPASS_VERSION_CHECK=1
    fi
    export SHOGILAB_LIBTORCH_DIR=$dest
    return 0
}
