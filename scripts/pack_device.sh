#!/usr/bin/env bash
# Packs what a GPU run needs into .device/ (git-ignored; name it in the device tool's `carry`): the strata tool,
# the GPU test executable with its CTest files, the bench programs, and shared/models/export.py, which re-creates
# the models there (shared/ does not travel). Binaries go in one xz archive with a dictionary larger than a binary, so
# that the copies of the library the executables share compress once: the device call carries at most 64 MiB.
# Then, on the GPU machine: scripts/gpu_suite.sh (see there).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# An object ninja holds no header dependencies for ("#deps 0": compiled outside ninja) is not rebuilt when a header
# changes, and a template instantiated in several objects (launch_staged<...> in depthwise_f32/f16/bf16.cu) may
# then link from the stale one: that shipped a two-hour-old staged depthwise launcher to the GPU on 2026-12-01.
if [[ -f "$build/build.ninja" ]]; then
    stale=$(ninja -C "$build" -t deps 2>/dev/null | grep -E '\.(cu|cpp)\.o: #deps 0,' | cut -d: -f1 || true)
    if [[ -n "$stale" ]]; then
        echo "pack_device: these objects have no recorded header dependencies, so they may be stale:" >&2
        echo "$stale" | sed 's/^/  /' >&2
        echo "delete them (or touch their sources) and rebuild before packing" >&2
        exit 1
    fi
fi
mkdir -p .device
cp ../shared/models/export.py .device/export.py 2>/dev/null || true
# Only the GPU tests travel, so the CTest file that includes every area's tests is cut down to tests/gpu's.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$build/tests"
grep -v '_include.cmake' "$build/tests/CTestTestfile.cmake" > "$stage/$build/tests/CTestTestfile.cmake"
grep 'test_gpu\[1\]_include.cmake' "$build/tests/CTestTestfile.cmake" >> "$stage/$build/tests/CTestTestfile.cmake"
files=("$build/strata" "$build/CTestTestfile.cmake" "$build/bench/CTestTestfile.cmake")
# PACK_BENCHES: which bench programs travel (default every *_gpu).
for f in "$build"/tests/test_gpu "$build"/tests/test_gpu\[*\]_*.cmake "$build"/bench/${PACK_BENCHES:-*_gpu}; do
    [[ -e "$f" ]] && files+=("$f")
done
# PACK_BASELINE=FILE: a bench/depthwise_gpu of the build before a change, packed as bench/depthwise_gpu_base for
# scripts/gpu_call_ab.sh. In the same archive it adds ~15 MB, not the 29 of its own archive: the builds share bytes.
if [[ -n ${PACK_BASELINE:-} ]]; then
    cp "$PACK_BASELINE" "$build/bench/depthwise_gpu_base"
    files+=("$build/bench/depthwise_gpu_base")
fi
if [[ ! -e .device/conformance.tar.xz && -d ../shared/conformance ]]; then
    tar -C ../shared -cf - conformance | xz -T2 -6 > .device/conformance.tar.xz
fi
rm -f .device/bin.tar.xz
tar -cf - "${files[@]}" -C "$stage" "$build/tests/CTestTestfile.cmake" | xz -T1 --lzma2=preset=6,dict=256MiB > .device/bin.tar.xz
ls -la .device/bin.tar.xz
echo "packed: ${files[*]}"
