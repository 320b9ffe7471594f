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
. "$here/bundle.sh"
kcpu_setup
export PT_VARIANT_HW="${PT_VARIANT_HW:-$here/H200-4sm.json}"
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
    kcpu_build "$b" "$d" "$checker" "$name" || { fails=$((fails + 1)); continue; }
    if [ "$checker" = harness ]; then
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
    ran=$((ran + 1))
    # shellcheck disable=SC2086
    "$d/check" "$name$shrunk" $args || fails=$((fails + 1))
    rm -rf "$d" "$b"
done <"$tmp/variants.txt"
[ "$n" -gt 0 ] || { echo "FAIL: no variant matches $pattern"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n variants failed ($ran run)"; exit 1; }
echo "all $ran variants run agree ($((n - ran)) of $n not run)"
