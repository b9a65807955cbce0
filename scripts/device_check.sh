#!/usr/bin/env bash
# Runs on the GPU machine (device tool) with the build folder carried over: shows that the binary built on the CPU
# machine runs there with nothing installed. Usage: scripts/device_check.sh BUILD_DIR [OUT_DIR]
set -uo pipefail
build=${1:-build}
out=${2:-${OUT:-/tmp}}
{
    echo "== host"; uname -a; grep PRETTY_NAME /etc/os-release
    echo "== ldd $build/strata"; ldd "$build/strata"
    echo "== strata --version"; "$build/strata" --version
    echo "== strata run squeezenet1_1 (zoo) --device cpu"; "$build/strata" run squeezenet1_1 --device cpu --top 3
    if [[ -f .device/models/squeezenet1_1.onnx ]]; then
        echo "== strata run squeezenet1_1.onnx --device cpu (exported on this machine)"
        "$build/strata" run .device/models/squeezenet1_1.onnx --input .device/models/squeezenet1_1.input.npy \
            --device cpu --output "$out/squeezenet_logits.npy" --top 3
        python3 -c "import numpy as np; g=np.load('$out/squeezenet_logits.npy'); w=np.load('.device/models/squeezenet1_1.logits.npy'); print('max rel err', abs(g-w).max()/abs(w).max())"
    fi
} 2>&1 | tee "$out/device_check.log"
