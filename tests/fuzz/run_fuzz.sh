#!/usr/bin/env bash
# run_fuzz.sh [seconds] [onnx|plan]: builds a fuzzer with clang, ASan and UBSan in build-fuzz/, seeds a corpus and
# fuzzes for the given seconds (default 60). onnx (the default): the ONNX loader, seeded from ../shared (the
# conformance models, and truncated copies of the big models). plan: the plan loader, seeded with plans of the zoo's
# networks that the fuzzer writes itself. Exits non-zero on any finding; the crashing input lands in
# build-fuzz/fuzz-artifacts/ (build-fuzz/plan-fuzz-artifacts/ for plan).
set -euo pipefail

seconds=${1:-60}
target=${2:-onnx}
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${STRATA_SHARED:-$root/../shared}
build=$root/build-fuzz
# -O1 and line tables only: the instrumented build is compiled once per CI run and must stay quick to build.
flags="-O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# STRATA_FUZZ_TESTS=ON also configures the test suite in the same instrumented build (.ci/run runs it there, so
# the sanitizer build is compiled once for both). The CUDA backend stays out of it: the CPU-only build is what
# the sanitizers check (GPU code is checked by compute-sanitizer on the GPU machine).
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DSTRATA_FUZZ=ON -DSTRATA_CUDA=OFF -DSTRATA_TESTS="${STRATA_FUZZ_TESTS:-OFF}" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_CXX_FLAGS="$flags" >/dev/null

if [ "$target" = plan ]; then
    ninja -C "$build" -j2 fuzz_plan_loader
    seeds=$build/plan-fuzz-seeds
    corpus=$build/plan-fuzz-corpus
    artifacts=$build/plan-fuzz-artifacts
    mkdir -p "$seeds" "$corpus" "$artifacts"
    STRATA_FUZZ_WRITE_SEEDS=$seeds "$build/tests/fuzz/fuzz_plan_loader" -max_total_time="$seconds" -max_len=65536 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds"
    exit 0
fi
[ "$target" = onnx ] || { echo "run_fuzz.sh: unknown target '$target' (onnx or plan)" >&2; exit 2; }
ninja -C "$build" -j2 fuzz_onnx_loader

seeds=$build/fuzz-seeds
corpus=$build/fuzz-corpus
artifacts=$build/fuzz-artifacts
mkdir -p "$seeds" "$corpus" "$artifacts"
if [ -d "$shared/conformance" ]; then
    for f in "$shared"/conformance/*/*/model.onnx; do
        name=$(basename "$(dirname "$f")")
        head -c 65536 "$f" > "$seeds/$name.onnx"
    done
fi
if [ -d "$shared/models" ]; then
    for f in "$shared"/models/*.onnx; do
        head -c 65536 "$f" > "$seeds/$(basename "$f" .onnx).trunc.onnx"
    done
fi

# New inputs go to $corpus (kept between runs); $seeds is only read.
"$build/tests/fuzz/fuzz_onnx_loader" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds"
