#!/bin/sh
# test_refcpu_pieces.sh GEN_REFERENCE REFCPU_SPEC — Mamba2 at sequence lengths that are not a
# whole number of chunks (graph.h: the last chunk shorter): each graph's reference (the oracle
# of the GPU tests) run on the CPU (README.md) at the ragged length and at the length padded to
# whole chunks, on the same inputs with the padding rows zero; every output element of the
# ragged run must be the padded run's, bit for bit (refcpu_pieces.cpp). Also one length that is
# a whole number of chunks, which must agree with itself trivially. Skips (77) without g++.
set -u
gen=$1 spec=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/module.sh"  # CXX, CC, tmp (removed at exit), fails; refcpu_module

run_case() { # graph ragged_set padded_set
    d=$tmp/case$((fails))_$(printf '%s' "$1$2" | tr -c 'a-zA-Z0-9' '_')
    mkdir -p "$d/r" "$d/p"
    if ! "$gen" "$1" "$d/r" "$2" >"$d/gen.log" 2>&1 || ! "$gen" "$1" "$d/p" "$3" >>"$d/gen.log" 2>&1 ||
       ! "$spec" "$1" "$2" "$3" >"$d/spec.txt" 2>>"$d/gen.log"; then
        echo "FAIL $1 $2: generation: $(cat "$d/gen.log")"; fails=$((fails + 1)); return
    fi
    if ! refcpu_module ragged "$d/r" >"$d/build.log" 2>&1 || ! refcpu_module padded "$d/p" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -pthread -I"$here" "$here/refcpu_pieces.cpp" "$here/refcpu_run.cpp" "$here/refcpu_half.cpp" \
            "$d"/r/*.o "$d"/p/*.o -o "$d/run" >>"$d/build.log" 2>&1; then
        echo "FAIL $1 $2: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); return
    fi
    printf '%s %s: ' "$1" "$2"
    "$d/run" "$d/spec.txt" || fails=$((fails + 1))
}

small="H=2,P=64,N=16,L=64"
run_case mamba2_chunk_scan "B=2,S=300,$small" "B=2,S=320,$small"     # 4 chunks and one of 44
run_case mamba2_chunk_scan "B=1,S=129,$small" "B=1,S=192,$small"     # the last chunk one row
run_case mamba2_chunk_state "B=2,S=300,$small" "B=2,S=320,$small"
run_case mamba2_chunk_state "B=1,S=191,$small" "B=1,S=192,$small"    # the last chunk one row short
run_case mamba2_chunk_scan_grouped "B=1,S=200,G=2,HG=2,P=64,N=16,L=64" "B=1,S=256,G=2,HG=2,P=64,N=16,L=64"
run_case mamba2_chunk_state_grouped "B=1,S=200,G=2,HG=2,P=64,N=16,L=64" "B=1,S=256,G=2,HG=2,P=64,N=16,L=64"
run_case mamba2_chunk_scan "B=1,S=192,$small" "B=1,S=192,$small"     # whole chunks
[ "$fails" -eq 0 ] || { echo "$fails case(s) failed"; exit 1; }
echo "all cases agree"
