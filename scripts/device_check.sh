#!/usr/bin/env bash
# Runs on the GPU machine (device tool): shows that the strata binary built on the CPU machine runs there with nothing
# installed. Carry a folder holding the binary and ../shared/models/export.py (e.g. .device/, git-ignored):
#   scripts/device_check.sh .device/strata .device/export.py
# It prints the host, the binary's shared-library needs, `strata --version`, a CPU run of the zoo's squeezenet1_1,
# and a CPU run of squeezenet1_1.onnx exported there by export.py, compared with PyTorch's logits.
set -uo pipefail
strata=${1:-build/strata}
export_py=${2:-}
out=${OUT:-/tmp}
models=/tmp/strata_models
{
    echo "== host"; uname -a; grep PRETTY_NAME /etc/os-release
    echo "== ldd $strata"; ldd "$strata"
    echo "== strata --version"; "$strata" --version
    echo "== strata run squeezenet1_1 (zoo) --device cpu"; "$strata" run squeezenet1_1 --device cpu --top 3
    if [[ -n "$export_py" ]]; then
        echo "== export squeezenet1_1.onnx with PyTorch, then strata run it --device cpu"
        python3 "$export_py" "$models" squeezenet1_1
        "$strata" run "$models/squeezenet1_1.onnx" --input "$models/squeezenet1_1.input.npy" --device cpu \
            --output "$out/squeezenet_logits.npy" --top 3
        python3 -c "import numpy as np; g=np.load('$out/squeezenet_logits.npy'); w=np.load('$models/squeezenet1_1.logits.npy'); print('max |got-want|/max|want| =', abs(g-w).max()/abs(w).max())"
    fi
} 2>&1 | tee "$out/device_check.log"
