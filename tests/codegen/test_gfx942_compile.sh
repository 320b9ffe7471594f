#!/bin/sh
# test_gfx942_compile.sh — CI compile check of the gfx942 (MI300X) DEVICE LIBRARY, not of a
# generated kernel (the generated gfx942 kernels come with the backend, issue 20).
# tests/codegen/gfx942_tile_check.hip uses every function of codegen/device/pt_device_hip.h and
# pt_tile_hip.h (a GEMM loop with two LDS stages per MFMA shape and dtype, one softmax pass);
# clang-19 builds it for gfx942 into a code object and assembly, and this checks:
#   - warning-free under -Wall -Wextra -Werror, plain and instrumented (-DPT_TRACE);
#   - the code object is an AMDGPU ELF; every kernel is in the metadata;
#   - per kernel: no scratch (private_segment_fixed_size 0, no VGPR/SGPR spills), VGPRs
#     (arch + AccVGPRs) <= 512, LDS (group_segment_fixed_size) <= 65536;
#   - no scratch_* instruction and no buffer_store (the other way to private memory);
#   - all four MFMAs (32x32x8 and 16x16x16, f16 and bf16), s_waitcnt vmcnt and lgkmcnt,
#     s_barrier, ds_write_b128 / ds_read, ds_bpermute (swap_halves), v_exp_f32 (exp2);
#   - the double buffering as written: in each GEMM loop the next stage's global loads are
#     issued before the MFMAs, and the vmcnt wait comes after them, before the LDS writes;
#   - the checker itself flags a kernel that uses scratch (so a pass means something).
# Skips (77) without clang-19, lld-19 or the HIP headers (libamdhip64-dev); tools/test-all
# installs all three.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CLANG=${PT_CLANG_GFX942:-clang-19}
command -v "$CLANG" >/dev/null 2>&1 || { echo "SKIP: $CLANG not found (apt-get install clang-19 lld-19 libamdhip64-dev)"; exit 77; }
command -v ld.lld-19 >/dev/null 2>&1 || [ -x "$(dirname "$(readlink -f "$(command -v "$CLANG")")")/ld.lld" ] ||
    { echo "SKIP: lld-19 not found (the gfx942 code object is linked by ld.lld)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-x hip --offload-arch=gfx942 -nogpulib --offload-device-only --no-gpu-bundle-output -O3 -std=c++17
       -Wall -Wextra -Werror -I$root/codegen/device -I$root/codegen"
src=$here/gfx942_tile_check.hip
kernels="gemm_f16_32x32x8 gemm_f16_16x16x16 gemm_bf16_32x32x8 gemm_bf16_16x16x16 attn_pass_f16 attn_pass_bf16 combine_f16"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# compile OUT_BASE [extra flags]: OUT_BASE.co and OUT_BASE.s; 77 when the HIP headers are missing
compile() {
    out=$1; shift
    # shellcheck disable=SC2086
    if ! "$CLANG" $flags "$@" -c "$src" -o "$out.co" >"$out.log" 2>&1 ||
       ! "$CLANG" $flags "$@" -S "$src" -o "$out.s" >>"$out.log" 2>&1; then
        if grep -q "cannot find HIP runtime" "$out.log"; then
            echo "SKIP: clang-19 finds no HIP installation (apt-get install libamdhip64-dev)"; exit 77
        fi
        fail "$(basename "$out"): $CLANG $*: $(head -c 2000 "$out.log")"
        return 1
    fi
}

# The metadata's per-kernel numbers, one line each: name vgpr agpr lds private vspill sspill.
kernel_table() {
    awk '/^amdhsa.kernels:/ {on = 1; next} /^\.end_amdgpu_metadata/ {on = 0}
         function flush() { if (name != "") print name, v, a, lds, priv, vs, ss; name = ""; v = a = lds = priv = vs = ss = "?" }
         on && /^  - / { flush(); sub(/^  - /, "    ") }
         on && $1 == ".name:" { name = $2 }
         on && $1 == ".vgpr_count:" { v = $2 }
         on && $1 == ".agpr_count:" { a = $2 }
         on && $1 == ".group_segment_fixed_size:" { lds = $2 }
         on && $1 == ".private_segment_fixed_size:" { priv = $2 }
         on && $1 == ".vgpr_spill_count:" { vs = $2 }
         on && $1 == ".sgpr_spill_count:" { ss = $2 }
         END { flush() }' "$1"
}

# check_resources FILE.s LABEL: scratch, spills, VGPR and LDS limits of every kernel in FILE.s.
check_resources() {
    n0=$fails
    kernel_table "$1" >"$1.table"
    [ -s "$1.table" ] || fail "$2: no kernel metadata (amdhsa.kernels) in the assembly"
    while read -r name v a lds priv vs ss; do
        [ "$priv" = 0 ] || fail "$2 $name: private_segment_fixed_size $priv (scratch)"
        [ "$vs" = 0 ] && [ "$ss" = 0 ] || fail "$2 $name: spills (VGPR $vs, SGPR $ss)"
        [ "$v" != "?" ] && [ "$v" -le 512 ] || fail "$2 $name: .vgpr_count $v (arch + AccVGPRs) over 512"
        [ "$lds" != "?" ] && [ "$lds" -le 65536 ] || fail "$2 $name: LDS $lds bytes over 65536"
    done <"$1.table"
    if grep -qE "^[[:space:]]+(scratch_|buffer_store)" "$1"; then
        fail "$2: private memory access: $(grep -E "^[[:space:]]+(scratch_|buffer_store)" "$1" | head -3 | tr -s ' \t' ' ')"
    fi
    [ "$fails" = "$n0" ]
}

# ---- the device library ----
if compile "$tmp/lib"; then
    magic=$(od -An -t x1 -N 4 "$tmp/lib.co" | tr -d ' ')
    machine=$(od -An -t x1 -j 18 -N 2 "$tmp/lib.co" | tr -d ' ')
    [ "$magic" = 7f454c46 ] && [ "$machine" = e000 ] ||
        fail "code object: not an AMDGPU ELF (magic $magic, e_machine $machine; EM_AMDGPU is 0xe0)"
    grep -q '\.amdgcn_target "amdgcn-amd-amdhsa--gfx942' "$tmp/lib.s" || fail "assembly: target is not gfx942"
    check_resources "$tmp/lib.s" lib
    for k in $kernels; do
        grep -q "^$k " "$tmp/lib.s.table" || fail "kernel $k missing from the metadata"
    done
    for want in v_mfma_f32_32x32x8_f16 v_mfma_f32_16x16x16_f16 v_mfma_f32_32x32x8_bf16 \
                v_mfma_f32_16x16x16_bf16 "s_waitcnt vmcnt(" "s_waitcnt lgkmcnt(" s_barrier \
                ds_write_b128 ds_read ds_bpermute_b32 v_exp_f32; do
        grep -qF "$want" "$tmp/lib.s" || fail "assembly lacks $want"
    done
    # Double buffering: in each GEMM kernel some global_load_dwordx4 is followed by MFMAs, then a
    # vmcnt wait, then ds_write_b128, then s_barrier — with no vmcnt wait between the load and
    # the MFMAs (the loads of the next stage fly while this one is multiplied).
    for k in gemm_f16_32x32x8 gemm_f16_16x16x16 gemm_bf16_32x32x8 gemm_bf16_16x16x16; do
        awk -v k="$k" '$0 ~ "^" k ":" {on = 1} on && /s_endpgm/ {exit}
            on && /global_load_dwordx4/ {st = 1; next}
            on && st == 1 && /s_waitcnt vmcnt/ {st = 0}
            on && st == 1 && /v_mfma/ {st = 2}
            on && st == 2 && /s_waitcnt vmcnt/ {st = 3}
            on && st == 3 && /ds_write_b128/ {st = 4}
            on && st == 4 && /s_barrier/ {found = 1}
            END {exit !found}' "$tmp/lib.s" ||
            fail "$k: no loop where the next stage's loads are in flight across the MFMAs (load, mfma, vmcnt wait, ds_write, s_barrier)"
    done
    echo "lib: $(awk '{printf "%s%s vgpr %s (agpr %s) lds %s", (NR > 1 ? "; " : ""), $1, $2, $3, $4}' "$tmp/lib.s.table")"
    echo "lib: $(grep -oE "v_mfma_[a-z0-9_]+" "$tmp/lib.s" | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')"
fi

# ---- the instrumented build ----
if compile "$tmp/trace" -DPT_TRACE; then
    check_resources "$tmp/trace.s" trace
    for want in s_memtime s_memrealtime "hwreg(HW_REG_XCC_ID"; do
        grep -qF "$want" "$tmp/trace.s" || fail "trace build: assembly lacks $want"
    done
fi

# ---- the checker sees scratch when there is some ----
cat >"$tmp/spill.hip" <<'EOF'
extern "C" __global__ void spills(float *o, int i)
{
    float a[1024];
    for (int k = 0; k < 1024; ++k)
        a[k] = o[k];
    o[0] = a[i & 1023];
}
EOF
src=$tmp/spill.hip
if compile "$tmp/spill"; then
    before=$fails
    if check_resources "$tmp/spill.s" self-test >"$tmp/self.txt"; then
        fails=$((before + 1))
        echo "FAIL the checker passed a kernel with a 4 KB private array (scratch not detected)"
    else
        fails=$before
        grep -q "private_segment_fixed_size" "$tmp/self.txt" ||
            { fails=$((fails + 1)); echo "FAIL self-test: scratch flagged, but not by its metadata: $(cat "$tmp/self.txt")"; }
    fi
fi

[ "$fails" -eq 0 ] && echo "ok: gfx942 device library compiles clean, MFMA present, no scratch, within VGPR and LDS limits"
[ "$fails" -eq 0 ]
