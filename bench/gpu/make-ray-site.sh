#!/usr/bin/env bash
# Packs ray==2.60.0 (the launcher's pin) and the packages it needs that the lent GPU machine's
# Python 3.12 lacks (jsonschema and its three helpers; the machine has click, filelock, msgpack,
# protobuf, pyyaml, requests, aiohttp and the rest) into one .tar.xz of site-packages, for
# pipeline.sh. Ray's wheel (79 MB) is over what a call may carry (64 MiB with the repository);
# without its Java jars and the dashboard's source maps, which a Python-only cluster without a
# dashboard never reads, and compressed with xz, it is about 27 MB.
#
# Usage: bench/gpu/make-ray-site.sh OUTFILE.tar.xz
set -euo pipefail
out=${1:?usage: make-ray-site.sh OUTFILE.tar.xz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 -d "$work/wheels" \
    ray==2.60.0 jsonschema==4.26.0 referencing==0.37.0 rpds-py==2026.9.1 \
    jsonschema-specifications==2025.9.1
mkdir "$work/site"
for w in "$work"/wheels/*.whl; do unzip -qo "$w" -d "$work/site"; done
rm -rf "$work/site/ray/jars"
find "$work/site/ray/dashboard" -name '*.map' -delete
tar -C "$work/site" -cf - . | xz -9 -T0 >"$out.tmp"
mv "$out.tmp" "$out"
ls -l "$out"
