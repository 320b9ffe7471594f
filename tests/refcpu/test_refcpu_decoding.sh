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
. "$here/module.sh"  # CXX, CC, tmp (removed at exit), fails; refcpu_module

run_case() { # B HKV G S SPLITS D
    d=$tmp/$1_$2_$3_$4_$5_$6
    mkdir -p "$d/p" "$d/c"
    if ! "$gen" flash_decoding "$d/p" "B=$1,HKV=$2,G=$3,S=$4,SPLITS=$5,D=$6" >"$d/gen.log" 2>&1 ||
       ! "$gen" flash_decoding_combine "$d/c" "B=$1,HKV=$2,G=$3,SPLITS=$5,D=$6" >>"$d/gen.log" 2>&1; then
        echo "FAIL S=$4 SPLITS=$5: gen_reference: $(cat "$d/gen.log")"; fails=$((fails + 1)); return
    fi
    if ! refcpu_module partial "$d/p" >"$d/build.log" 2>&1 || ! refcpu_module combine "$d/c" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -pthread -I"$here" "$here/refcpu_decoding.cpp" "$here/refcpu_run.cpp" "$here/refcpu_half.cpp" \
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
run_case 1 1 8 1017 128 64  # MQA's 128 pieces of 8, the last 1 (the combine over 128 splits)
[ "$fails" -eq 0 ] || { echo "$fails case(s) failed"; exit 1; }
echo "all cases agree"
