#!/usr/bin/env bash
# One device call (~580 s of the H200) for the sanitizer runs the kernel suite's call (gpu_call.sh) leaves out, with
# Nsight Compute on the small depthwise cases first:
#   1. the models' export (CPU work) beside `dwncu` on DWNCU_FLAGS' cases (default: the batch-1 and batch-8 fp16
#      cases cuDNN wins or nearly wins), caches left warm as in a network (--cache-control none);
#   2. GpuModels under memcheck, 8 shards after a plain warm-up that fills their timing cache, beside the library
#      tests (*Libs*) under racecheck with NVIDIA's nvjet kernels (cuBLASLt) left out of the tool's checks.
# Runs on the GPU machine from the repository root with .device carried; everything comes back as $OUT/logs.tar.xz.
#   CALL_UNTIL   seconds after the start by which the tools stop (default 560)
set -uo pipefail
out=${OUT:-/tmp/strata_out}
work=/tmp/gpu_call
rm -rf "$work" && mkdir -p "$work"/{ncu,models,libs}
started=$(date +%s)
since() { echo "$(( $(date +%s) - started )) s"; }
until=${CALL_UNTIL:-560}

OUT=$work/models timeout 300 scripts/gpu_suite.sh export > "$work/models/export.log" 2>&1 &
export_pid=$!
for _ in $(seq 180); do [[ -e build/.unpacked && .device/bin.tar.xz -ot build/.unpacked ]] && break; sleep 1; done
sleep 2
OUT=$work/ncu DWNCU_FLAGS="${DWNCU_FLAGS:---shapes 4,6,7,8,10 --batch 1,8 --precision fp16 --int8 off --pdl off}" \
    DWNCU_NCU_FLAGS="${DWNCU_NCU_FLAGS:---cache-control none}" timeout 200 scripts/gpu_suite.sh dwncu \
    > "$work/ncu/driver.log" 2>&1
echo "ncu done ($(since))"
wait $export_pid
echo "export done ($(since))"

# The tools run until CALL_UNTIL counted from this script's start; gpu_suite.sh counts SANITIZE_UNTIL from its own.
left=$(( until - ($(date +%s) - started) ))
OUT=$work/models SANITIZE_TAG=models SANITIZE_TOOLS=memcheck SANITIZE_WARM=1 SANITIZE_WARM_SHARDS=4 \
    SANITIZE_FILTER='*GpuModels*' SANITIZE_SHARDS=8 SANITIZE_UNTIL=$left \
    scripts/gpu_suite.sh sanitize > "$work/models/driver.log" 2>&1 &
models=$!
OUT=$work/libs SANITIZE_TAG=libs SANITIZE_TOOLS=racecheck SANITIZE_FLAGS='--kernel-name-exclude kns=nvjet' \
    SANITIZE_FILTER='*Libs*' SANITIZE_SHARDS=4 SANITIZE_UNTIL=$left \
    scripts/gpu_suite.sh sanitize > "$work/libs/driver.log" 2>&1 &
libs=$!
wait $models $libs
echo "all done ($(since))"
echo "--- GpuModels memcheck:"; grep -E "shard [0-9]+ exit|warm-up shard" "$work/models/driver.log"
echo "--- Libs racecheck (nvjet excluded):"; grep -E "shard [0-9]+ exit" "$work/libs/driver.log"
mkdir -p "$out"
tar -C "$work" -cJf "$out/logs.tar.xz" .
