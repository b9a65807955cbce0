#!/usr/bin/env bash
# One device call that checks a depthwise change whole, in about 400 s of the H200: the models' export (CPU work)
# beside bench/depthwise_gpu, then the model tests and the GPU kernel suite beside the depthwise and separable tests
# under compute-sanitizer memcheck and racecheck (racecheck on plans of strata's kernels only: cuBLASLt's nvjet kernels
# report hazards strata cannot change). Runs on the GPU machine from the
# repository root with .device carried, like scripts/gpu_suite.sh, which does each part.
#   GPU_CALL_TAG       names the bench's files (default: call)
#   GPU_CALL_DWBENCH   flags for the bench (default: --precision fp16)
#   GPU_CALL_BENCH_SECONDS  the bench's limit (default 200; fp32 and fp16 without int8 take about as long as fp16
#                      with int8)
#   GPU_CALL_SANITIZE  0 leaves the sanitizers out
#   GPU_CALL_UNTIL     seconds after the start by which every part has ended (default 570)
#   GPU_CALL_AB        1: the bench part is scripts/gpu_call_ab.sh instead, the build before the change (carried as
#                      .device/ab/base_depthwise_gpu.xz, scripts/pack_baseline.sh base) then this build, each with
#                      GPU_CALL_DWBENCH and half the bench's time; both JSONs come back
# Each gpu_suite.sh gets an output folder of its own (side by side, each would pack the others' files at its exit),
# and everything comes back as one archive, $OUT/logs.tar.xz, with the bench's JSON beside it: the device tool brings
# back at most 8 files.
set -uo pipefail
out=${OUT:-/tmp/strata_out}
work=/tmp/gpu_call
tag=${GPU_CALL_TAG:-call}
rm -rf "$work" && mkdir -p "$work"/{models,bench,tests,sanitize}
started=$(date +%s)
since() { echo "$(( $(date +%s) - started )) s"; }
# Seconds left until GPU_CALL_UNTIL (default 570) after the start, at most $1: every part ends by then, so that the
# archive is made before the device call's own limit (600 s) would cut it off and nothing came back.
left() { local l=$(( ${GPU_CALL_UNTIL:-570} - ($(date +%s) - started) )); echo $(( l < $1 ? (l > 1 ? l : 1) : $1 )); }

# The models' export is CPU work and runs beside the bench; their GPU tests run after it, beside the kernel suite (on
# 2026-12-03 the model tests overlapped the bench's last minute, which may have moved its timings).
OUT=$work/models timeout 300 scripts/gpu_suite.sh export > "$work/models/export.log" 2>&1 &
export_pid=$!
# The first gpu_suite.sh unpacks the binaries; the others wait for it.
for _ in $(seq 180); do [[ -e build/.unpacked && .device/bin.tar.xz -ot build/.unpacked ]] && break; sleep 1; done
sleep 2
# The bench starts no new case 45 s before its limit (--time-limit), so that what it measured still gets its
# same-size copies, summaries and JSON: with only the timeout, the 2026-12-04 calls lost them every time.
bench_seconds=${GPU_CALL_BENCH_SECONDS:-200}
bench_cases_until=$(( bench_seconds > 90 ? bench_seconds - 45 : bench_seconds / 2 ))
if [[ ${GPU_CALL_AB:-0} == 1 ]]; then
    OUT=$work/bench AB_FLAGS="${GPU_CALL_DWBENCH:---precision fp16}" AB_SECONDS=$(( bench_cases_until / 2 )) \
        timeout "$bench_seconds" scripts/gpu_call_ab.sh > "$work/bench/driver.log" 2>&1
else
    OUT=$work/bench DWBENCH_FLAGS="${GPU_CALL_DWBENCH:---precision fp16} --time-limit $bench_cases_until" \
        DWBENCH_TAG=$tag timeout "$bench_seconds" scripts/gpu_suite.sh dwbench > "$work/bench/driver.log" 2>&1
fi
echo "bench done ($(since))"
grep -E "^\(|MET$|slower" "$work/bench/driver.log" | head -12
wait $export_pid
echo "export done ($(since))"

OUT=$work/models timeout "$(left 300)" scripts/gpu_suite.sh models > "$work/models/driver.log" 2>&1 &
models=$!
OUT=$work/tests timeout "$(left 300)" scripts/gpu_suite.sh tests > "$work/tests/driver.log" 2>&1 &
tests=$!
sanitize=
if [[ ${GPU_CALL_SANITIZE:-1} == 1 ]]; then
    sleep 2
    OUT=$work/sanitize SANITIZE_TAG=dw SANITIZE_WARM=1 SANITIZE_WARM_SHARDS=2 SANITIZE_FILTER='*Depthwise*:*Separable*' \
        SANITIZE_SHARDS=4 SANITIZE_TOGETHER=1 SANITIZE_UNTIL="$(left 240)" \
        SANITIZE_ENV_racecheck=STRATA_EXCLUDE_TACTICS=cudnn.conv,cudnn.conv_transpose,cublaslt.fc,cublaslt.matmul,cublaslt.gemm \
        scripts/gpu_suite.sh sanitize > "$work/sanitize/driver.log" 2>&1 &
    sanitize=$!
fi
wait $models $tests $sanitize
echo "all done ($(since))"
echo "--- kernel tests:"; grep -E "tests passed|tests failed|\(Failed\)|Skipped\)" "$work/tests/ctest_kernels.log" | tail -6
echo "--- model tests:"; grep -E "tests passed|tests failed|\(Failed\)" "$work/models/driver.log" | tail -6
[[ -n $sanitize ]] && { echo "--- sanitizers:"; grep -E "shard [0-9]+ exit" "$work/sanitize/driver.log"; }
mkdir -p "$out"
cp "$work/bench/depthwise_$tag.json" "$work"/bench/ab_*.json "$out/" 2>/dev/null
tar -C "$work" -cJf "$out/logs.tar.xz" .
