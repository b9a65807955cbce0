#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, from the repository root, with .device carried (made here by
# scripts/pack_device.sh). Stages, in the order given (default: tests models):
#   tests     the GPU test suite: ctest -L gpu (kernels against the reference, the models end to end)
#   export    only the models' export of the models stage (for SANITIZE_FILTER='*GpuModels*' after it)
#   sanitize  the kernel tests under compute-sanitizer memcheck and racecheck (SANITIZE_TOOLS), in SANITIZE_SHARDS
#             parallel shards, each limited to SANITIZE_SECONDS; SANITIZE_WARM=1 first runs them plainly to fill the
#             timing cache the plan-building tests read under the tools; SANITIZE_FLAGS adds compute-sanitizer flags
#             (not --kernel-name-exclude kns=nvjet: on 2026-12-02 racecheck with it made cuDNN's library warm-up of
#             squeezenet1_1's 1x1 convolutions fault, "illegal memory access" and "The Sanitizer failed to handle a
#             hardware exception", while the same test under plain racecheck passed with 0 hazards);
#             SANITIZE_SOLO (a gtest pattern) runs those tests in a process of their own beside the shards (limit
#             SANITIZE_SOLO_SECONDS; SANITIZE_SOLO_TOOLS: only under those tools; SANITIZE_SOLO_ENV: its
#             environment, e.g. STRATA_TIMING=quick); SANITIZE_TOGETHER=1 runs the tools side by side instead of one after the other;
#             SANITIZE_ENV_<tool> (e.g. SANITIZE_ENV_racecheck=STRATA_EXCLUDE_TACTICS=...) is one tool's environment;
#             SANITIZE_WARM_SHARDS splits the warm-up into shards side by side; SANITIZE_UNTIL=S stops the tools S
#             seconds after the script started (instead of SANITIZE_SECONDS each); the warm-up's timing cache comes
#             back as $OUT/sanitize_timing.cache, and SANITIZE_CACHE=FILE (that file, carried) replaces the warm-up
#   bench     strata bench on the shared models, fp16, batch 1 and 64
#   peers     bench/peers.py: PyTorch eager / CUDA graph (/ torch.compile) against strata, same run
#   convbench bench/conv_layers_gpu: strata's convolution against cuDNN on ResNet-50's layers, batch 64, fp16
#   filter    build/tests/test_gpu --gtest_filter="$TEST_FILTER", its log $out/${FILTER_LOG:-filter}.log
#   repeat    REPEAT_FILTER (default GpuSeparableFusion.*) REPEAT_RUNS times with fresh seeds, fresh and shared caches
#   newkernels the newest kernel families (NEW_FILTER; default: depthwise, pointwise_narrow, sm90, stem_gemm, fused
#             separable), + sanitizers (NEW_SANITIZE=0 leaves them out)
#   dwmodels  the depthwise networks with and without strata's depthwise kernels (STRATA_EXCLUDE_TACTICS), and with
#             them launched with PDL (STRATA_PDL=1; DW_PDL=0 leaves that out)
#   sepbench  bench/separable_gpu: the fused depthwise -> pointwise kernel against the two separate steps (issue 4)
#   dwncu     Nsight Compute on the depthwise kernels each side of bench/depthwise_gpu chose (DWNCU_FLAGS: its flags;
#             DWNCU_WINNERS: the run whose winners to profile, default the newest bench/results/depthwise_*.json)
#   dwbench   bench/depthwise_gpu: strata's depthwise convolution against cuDNN, the anchors' 12 layers at batch 1, 8,
#             32, 128, fp32 and fp16 (issue 4), plain launches with a PDL column; DWBENCH_FLAGS adds flags (e.g.
#             --strata-tactic cuda.conv.direct)
# Logs go to $OUT. The models are re-created with export.py (the same bytes as ../shared/models); the conformance
# cases travel in .device/conformance.tar.xz.
set -uo pipefail
root=$(pwd)
out=${OUT:-/tmp/strata_out}
mkdir -p "$out"
export STRATA_SHARED=/tmp/strata_shared STRATA_TIMING_CACHE=/tmp/strata_timing.cache
models="$STRATA_SHARED/models"
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(tests models)
started=$(date +%s)
note() { echo "=== $* ($(( $(date +%s) - started )) s)"; }

# The CTest files name the build machine's absolute paths (/work/main/build/...): make them resolve here.
# Once per call: a second gpu_suite.sh started beside a first (two stages side by side) finds the binaries there and
# leaves them alone while the first runs them.
if [[ ! -e build/.unpacked || .device/bin.tar.xz -nt build/.unpacked ]]; then
    tar -xJf .device/bin.tar.xz && touch build/.unpacked
fi
if [[ "$root" != /work/main ]]; then mkdir -p /work && rm -rf /work/main && ln -s "$root" /work/main; fi
mkdir -p "$STRATA_SHARED"
[[ -e .device/conformance.tar.xz && ! -d "$STRATA_SHARED/conformance" ]] && tar -xJf .device/conformance.tar.xz -C "$STRATA_SHARED"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader

use_sanitize_cache() {
    # Tests that build with test_timing_cache() read STRATA_TEST_TIMING_CACHE; the model tests build with the
    # default cache, which STRATA_TIMING_CACHE names: both point at one file, so every plan in the run shares it.
    export STRATA_TEST_TIMING_CACHE=/tmp/strata_test_timing.cache
    export STRATA_TIMING_CACHE=$STRATA_TEST_TIMING_CACHE
}

sanitize() {  # FILTER LOG_PREFIX: the GPU test executable under memcheck, then racecheck
    # The tools slow the tests 10-100x, mostly on the host: SANITIZE_SHARDS gtest shards run side by side on the one
    # GPU (16 host cores there), each under its own tool process, so the whole suite fits a device call.
    local shards=${SANITIZE_SHARDS:-8}
    if [[ -n ${SANITIZE_CACHE:-} ]]; then
        # A timing cache an earlier call's warm-up brought back (its $OUT/sanitize_timing.cache, carried in .device):
        # the plans read it instead of a warm-up run of their own.
        use_sanitize_cache
        cp "$SANITIZE_CACHE" "$STRATA_TEST_TIMING_CACHE"
        note "timing cache from $SANITIZE_CACHE ($(wc -c < "$STRATA_TEST_TIMING_CACHE") bytes), no warm-up"
    elif [[ ${SANITIZE_WARM:-0} == 1 ]]; then
        # One plain run fills a timing cache that the plan-building tests then read under the tools
        # (tests/support/gpu_support.h: test_timing_cache), instead of timing every candidate again.
        use_sanitize_cache
        # SANITIZE_WARM_SHARDS plain shards side by side make it faster (the cache keeps every shard's entries; the
        # times they measure while sharing the GPU only steer which kernels the sanitized plans hold).
        local warm=${SANITIZE_WARM_SHARDS:-1} w
        note "warm-up run for the timing cache ($1, $warm shards)"
        for ((w = 0; w < warm; ++w)); do
            GTEST_TOTAL_SHARDS=$warm GTEST_SHARD_INDEX=$w build/tests/test_gpu --gtest_filter="$1" > "/tmp/$2_warm_$w.log" 2>&1 &
        done
        wait
        : > "$out/$2_warm.log"
        for ((w = 0; w < warm; ++w)); do
            { echo "=== warm-up shard $w of $warm"; cat "/tmp/$2_warm_$w.log"; } >> "$out/$2_warm.log"
            echo "warm-up shard $w: $(grep -E "PASSED|FAILED  \]" "/tmp/$2_warm_$w.log" | tr '\n' ' ' | cut -c1-200)"
        done
        # It comes back, so that a later call can carry it (SANITIZE_CACHE) and skip the warm-up.
        if [[ -e $STRATA_TEST_TIMING_CACHE ]]; then cp "$STRATA_TEST_TIMING_CACHE" "$out/sanitize_timing.cache"
        else note "the warm-up wrote no timing cache (no test in $1 builds a plan)"; fi
    fi
    # SANITIZE_SOLO names tests (a gtest pattern) that each take minutes under the tools (GpuProfile.* took 330 s
    # under racecheck on 2026-12-02): they run in one more process of their own beside the shards, so that the
    # shard they would land in does not run out of time.
    local filter=$1 solo=${SANITIZE_SOLO:-}
    if [[ -n $solo ]]; then
        if [[ $filter == *-* ]]; then filter="$filter:$solo"; else filter="$filter-$solo"; fi
    fi
    if [[ ${SANITIZE_TOGETHER:-0} == 1 ]]; then
        # The tools side by side (each with its shards): a whole-model group fits one device call that way.
        local tool
        for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do sanitize_tool "$tool" "$filter" "$2" "$shards" "$solo" & done
        wait
    else
        for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do sanitize_tool "$tool" "$filter" "$2" "$shards" "$solo"; done
    fi
}

sanitize_tool() {  # TOOL FILTER LOG_PREFIX SHARDS SOLO: one tool over the shards (and SOLO in a process of its own)
    local tool=$1 filter=$2 prefix=$3 shards=$4 solo=$5
    # SANITIZE_SOLO_TOOLS: the tools that run SOLO (default all); the others leave those tests out.
    if [[ -n $solo && -n ${SANITIZE_SOLO_TOOLS:-} && " $SANITIZE_SOLO_TOOLS " != *" $tool "* ]]; then solo=""; fi
    # SANITIZE_ENV_<tool>: environment for that tool's runs alone, e.g. SANITIZE_ENV_racecheck=STRATA_EXCLUDE_TACTICS=
    # cublaslt.fc,... (racecheck flags cuBLASLt's own nvjet kernel), while memcheck sees the plans as they are.
    local env_name="SANITIZE_ENV_$tool"
    local tool_env=${!env_name:-}
    # SANITIZE_UNTIL (seconds after this script started) ends the tool runs by then, whatever the stages before took,
    # so that their logs still come back within the device call.
    local limit=${SANITIZE_SECONDS:-240} solo_limit=${SANITIZE_SOLO_SECONDS:-${SANITIZE_SECONDS:-240}}
    if [[ -n ${SANITIZE_UNTIL:-} ]]; then
        limit=$((SANITIZE_UNTIL - ($(date +%s) - started)))
        solo_limit=$limit
    fi
    note "compute-sanitizer $tool ($filter, $shards shards${solo:+, and $solo alone})"
    local pids=() i runs=$shards
    for ((i = 0; i < shards; ++i)); do
        GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout $limit \
            env $tool_env compute-sanitizer --tool $tool --error-exitcode 1 ${SANITIZE_FLAGS:-} build/tests/test_gpu --gtest_filter="$filter" \
            > "/tmp/${prefix}_${tool}_$i.log" 2>&1 &
        pids+=($!)
    done
    if [[ -n $solo ]]; then
        timeout $solo_limit env $tool_env ${SANITIZE_SOLO_ENV:-} compute-sanitizer --tool $tool --error-exitcode 1 \
            ${SANITIZE_FLAGS:-} build/tests/test_gpu --gtest_filter="$solo" > "/tmp/${prefix}_${tool}_$shards.log" 2>&1 &
        pids+=($!)
        runs=$((shards + 1))
    fi
    local log="$out/${prefix}_$tool.log" summary="" rc
    : > "$log"
    for ((i = 0; i < runs; ++i)); do
        wait "${pids[$i]}"
        rc=$?
        { echo "=== shard $i of $shards${solo:+ (shard $shards: $solo)}: exit $rc"; cat "/tmp/${prefix}_${tool}_$i.log"; } >> "$log"
        summary+="$tool shard $i exit $rc: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED  \]|tests ran" \
            "/tmp/${prefix}_${tool}_$i.log" | tr '\n' ' ' | cut -c1-300)"$'\n'
    done
    # One block per tool, so that two tools running side by side do not interleave their lines.
    printf '%s' "$summary"
}

# The device tool brings back at most 8 files from $OUT: when the stages left more, they travel as one archive.
pack_logs() {
    local n
    n=$(find "$out" -maxdepth 1 -type f | wc -l)
    (( n <= 8 )) && return
    tar -C "$out" -cJf /tmp/strata_logs.tar.xz . && rm -rf "${out:?}"/* && mv /tmp/strata_logs.tar.xz "$out/logs.tar.xz"
    echo "($n log files packed into logs.tar.xz)"
}
trap pack_logs EXIT

export_models() {  # NAME... in parallel, each skipped when present
    mkdir -p "$models"
    for m in "$@"; do
        [[ -e "$models/$m.logits.npy" ]] || python3 .device/export.py "$models" "$m" > "/tmp/export_$m.log" 2>&1 &
    done
    wait
}

shared=(squeezenet1_1 mobilenet_v2 shufflenet_v2_x1_0 efficientnet_b0 googlenet)
extra=(resnet18 resnet50 mobilenet_v3_large regnet_y_400mf mnasnet1_0 densenet121)
for stage in "${stages[@]}"; do
    case $stage in
        tests)
            note "GPU kernel tests"
            ctest --test-dir build -L gpu -E GpuModels --output-on-failure --timeout 150 -j4 2>&1 | tee "$out/ctest_kernels.log" | tail -40
            ;;
        export | models)
            note "export models"; export_models "${shared[@]}" "${extra[@]}"
            # An earlier `export` in this machine's session did the rescaled ones too (gpu_call.sh exports beside the
            # bench and runs the model tests after it, so that they do not share the GPU with the bench's timing).
            if [[ ! -e $models/.rescaled ]]; then
                python3 scripts/export_rescaled.py "$models" mobilenet_v2 efficientnet_b0 mobilenet_v3_large mnasnet1_0 \
                    googlenet shufflenet_v2_x1_0 \
                    2>&1 | grep -v Warning | tee "$out/rescaled.log"
                [[ ${PIPESTATUS[0]} == 0 ]] && touch "$models/.rescaled"
            fi
            ls "$models" | wc -l
            [[ $stage == export ]] && continue
            note "GPU model tests"
            ctest --test-dir build -L gpu -R GpuModels --output-on-failure -j2 -V > "$out/ctest_models.log" 2>&1
            grep -E "\[ model \]" "$out/ctest_models.log" | sed 's/^[0-9]*: //' | sort -u
            grep -E "tests passed|\(Failed\)" "$out/ctest_models.log" | tail -20
            ;;
        sanitize)
            # strata's own kernels (the library sweeps run hundreds of cuDNN/cuBLASLt calls and whole models are
            # slow under the tools; SANITIZE_FILTER overrides).
            # SANITIZE_TAG names the logs (default sanitize_TOOL.log), so that two runs side by side keep theirs apart.
            sanitize "${SANITIZE_FILTER:--*GpuModels*:*GpuConformance*:*GpuPlans*:*Libs*}" "${SANITIZE_TAG:-sanitize}"
            ;;
        bench)
            export_models "${shared[@]}" resnet18 resnet50
            for m in "${shared[@]}" resnet18 resnet50; do
                note "bench $m"
                build/strata bench "$models/$m.onnx" --device cuda --precision fp16 --batch 1,64 \
                    --json "$out/bench_$m.json" 2>&1 | tail -3
            done
            ;;
        peers)
            note "peers"
            # torch.compile takes minutes per model and precision: PEERS_COMPILE=1 adds it when the budget allows.
            # PEERS_FLAGS adds flags (e.g. --precisions fp16 --models resnet50).
            skip_compile=--skip-compile
            [[ -n ${PEERS_COMPILE:-} ]] && skip_compile=
            PYTHONUNBUFFERED=1 python3 bench/peers.py --strata build/strata --onnx-dir /tmp/strata_peers \
                --models squeezenet1_1,mobilenet_v2,efficientnet_b0,shufflenet_v2_x1_0,googlenet,resnet18,resnet50 \
                --batch 1,64 $skip_compile ${PEERS_FLAGS:-} \
                --json "$out/peers.json" 2>&1 | tee "$out/peers.log" | tail -40
            ;;
        convbench)
            note "conv layers"
            build/bench/conv_layers_gpu --model resnet50 --batch 64 --precision fp16 2>&1 | tee "$out/conv_layers.log"
            ;;
        dwmodels)
            # Issue 4, acceptance 5: the depthwise networks with strata's depthwise kernels and with them excluded
            # (the builder then picks cuDNN's or the generic kernel), fp16, batch 1 and 64; then where the time goes.
            dw_models=(${DW_MODELS:-mobilenet_v2 efficientnet_b0 shufflenet_v2_x1_0 mnasnet1_0})
            export_models "${dw_models[@]}"
            for m in "${dw_models[@]}"; do
                for excl in "" cuda.conv.depthwise; do
                    note "bench $m fp16 exclude='$excl'"
                    STRATA_EXCLUDE_TACTICS=$excl build/strata bench "$models/$m.onnx" --device cuda --precision fp16 \
                        --batch 1,64 --json "$out/dw_${m}_${excl:-strata}.json" 2>&1 | tail -4
                done
                if [[ ${DW_PDL:-1} == 1 ]]; then  # the depthwise steps with programmatic dependent launch
                    note "bench $m fp16 STRATA_PDL=1"
                    STRATA_PDL=1 build/strata bench "$models/$m.onnx" --device cuda --precision fp16 --batch 1,64 \
                        --json "$out/dw_${m}_pdl.json" 2>&1 | tail -4
                fi
                STRATA_EXCLUDE_TACTICS= build/strata profile "$models/$m.onnx" --precision fp16 --batch 64 \
                    > "$out/profile_${m}_b64.log" 2>&1
                grep -iE "depthwise|conv.*g(roup)?[0-9]" "$out/profile_${m}_b64.log" | head -5
            done
            ;;
        filter)
            log="$out/${FILTER_LOG:-filter}.log"
            note "tests ${TEST_FILTER:?set TEST_FILTER} -> $log"
            build/tests/test_gpu --gtest_filter="$TEST_FILTER" > "$log" 2>&1
            echo "exit $?"; grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|error" "$log" | head -20
            ;;
        repeat)
            # A test that failed once (REPEAT_FILTER), run REPEAT_RUNS times with fresh seeds: the first two with
            # timing caches of their own (every candidate timed), the rest sharing one (tactics read from the cache,
            # as in a warm-up run); every log comes back, with the seed to replay a failure.
            filter=${REPEAT_FILTER:-'GpuSeparableFusion.*'}
            runs=${REPEAT_RUNS:-6}
            note "repeat $filter x $runs"
            for ((i = 0; i < runs; ++i)); do
                cache=/tmp/repeat_shared.cache
                (( i < 2 )) && cache=/tmp/repeat_fresh$i.cache
                log="$out/repeat_$i.log"
                STRATA_TEST_TIMING_CACHE=$cache timeout ${REPEAT_SECONDS:-120} build/tests/test_gpu \
                    --gtest_filter="$filter" > "$log" 2>&1
                echo "run $i ($(basename $cache)) exit $?: $(grep -E "seed|fusion \]|FAILED  \]|PASSED" "$log" |
                    tr '\n' ' ' | cut -c1-300)"
            done
            ;;
        newkernels)
            # The newest kernel families (NEW_FILTER names their tests), then the sanitizers on them.
            filter=${NEW_FILTER:-'GpuDepthwise*:DepthwiseBackward*:GpuDepthwiseInt8*:GpuConvPointwiseNarrow*:*Sm90*:GpuConvStemGemm*:*Separable*:GpuProfile*'}
            note "new kernel families ($filter)"
            build/tests/test_gpu --gtest_filter="$filter" > "$out/newkernels.log" 2>&1
            echo "exit $?"; grep -E "^\[  (PASSED|FAILED) |tests ran" "$out/newkernels.log" | head -20
            [[ ${NEW_SANITIZE:-1} == 1 ]] && sanitize "$filter:-*LargeImage*" newkernels
            ;;
        sepbench)
            note "fused depthwise -> pointwise"
            build/bench/separable_gpu --batch ${SEP_BATCHES:-1,64} 2>&1 | tee "$out/separable.log"
            ;;
        dwbench)
            # The PDL column (--pdl column, the default) times each case's fastest strata config again with
            # programmatic dependent launch, so one pass gives both.
            note "depthwise layers"
            # DWBENCH_TAG names the files (depthwise_TAG.json / .log), so that one call can time two builds of the
            # selector (e.g. STRATA_DEPTHWISE_WIDE_BLOCKS=1, NOTE [depthwise block width]) side by side. Configs
            # still gated as unverified (src/backends/cuda/unverified_tactics.h) need STRATA_UNVERIFIED_TACTICS=1.
            tag=${DWBENCH_TAG:+_$DWBENCH_TAG}
            build/bench/depthwise_gpu --batch 1,8,32,128 --precision fp32,fp16 ${DWBENCH_FLAGS:-} \
                --json "$out/depthwise$tag.json" 2>&1 | tee "$out/depthwise$tag.log"
            ;;
        dwncu)
            # Nsight Compute on the kernels each side chose (bench/depthwise_gpu launches each winner once in the
            # NVTX range "winner TACTIC"): DRAM throughput, occupancy, stall reasons of the cases acceptance 2 misses.
            # Under ncu every launch is slow, so a sweep there picks other winners than a plain run: the kernels
            # profiled are those that won in DWNCU_WINNERS (a depthwise_gpu --json; default: the newest in
            # bench/results), each launched alone (depthwise_gpu --winners). DWNCU_WINNERS=none sweeps as before.
            winners=${DWNCU_WINNERS:-$(ls bench/results/depthwise_*.json 2>/dev/null | sort | tail -1)}
            winners_flag=()
            [[ -n $winners && $winners != none ]] && winners_flag=(--winners "$winners")
            note "depthwise winners under ncu (${winners_flag[*]:-sweeping})"
            # DWNCU_NCU_FLAGS adds ncu flags, e.g. --cache-control none: by default ncu flushes the caches before
            # each kernel, so a batch-1 case reads from DRAM, while in a network (and in the bench) it reads the
            # previous layer's output from L2.
            ncu --nvtx --nvtx-include "winner cuda.conv.depthwise/" --nvtx-include "winner cudnn.conv/" ${DWNCU_NCU_FLAGS:-} \
                --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
                --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats --section SourceCounters \
                -f -o /tmp/dw_ncu \
                build/bench/depthwise_gpu ${DWNCU_FLAGS:---shapes 5,7,11 --batch 8,32,128 --precision fp16 --int8 off --pdl off} "${winners_flag[@]}" \
                2>&1 | tee "$out/dw_ncu_bench.log" | tail -30
            ncu --import /tmp/dw_ncu.ncu-rep --csv --page details > "$out/dw_ncu.csv" 2>&1
            # The raw page has every counter the sections read, among them the sampled stall reasons
            # (smsp__pcsamp_warps_issue_stalled_*: SourceCounters' PC sampling, which the 2026-12-02 report lacked)
            # that the details page only charts.
            ncu --import /tmp/dw_ncu.ncu-rep --csv --page raw > "$out/dw_ncu_raw.csv" 2>&1
            echo "ncu report: $(wc -l < "$out/dw_ncu.csv") lines in dw_ncu.csv, $(wc -c < "$out/dw_ncu_raw.csv") bytes in dw_ncu_raw.csv"
            ;;
        *) echo "unknown stage $stage"; exit 2 ;;
    esac
done
note "done"
