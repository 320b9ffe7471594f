#!/bin/sh
# test_kernels.sh CLI PATTERN — the variants of tests/codegen/variants.txt whose name matches
# PATTERN (grep -E) run on the CPU (README.md): each sm90a bundle written by the CLI, its
# kernel.cu and launch.c compiled against include/ with the module make_module.py writes, run
# through the bundle's own launcher on random inputs, and every output element checked in
# double precision: FlashDecoding's partial and combine by decode_check.cpp and combine_check.cpp,
# a plain matrix product (A, B and C of rank 2, f16 or bf16) by gemm_check.cpp, attention forward
# (with grouped queries, or FlashDecoding's one-pass form) by attn_check.cpp. Bundles are made for H200-4sm.json (the H200 with 4 SMs: a persistent grid of
# 4 CTAs, each with many tiles; PT_VARIANT_HW overrides), or for the H200 where the sProgram is
# not valid on 4 SMs (a stream-K grid of 132 CTAs). A product of more than PT_KCPU_MACS
# multiply-adds (default 2^25) runs at a shape of a few tiles instead (its sProgram unchanged; up
# to 2^29); where that is refused or still too big, or the variant is of another kind,
# it is listed as not run. What is checked is the kernel's barriers, TMA boxes (the driver's
# rules on tensor maps included), shared-memory layout and wgmma operands; not its speed. Skips
# (77) without g++, gcc or python3. PT_KCPU_EDIT, when set, is a Python script run as `SCRIPT
# KERNEL.CU KERNEL.CU` on each bundle's copy before it is built (launch.c beside it): how a
# hand edit of a generated kernel is checked on the CPU before it is timed (bench/*/results-*/).
set -u
cli=${1:?usage: test_kernels.sh CLI PATTERN}
pattern=${2:?usage: test_kernels.sh CLI PATTERN}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CXX=${CXX_REFCPU:-g++}
CC=${CC:-gcc}
for t in "$CXX" "$CC" python3; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PT_VARIANT_HW="${PT_VARIANT_HW:-$here/H200-4sm.json}"
for f in kernelcpu_run kernelcpu_driver combine_check gemm_check attn_check decode_check; do
    "$CXX" -std=c++20 -O1 -pthread -Wall -Wextra -Werror -I"$here" -c "$here/$f.cpp" -o "$tmp/$f.o" ||
        { echo "FAIL: $f.cpp does not compile"; exit 1; }
done
"$CXX" -std=c++20 -O1 -c "$root/tests/refcpu/refcpu_half.cpp" -o "$tmp/half.o" || exit 1
# harness_check DIR LABEL [ARGS...]: the bundle's harness built in DIR, check only, with ARGS;
# one ok or FAIL line; its exit status
harness_check() {
    hd=$1 label=$2
    shift 2
    if "$hd/check" --check-only "$@" >"$hd/check.log" 2>&1 </dev/null; then
        echo "ok   $label ($(grep -m1 '^check:' "$hd/check.log" | sed 's/^check: correct: //'))"
    else
        echo "FAIL $label: $(grep -E '^(check|harness|kernelcpu)|mismatch' "$hd/check.log" | head -12)"
        return 1
    fi
}
fails=0 n=0 ran=0
grep -E "^($pattern) " "$root/tests/codegen/variants.txt" >"$tmp/variants.txt"
while read -r name graph set tile edits; do
    n=$((n + 1))
    d=$tmp/$name
    hw=$PT_VARIANT_HW shrunk=""
    # an sProgram made for the whole chip (a stream-K grid of 132 CTAs) is not valid on 4 SMs:
    # that variant runs on the H200 model itself
    if ! "$root/tests/codegen/make-variant.sh" "$cli" "$tmp/b" "$name" "$graph" "$set" "$tile" "${edits:--}" \
            >"$tmp/gen.log" 2>&1; then
        hw="" shrunk=" on the H200"
        if ! PT_VARIANT_HW="" "$root/tests/codegen/make-variant.sh" "$cli" "$tmp/b" "$name" "$graph" "$set" \
                "$tile" "${edits:--}" >"$tmp/gen.log" 2>&1; then
            echo "FAIL $name: generation: $(tail -2 "$tmp/gen.log")"; fails=$((fails + 1)); continue
        fi
    fi
    b=$tmp/b/$name
    # what to check, from the bundle's tensor table: "CHECKER ARGS..." or "- why not"
    what=$(python3 "$here/what_to_check.py" "$b/tensors.json" "${PT_KCPU_MACS:-33554432}" "$b/program.json" "$set" "")
    case $what in
    shrink*)  # the same sProgram at a shape of a few tiles
        set=${what#shrink } shrunk="$shrunk at $set"
        rm -rf "$b"
        if ! PT_VARIANT_HW=$hw "$root/tests/codegen/make-variant.sh" "$cli" "$tmp/b" "$name" "$graph" "$set" \
                "$tile" "${edits:--}" >"$tmp/gen.log" 2>&1; then
            echo "--   $name: not run (at $set: $(tail -1 "$tmp/gen.log"))"; continue
        fi
        what=$(python3 "$here/what_to_check.py" "$b/tensors.json" "${PT_KCPU_MACS:-33554432}" "$b/program.json" "$set" "$shrunk") ;;
    esac
    case $what in
    -*) echo "--   $name: not run (${what#- })"; continue ;;
    esac
    checker=${what%% *} args=${what#* }
    mkdir -p "$d"
    # the bundle's kernel beside the headers it needs, but not its device library: include/ has it
    for f in kernel.cu launch.c pt_tile.cuh pt_combine.cuh pt_ssd.cuh pt_dequant.cuh raster.h trace_abi.h \
             reference.cu reference_host.c harness.c pt_harness.h graph_table.h; do
        [ -f "$b/$f" ] && cp "$b/$f" "$d/"
    done
    if [ -n "${PT_KCPU_EDIT:-}" ] && ! python3 "$PT_KCPU_EDIT" "$d/kernel.cu" "$d/kernel.cu" >"$d/edit.log" 2>&1; then
        echo "FAIL $name: the edit $PT_KCPU_EDIT: $(tail -1 "$d/edit.log")"; fails=$((fails + 1)); continue
    fi
    if ! python3 "$here/make_module.py" "$d/kernel.cu" "$d/module.cpp" >"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -w -x c++ -I"$here/include" -c "$d/kernel.cu" -o "$d/kernel.o" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -w -I"$here" -c "$d/module.cpp" -o "$d/module.o" >>"$d/build.log" 2>&1 ||
       ! "$CC" -O1 -I"$here/include" -c "$d/launch.c" -o "$d/launch.o" >>"$d/build.log" 2>&1; then
        echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); continue
    fi
    if [ "$checker" = harness ]; then
        # the bundle's harness and reference kernels (reference.cu's __shared__ arrays one per block)
        if ! python3 "$here/make_module.py" "$d/reference.cu" "$d/refmodule.cpp" kernelcpu_reference >>"$d/build.log" 2>&1 ||
           ! "$CXX" -std=c++20 -O1 -w -x c++ -DKERNELCPU_SHARED_STATIC -I"$here/include" -c "$d/reference.cu" \
                -o "$d/reference.o" >>"$d/build.log" 2>&1 ||
           ! "$CXX" -std=c++20 -O1 -w -I"$here" -c "$d/refmodule.cpp" -o "$d/refmodule.o" >>"$d/build.log" 2>&1 ||
           ! (cd "$d" && "$CC" -O1 -w -fopenmp -I"$here/include" -c reference_host.c harness.c) >>"$d/build.log" 2>&1 ||
           ! "$CXX" -pthread -fopenmp "$d/kernel.o" "$d/module.o" "$d/launch.o" "$d/reference.o" "$d/refmodule.o" \
                "$d/reference_host.o" "$d/harness.o" "$tmp/kernelcpu_run.o" "$tmp/kernelcpu_driver.o" "$tmp/half.o" \
                -o "$d/check" -lm >>"$d/build.log" 2>&1; then
            echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); continue
        fi
        ran=$((ran + 1))
        # the default draws, then the GPU tests' other input ranges of this variant
        # (tests/gpu/input-ranges.txt), which reach paths the default draws do not (the factored
        # decay's way out, the direct form); the variant fails if any run does
        bad=0
        harness_check "$d" "$name$shrunk" || bad=1
        grep -E "^$name[[:space:]]" "$root/tests/gpu/input-ranges.txt" >"$d/ranges.txt"
        while read -r _ args; do
            # shellcheck disable=SC2086
            harness_check "$d" "$name$shrunk $args" $args || bad=1
        done <"$d/ranges.txt"
        fails=$((fails + bad))
        rm -rf "$d" "$b"
        continue
    fi
    if ! "$CXX" -pthread "$tmp/$checker.o" "$d/kernel.o" "$d/module.o" "$d/launch.o" "$tmp/kernelcpu_run.o" \
            "$tmp/half.o" -o "$d/check" >>"$d/build.log" 2>&1; then
        echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); continue
    fi
    ran=$((ran + 1))
    # shellcheck disable=SC2086
    "$d/check" "$name$shrunk" $args || fails=$((fails + 1))
    rm -rf "$d" "$b"
done <"$tmp/variants.txt"
[ "$n" -gt 0 ] || { echo "FAIL: no variant matches $pattern"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n variants failed ($ran run)"; exit 1; }
echo "all $ran variants run agree ($((n - ran)) of $n not run)"
