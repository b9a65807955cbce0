#!/usr/bin/env bash
# One short device call (~150-260 s of the H200) to see where a few depthwise cases lose, before changing a kernel:
#   1. bench/depthwise_gpu --configs all on CONFIGS_FLAGS' cases: every config of each side timed fully and printed
#      (the losers' times too), with the shape each detail() names;
#   2. `dwncu` on DWNCU_FLAGS' cases (the winners of the newest bench/results JSON), caches warm as in a network.
# Runs on the GPU machine from the repository root with .device carried; logs come back as $OUT/logs.tar.xz.
#   CONFIGS_FLAGS  default: the batch-1 and batch-8 fp16 cases cuDNN wins or nearly wins
#   CONFIGS_SECONDS  the sweep's limit (default 240)
#   DWNCU_FLAGS    default: their batch-1 cases; DWNCU=0 leaves Nsight Compute out
set -uo pipefail
out=${OUT:-/tmp/strata_out}
work=/tmp/gpu_call
rm -rf "$work" && mkdir -p "$work"/{configs,ncu}
started=$(date +%s)
since() { echo "$(( $(date +%s) - started )) s"; }
OUT=$work/configs DWBENCH_FLAGS="--configs all ${CONFIGS_FLAGS:---shapes 144x56k3s2,240x28k5s1,384x14k3s1,672x14k5s1 --batch 1,8 --precision fp16 --int8 off --pdl off}" \
    DWBENCH_TAG=configs timeout "${CONFIGS_SECONDS:-240}" scripts/gpu_suite.sh dwbench > "$work/configs/driver.log" 2>&1
echo "configs done ($(since))"
if [[ ${DWNCU:-1} == 1 ]]; then
    OUT=$work/ncu DWNCU_FLAGS="${DWNCU_FLAGS:---shapes 144x56k3s2,384x14k3s1,240x28k5s1 --batch 1,8 --precision fp16 --int8 off --pdl off}" \
        DWNCU_NCU_FLAGS="${DWNCU_NCU_FLAGS:---cache-control none}" timeout 240 scripts/gpu_suite.sh dwncu \
        > "$work/ncu/driver.log" 2>&1
    echo "ncu done ($(since))"
fi
mkdir -p "$out"
tar -C "$work" -cJf "$out/logs.tar.xz" .
