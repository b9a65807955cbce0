#!/usr/bin/env bash
# One short device call for a kernel family when little device time is left (a fresh session has 30 minutes; on
# 2026-12-07 a session started with under 9): the family's GPU tests plainly, then under compute-sanitizer memcheck
# and racecheck side by side, then bench/depthwise_gpu alone on the GPU. Runs on the GPU machine from the
# repository root with .device carried, like scripts/gpu_suite.sh; everything comes back in $OUT.
#   QUICK_FILTER           gtest filter of the plain run (default '*Depthwise*:*Separable*')
#   QUICK_SANITIZE_FILTER  gtest filter under both tools (default 'GpuDepthwiseInt8.*')
#   QUICK_SANITIZE_SECONDS limit of each tool (default 120)
#   QUICK_BENCH_FLAGS      bench/depthwise_gpu's flags (default: fp16 and int8 at batch 32 and 128); empty: no bench
#   QUICK_BENCH_SECONDS    the bench's limit (default 200)
#   QUICK_TAG              names the bench's JSON and log (default quick)
set -uo pipefail
out=${OUT:-/tmp/strata_out}
mkdir -p "$out"
started=$(date +%s)
note() { echo "=== $* ($(( $(date +%s) - started )) s)"; }
# gpu_suite.sh unpacks the binaries, points the CTest paths here and prints the GPU; its 'filter' stage is the plain run.
TEST_FILTER=${QUICK_FILTER:-*Depthwise*:*Separable*} FILTER_LOG=tests OUT=$out scripts/gpu_suite.sh filter \
    > "$out/driver_tests.log" 2>&1
note "plain tests"
grep -E "^\[  (PASSED|FAILED) |tests? ran|FAILED  \]" "$out/tests.log" | tail -8
sanitize_filter=${QUICK_SANITIZE_FILTER:-GpuDepthwiseInt8.*}
for tool in memcheck racecheck; do
    timeout "${QUICK_SANITIZE_SECONDS:-120}" compute-sanitizer --tool "$tool" --error-exitcode 1 \
        build/tests/test_gpu --gtest_filter="$sanitize_filter" > "$out/sanitize_$tool.log" 2>&1 &
done
wait
note "sanitizers"
for tool in memcheck racecheck; do
    echo "--- $tool:"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) " "$out/sanitize_$tool.log" | tail -4
done
flags=${QUICK_BENCH_FLAGS---precision fp16 --batch 32,128 --pdl off}
if [[ -n $flags ]]; then
    tag=${QUICK_TAG:-quick}
    # shellcheck disable=SC2086  # the flags are words
    timeout "${QUICK_BENCH_SECONDS:-200}" stdbuf -oL build/bench/depthwise_gpu $flags --json "$out/depthwise_$tag.json" \
        > "$out/depthwise_$tag.log" 2>&1
    note "bench (rc $?)"
    grep -E "^\(|MET$|slower|worst" "$out/depthwise_$tag.log" | head -12
fi
