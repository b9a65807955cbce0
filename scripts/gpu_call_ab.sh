#!/usr/bin/env bash
# One device call that times two builds of bench/depthwise_gpu against each other on the same card (packed by
# scripts/pack_baseline.sh into .device/ab, or the base by scripts/pack_device.sh PACK_BASELINE=FILE into
# .device/bin.tar.xz beside this build's): base, then new, AB_ROUNDS times, same flags, and
# each side's JSON and log in $OUT (ab_base1.json, ab_new1.json, ...). Compare with
#   python3 bench/depthwise_table.py NEW.json --previous BASE.json
# Runs on the GPU machine from the repository root with .device/ab (or .device/bin.tar.xz and .device/ab/*_commit)
# carried.
#   AB_FLAGS    flags for both runs (default: --precision fp16,fp32 --int8 off --pdl off)
#   AB_SECONDS  each run's --time-limit: no new case after it (default 120)
#   AB_ROUNDS   (default 1)
#   AB_BATCH    the batches both sides time (default 1,8,32,128): a change to small launches needs only 1,8
#   AB_NEW_ENV  an environment setting for the new side only (e.g. STRATA_UNVERIFIED_TACTICS=1). With no base binary
#               carried, the base is then this build without it: configs still behind the unverified gate compete
#               only on the new side, so one build gives the A/B of opening the gate.
set -uo pipefail
out=${OUT:-/tmp/strata_out}
mkdir -p "$out" /tmp/ab .device/ab
# Binaries packed into .device/bin.tar.xz (scripts/pack_device.sh PACK_BASELINE=...) when nothing unpacked them yet.
[[ -e build/bench/depthwise_gpu || ! -e .device/bin.tar.xz ]] || tar -xJf .device/bin.tar.xz
# Without .device/ab/new_depthwise_gpu.xz the new side is this build's (scripts/gpu_call.sh GPU_CALL_AB=1, which
# carries .device/bin.tar.xz, unpacked by then).
for side in base new; do
    if [[ $side == base && -e build/bench/depthwise_gpu_base ]]; then  # scripts/pack_device.sh PACK_BASELINE=...
        cp build/bench/depthwise_gpu_base /tmp/ab/depthwise_gpu_base
        [[ -s .device/ab/base_commit ]] || echo "the PACK_BASELINE binary" > .device/ab/base_commit
        continue
    fi
    if [[ $side == base && -n ${AB_NEW_ENV:-} && ! -e .device/ab/base_depthwise_gpu.xz ]]; then
        cp build/bench/depthwise_gpu /tmp/ab/depthwise_gpu_base
        mkdir -p .device/ab && echo "this build without $AB_NEW_ENV" > .device/ab/base_commit
        continue
    fi
    if [[ $side == new && ! -e .device/ab/new_depthwise_gpu.xz ]]; then
        cp build/bench/depthwise_gpu /tmp/ab/depthwise_gpu_new
        [[ -s .device/ab/new_commit ]] || echo "this build" > .device/ab/new_commit  # the carried one names it
        continue
    fi
    xz -dc ".device/ab/${side}_depthwise_gpu.xz" > "/tmp/ab/depthwise_gpu_$side"
    chmod +x "/tmp/ab/depthwise_gpu_$side"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/ab_gpu.txt"
echo "base $(cat .device/ab/base_commit), new $(cat .device/ab/new_commit)" | tee -a "$out/ab_gpu.txt"
flags=${AB_FLAGS:---precision fp16,fp32 --int8 off --pdl off}
for round in $(seq "${AB_ROUNDS:-1}"); do
    for side in base new; do
        bin=/tmp/ab/depthwise_gpu_$side
        side_env=()
        [[ $side == new && -n ${AB_NEW_ENV:-} ]] && side_env=("$AB_NEW_ENV")
        started=$(date +%s)
        # shellcheck disable=SC2086
        env "${side_env[@]}" "$bin" --batch "${AB_BATCH:-1,8,32,128}" $flags --time-limit "${AB_SECONDS:-120}" --json "$out/ab_$side$round.json" \
            > "$out/ab_$side$round.log" 2>&1
        echo "$side round $round: rc $? in $(( $(date +%s) - started )) s"
        grep -E "geometric mean|min .*% of copy|MET$" "$out/ab_$side$round.log" | head -8
    done
done
