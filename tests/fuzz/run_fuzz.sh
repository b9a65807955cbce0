#!/usr/bin/env bash
# run_fuzz.sh [seconds]: builds the ONNX-loader fuzzer with clang, ASan and UBSan in build-fuzz/, seeds a corpus
# from ../shared (the conformance models, and truncated copies of the big models), and fuzzes for the given
# seconds (default 60). Exits non-zero on any finding; the crashing input lands in build-fuzz/fuzz-artifacts/.
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${STRATA_SHARED:-$root/../shared}
build=$root/build-fuzz
# -O1 and line tables only: the instrumented build is compiled once per CI run and must stay quick to build.
flags="-O1 -gline-tables-only -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# STRATA_FUZZ_TESTS=ON also configures the test suite in the same instrumented build (.ci/run runs it there, so
# the sanitizer build is compiled once for both).
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DSTRATA_FUZZ=ON -DSTRATA_TESTS="${STRATA_FUZZ_TESTS:-OFF}" -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
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
