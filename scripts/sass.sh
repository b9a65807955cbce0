#!/usr/bin/env bash
# The sm_90 SASS of strata's kernels, on the CPU machine (no GPU needed): per kernel, registers, spills and the counts
# of the instructions that decide a memory-bound kernel's speed; with --dump, the whole listing of one kernel.
#   scripts/sass.sh OBJECT [NAME_SUBSTRING]          e.g. build/CMakeFiles/strata_lib.dir/src/.../depthwise_f16.cu.o
#   scripts/sass.sh --dump OBJECT MANGLED_NAME_SUBSTRING
#   scripts/sass.sh --waits OBJECT MANGLED_NAME [--all]  the scoreboards each load sets and each instruction waits on
#                                                        (scripts/sass_control.py decodes the control bits)
# cuobjdump is not in the CUDA toolkit this machine installs; the first run puts NVIDIA's PyPI wheel of it in
# ~/.cache/strata-sass (about 10 MB), with nvdisasm, which it runs.
set -euo pipefail
tools=${STRATA_SASS_TOOLS:-$HOME/.cache/strata-sass}
cuobjdump=$tools/nvidia/cu13/bin/cuobjdump
# cuobjdump -sass runs nvdisasm: both wheels go in one install (pip --target skips a package whose nvidia/ folder
# is already there, so a second install into the same folder would leave nvdisasm out).
if [[ ! -x $cuobjdump || ! -x $tools/nvidia/cu13/bin/nvdisasm ]]; then
    echo "installing cuobjdump and nvdisasm into $tools" >&2
    rm -rf "$tools"
    python3 -m pip install --quiet --no-deps --target "$tools" nvidia-cuda-cuobjdump==13.2.51 \
        nvidia-cuda-nvdisasm==13.2.51 >&2
fi
export PATH="$tools/nvidia/cu13/bin:$PATH"
dump=0
if [[ ${1:-} == --waits ]]; then
    shift
    obj=${1:?usage: scripts/sass.sh --waits OBJECT MANGLED_NAME [--all]}
    name=${2:?usage: scripts/sass.sh --waits OBJECT MANGLED_NAME [--all]}
    "$cuobjdump" -sass -fun "$name" "$obj" | python3 "$(dirname "$0")/sass_control.py" "${@:3}"
    exit 0
fi
[[ ${1:-} == --dump ]] && { dump=1; shift; }
obj=${1:?usage: scripts/sass.sh [--dump] OBJECT [NAME_SUBSTRING]}
filter=${2:-}
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
"$cuobjdump" -sass "$obj" > "$listing"
if (( dump )); then
    awk -v f="$filter" '/Function :/ { on = index($0, f) > 0 } on' "$listing" | sed 's|/\* 0x[0-9a-f]* \*/||'
    exit 0
fi
"$cuobjdump" -res-usage "$obj" 2>/dev/null | awk '/Function/ { name = $2 } /REG:/ { print name, $1, $2 }' |
    sed 's/:$//' | c++filt > "$listing.res" || true
awk -v f="$filter" '
    function flush() {
        if (name != "" && index(name, f) > 0)
            printf "%-70s instr %6d  LDG %4d  STG %4d  LDS %4d  MOV %5d  BAR %3d  LDL/STL %d\n",
                   substr(name, 1, 70), n, ldg, stg, lds, mov, bar, local
    }
    /Function :/ { flush(); name = $3; cmd = "c++filt " name; cmd | getline name; close(cmd)
                   gsub(/strata::cuda::|\(anonymous namespace\)::|\(strata::cuda::[A-Za-z]+\)/, "", name)
                   n = ldg = stg = lds = mov = bar = local = 0; next }
    /\/\*[0-9a-f]+\*\// { ++n; if (/LDG/) ++ldg; if (/STG/) ++stg; if (/LDS/) ++lds; if (/ MOV /) ++mov;
                          if (/BAR/) ++bar; if (/LDL|STL/) ++local }
    END { flush() }' "$listing"
if [[ -s $listing.res ]]; then
    echo
    grep -F -- "$filter" "$listing.res" | sed -E 's/strata::cuda::|\(anonymous namespace\)::|\(strata::cuda::[A-Za-z]+\)//g'
fi
rm -f "$listing.res"
