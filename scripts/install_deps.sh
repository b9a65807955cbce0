#!/usr/bin/env bash
# Installs what strata needs to build and test on Debian 12 / Ubuntu 24.04 (run as root). Quiet when all is present.
set -euo pipefail
packages=(build-essential cmake ninja-build git pkg-config
          libonnx-dev protobuf-compiler libprotobuf-dev
          libopenblas-dev libgfortran-12-dev
          libcli11-dev libfmt-dev nlohmann-json3-dev libstb-dev
          libgtest-dev python3)
# Extra tools for the full CI run (fuzzing needs clang and its runtime libraries).
if [[ "${1:-}" == "--ci" ]]; then
    packages+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
