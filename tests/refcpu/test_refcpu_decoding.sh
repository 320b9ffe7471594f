#!/bin/sh
# test_refcpu_decoding.sh GEN_REFERENCE — FlashDecoding's reference kernels (the oracle every GPU
# test checks the generated kernels against) run on the CPU (README.md) and agree with attention
# computed key by key: each piece's log-sum-exp and partial output, and their combine with
# attention over the whole sequence. The cases cut S into pieces that divide it and pieces that
# do not (the last shorter, by up to SPLITS - 1 keys), small enough that one key too many or too
# few in a piece moves its output by far more than the tolerance. Skips (77) without g++ 12.
set -u
gen=$1
here=$(cd "$(dirname "$0")" && pwd)
CXX=${CXX_REFCPU:-g++}
CC=${CC:-gcc}
command -v "$CXX" >/dev/null 2>&1 || { echo "SKIP: $CXX not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# module PREFIX DIR: the table of DIR/reference.cu's kernels (names as reference_host.c asks
# for them, each linked as PREFIX_name) and the objects of its two files
module() {
    mp=$1 md=$2
    defs=""
    for k in $(sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(.*/\1/p' "$md/reference.cu"); do
        defs="$defs -D$k=${mp}_$k"
    done
    {
        echo '#include "refcpu.h"'
        sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(\(.*\))$/\1 \2/p' "$md/reference.cu" |
            while read -r k params; do echo "extern \"C\" void ${mp}_$k();"; done
        echo "static const refcpu_kernel ${mp}_kernels[] = {"
        sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(\(.*\))$/\1 \2/p' "$md/reference.cu" |
            while read -r k params; do
                n=$(printf '%s' "$params" | tr -cd '*' | wc -c)
                echo "    {\"$k\", (void *)${mp}_$k, $n},"
            done
        echo "    {nullptr, nullptr, 0}};"
        echo "refcpu_module ${mp}_module = {${mp}_kernels};"
    } >"$md/module.cpp"
    # shellcheck disable=SC2086
    "$CXX" -std=c++20 -O1 -w -pthread -I"$here" -I"$here/include" -include refcpu_device.h $defs \
        -x c++ -c "$md/reference.cu" -o "$md/reference.o" &&
    "$CC" -std=c11 -O1 -I"$here/include" -Dpt_reference_run=${mp}_reference_run \
        -c "$md/reference_host.c" -o "$md/reference_host.o" &&
    "$CXX" -std=c++20 -O1 -I"$here" -c "$md/module.cpp" -o "$md/module.o"
}

run_case() { # B HKV G S SPLITS D
    d=$tmp/$1_$2_$3_$4_$5_$6
    mkdir -p "$d/p" "$d/c"
    if ! "$gen" flash_decoding "$d/p" "B=$1,HKV=$2,G=$3,S=$4,SPLITS=$5,D=$6" >"$d/gen.log" 2>&1 ||
       ! "$gen" flash_decoding_combine "$d/c" "B=$1,HKV=$2,G=$3,SPLITS=$5,D=$6" >>"$d/gen.log" 2>&1; then
        echo "FAIL S=$4 SPLITS=$5: gen_reference: $(cat "$d/gen.log")"; fails=$((fails + 1)); return
    fi
    if ! module partial "$d/p" >"$d/build.log" 2>&1 || ! module combine "$d/c" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -pthread -I"$here" "$here/refcpu_decoding.cpp" "$here/refcpu_run.cpp" \
            "$d"/p/*.o "$d"/c/*.o -o "$d/run" >>"$d/build.log" 2>&1; then
        echo "FAIL S=$4 SPLITS=$5: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); return
    fi
    # the softmax scale the graph gives (the reference's literal)
    scale=$(sed -n 's/.*const float scale = (float)\([0-9.e+-]*\);.*/\1/p' "$d/p/reference.cu" | head -1)
    if ! "$d/run" "$@" "$scale"; then fails=$((fails + 1)); fi
}

run_case 1 2 4 40 8 64      # pieces of 5 that divide S
run_case 2 1 4 37 8 64      # pieces of 5, the last 2
run_case 1 2 8 1001 4 64    # pieces of 251, the last 248: several of the matmul's 16-key slices
run_case 1 1 4 97 14 64     # pieces of 7, the last 6 (a prime S)
run_case 1 1 2 63 32 64     # pieces of 2, the last 1 (the shortest a piece can be)
[ "$fails" -eq 0 ] || { echo "$fails case(s) failed"; exit 1; }
echo "all cases agree"
