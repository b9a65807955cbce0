#!/usr/bin/env bash
# One short device call: Nsight Compute on the int8 depthwise kernel the selector picks (depthwise_int8_select) for
# a few large cases, to see what bounds it (issue 4, acceptance 4): throughput against DRAM and the SM pipes, issue
# efficiency, stall reasons, instruction mix. Runs on the GPU machine from the repository root with .device carried;
# everything comes back in $OUT.
#   INT8_NCU_CASES  shape:batch pairs, space-separated (default "144x56k3s1:128 240x28k5s1:128")
#   INT8_NCU_SKIP   int8 launches skipped before the profiled one (default 4: past the first graph's warm-up)
#   INT8_NCU_KERNEL ncu's kernel filter (default regex:dw_int8); with a filter naming one kernel (e.g.
#                   'regex:dw_int8_mma_kernel<3, 4, 2>') the bench sweeps every tile (--int8 sweep), so that a tile the
#                   selector does not pick is launched and profiled; 'regex:dw_int8_band' profiles the NCHW band kernel
#   INT8_NCU_FLAGS  more ncu flags (e.g. "--section SourceCounters": executed instructions per SASS line)
#   INT8_NCU_BENCH  more bench flags (e.g. "--winners bench/results/depthwise_...json": the fp16 side without its sweep)
set -uo pipefail
out=${OUT:-/tmp/strata_out}
mkdir -p "$out"
[[ -e build/bench/depthwise_gpu ]] || tar -xJf .device/bin.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
for item in ${INT8_NCU_CASES:-144x56k3s1:128 240x28k5s1:128}; do
    shape=${item%%:*} batch=${item##*:}
    mode=selected
    [[ ${INT8_NCU_KERNEL:-regex:dw_int8} != regex:dw_int8 ]] && mode=sweep
    ncu --kernel-name-base demangled -k "${INT8_NCU_KERNEL:-regex:dw_int8}" --launch-skip "${INT8_NCU_SKIP:-4}" --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
        --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats \
        --section SchedulerStats ${INT8_NCU_FLAGS:-} -f -o "/tmp/int8_$shape" \
        build/bench/depthwise_gpu --shapes "$shape" --batch "$batch" --precision fp16 --int8 "$mode" --pdl off \
        ${INT8_NCU_BENCH:-} \
        > "$out/int8_ncu_${shape}_bench.log" 2>&1
    echo "=== $shape b$batch: rc $?"
    ncu --import "/tmp/int8_$shape.ncu-rep" --csv --page details > "$out/int8_ncu_$shape.csv" 2>&1
    ncu --import "/tmp/int8_$shape.ncu-rep" --csv --page raw > "$out/int8_ncu_${shape}_raw.csv" 2>&1
    grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|No Eligible" \
        "$out/int8_ncu_$shape.csv" | cut -c1-220 | head -12
done
