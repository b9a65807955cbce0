#!/usr/bin/env bash
# Packs bench/depthwise_gpu of the build as it stands for scripts/gpu_call_ab.sh, which times a change against the
# build before it in one device call, on the same card (a call may give an H100 or an H200):
#   scripts/pack_baseline.sh base   before rebuilding with the change: .device/ab/base_depthwise_gpu.xz
#   scripts/pack_baseline.sh new    after:                             .device/ab/new_depthwise_gpu.xz
# Carry .device/ab alone (the two binaries are ~58 MB of the call's 64 MiB); the commit each was built from goes
# beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
side=${1:?usage: scripts/pack_baseline.sh base|new [BUILD]}
[[ $side == base || $side == new ]] || { echo "side must be base or new" >&2; exit 2; }
build=${2:-build}
mkdir -p .device/ab
xz -T2 -6 -c "$build/bench/depthwise_gpu" > ".device/ab/${side}_depthwise_gpu.xz"
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+uncommitted')" > ".device/ab/${side}_commit"
ls -la ".device/ab/${side}_depthwise_gpu.xz"
echo "$side: $(cat ".device/ab/${side}_commit")"
