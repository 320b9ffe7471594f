#!/bin/sh
# test_sm90a_compile.sh CLI — every variant of variants.txt: the generated kernel compiles for
# sm_90a with no warnings, ptxas reports no spills and no serialised wgmma, the PTX holds
# wgmma.mma_async, cp.async.bulk.tensor and mbarrier waits, the instrumented build (-DPT_TRACE)
# of each graph's first variant compiles warning-free, and the host launcher compiles
# with -Wall -Wextra -Werror. Attention variants (fa_*) also take P from registers, use
# ex2.approx and are at most 1,200 lines (400 more per consumer warpgroup beyond two). SASS (HGMMA, UTMALDG) is checked by test_sm90a_sass.sh where a
# cuobjdump able to read CUDA 13 cubins exists. Skips (77) without nvcc.
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
. "$here/../cuda-root.sh"
CUDA_INC=$(cuda_root "$NVCC")/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
traced=""
while read -r name graph set tile edits; do
    case "$name" in ''|'#'*) continue ;; esac
    if ! "$here/make-variant.sh" "$cli" "$tmp" "$name" "$graph" "$set" "$tile" "$edits" >"$tmp/gen.log" 2>&1; then
        echo "FAIL $name: generation: $(cat "$tmp/gen.log")"; fails=$((fails + 1)); continue
    fi
    d=$tmp/$name
    if ! "$NVCC" -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Werror all-warnings \
            -o "$d/kernel.cubin" "$d/kernel.cu" >"$d/ptxas.txt" 2>&1; then
        echo "FAIL $name: nvcc: $(head -c 1500 "$d/ptxas.txt")"; fails=$((fails + 1)); continue
    fi
    # the instrumented build (-DPT_TRACE: the trace stamps, predicated stores in inline PTX)
    # compiles warning-free too, for the first variant of each graph (and of its factored decay)
    key=$graph
    case $name in *_fact_*) key="$graph+factored" ;; *_fact16_*) key="$graph+factored16" ;; esac
    case " $traced " in *" $key "*) ;; *)
        traced="$traced $key"
        if ! "$NVCC" -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -DPT_TRACE -Werror all-warnings \
                -o "$d/kernel_trace.cubin" "$d/kernel.cu" >"$d/ptxas_trace.txt" 2>&1; then
            echo "FAIL $name: nvcc -DPT_TRACE: $(head -c 1500 "$d/ptxas_trace.txt")"; fails=$((fails + 1)); continue
        fi ;;
    esac
    if grep -E "spill (stores|loads)" "$d/ptxas.txt" | grep -vq "0 bytes spill stores, 0 bytes spill loads"; then
        echo "FAIL $name: spills: $(grep spill "$d/ptxas.txt")"; fails=$((fails + 1)); continue
    fi
    if grep -qE "C751[0-9]|C7508" "$d/ptxas.txt"; then
        echo "FAIL $name: ptxas serialised wgmma or ignored setmaxnreg: $(grep -E 'C75' "$d/ptxas.txt")"; fails=$((fails + 1)); continue
    fi
    "$NVCC" -ptx -gencode=arch=compute_90a,code=sm_90a -o "$d/kernel.ptx" "$d/kernel.cu" 2>/dev/null
    # FlashDecoding's combine has no matrix product: no wgmma
    # (Mamba2's ChunkState maps its tensors over every axis: 1-, 4- and 5-D boxes)
    wants="cp.async.bulk.tensor.[1-5]d.shared::cluster.global cp.async.bulk.tensor.[1-5]d.global.shared::cta mbarrier.try_wait.parity setmaxnreg"
    case $name in dec_combine_*) ;; *) wants="wgmma.mma_async $wants" ;; esac
    for want in $wants; do
        grep -qE "$want" "$d/kernel.ptx" || { echo "FAIL $name: PTX lacks $want"; fails=$((fails + 1)); }
    done
    # x as a 5-D box; a sequence that is not whole chunks maps (chunk, row) as one dimension
    xbox="cp.async.bulk.tensor.5d.shared::cluster.global"
    case $name in ssd_*_ragged*) xbox="cp.async.bulk.tensor.4d.shared::cluster.global" ;; esac
    case $name in ssd_scan_*)
        # ChunkScan: A made in registers from CB (ldmatrix, k innermost), the RS wgmma of the loop,
        # the SS wgmma of the prologue (C . states, both descriptors), x as a 5-D box, the exp
        for want in "ldmatrix.sync.aligned.m8n8.x4.shared.b16" "$xbox" \
                    "wgmma.mma_async.sync.aligned.m64n[0-9]+k16.f32.(bf16.bf16|f16.f16)[^;]*\}, \{%r" \
                    "wgmma.mma_async.sync.aligned.m64n[0-9]+k16.f32.(bf16.bf16|f16.f16)[^;]*\}, %rd[0-9]+, %rd" "ex2.approx"; do
            grep -qE "$want" "$d/kernel.ptx" || { echo "FAIL $name: PTX lacks $want"; fails=$((fails + 1)); }
        done
        # the factored decay: the tile's fragment times the column factors in pairs, the factor
        # in two parts (a paired multiply, then a paired fused add: one rounding), or with
        # factored16 its 16-bit part alone (paired multiplies, no paired fused add); its
        # reference rounds in the row factor's units, in a kernel of its own that must compile too
        case $name in ssd_scan_*fact*)
            grep -qE "mul(\.rn)?\.(bf16|f16)x2" "$d/kernel.ptx" || { echo "FAIL $name: PTX lacks paired multiplies"; fails=$((fails + 1)); }
            case $name in
            *fact16*)
                ! grep -qE "fma\.rn\.(bf16|f16)x2" "$d/kernel.ptx" || { echo "FAIL $name: factored16 PTX has the split factor's paired fused add"; fails=$((fails + 1)); }
                grep -q "const float fct = " "$d/reference.cu" || { echo "FAIL $name: reference.cu does not round the factor first"; fails=$((fails + 1)); } ;;
            *)
                grep -qE "fma\.rn\.(bf16|f16)x2" "$d/kernel.ptx" || { echo "FAIL $name: PTX lacks the split factor's paired fused add"; fails=$((fails + 1)); } ;;
            esac
            grep -q "pv_on" "$d/reference.cu" || { echo "FAIL $name: reference.cu does not round in pivot units"; fails=$((fails + 1)); }
            "$NVCC" -cubin -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings -o "$d/reference.cubin" \
                "$d/reference.cu" >"$d/ref.txt" 2>&1 || { echo "FAIL $name: reference.cu: $(head -c 800 "$d/ref.txt")"; fails=$((fails + 1)); } ;;
        esac ;;
    ssd_*)
        # ChunkState: A made in registers from x (ldmatrix .trans), the RS wgmma, x as a 5-D box
        for want in "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" "$xbox" \
                    "wgmma.mma_async.sync.aligned.m64n[0-9]+k16.f32.bf16.bf16[^;]*\}, \{%r"; do
            grep -qE "$want" "$d/kernel.ptx" || { echo "FAIL $name: PTX lacks $want"; fails=$((fails + 1)); }
        done ;;
    esac
    case $name in fa_*)
        # attention: P.V takes P from registers (the RS form: a {..} register list, then V's
        # descriptor), and the softmax runs on the MUFU exp2
        grep -qE "wgmma.mma_async.sync.aligned.m64n[0-9]+k16.f32.(f16|bf16).(f16|bf16)[^;]*\}, \{%r" "$d/kernel.ptx" ||
            { echo "FAIL $name: PTX lacks the register-A (P from registers) wgmma"; fails=$((fails + 1)); }
        grep -qF "ex2.approx" "$d/kernel.ptx" ||
            { echo "FAIL $name: PTX lacks ex2.approx"; fails=$((fails + 1)); }
        # one call per sTask through the tile library keeps a kernel readable (issue 13): at
        # most 1,200 lines with two consumer warpgroups; each warpgroup's loop is written out
        # on its own, so 400 more for a third
        wgs=$(grep -c "pt::regs_increase<" "$d/kernel.cu")
        most=$((400 + 400 * (wgs > 2 ? wgs : 2)))
        lines=$(wc -l <"$d/kernel.cu")
        [ "$lines" -le "$most" ] ||
            { echo "FAIL $name: kernel.cu has $lines lines (at most $most for $wgs consumer warpgroups)"; fails=$((fails + 1)); } ;;
    esac
    if ! gcc -std=c11 -Wall -Wextra -Werror -I"$CUDA_INC" -fsyntax-only "$d/launch.c" 2>"$d/gcc.txt"; then
        echo "FAIL $name: launch.c: $(head -c 800 "$d/gcc.txt")"; fails=$((fails + 1)); continue
    fi
    # the kernel's own count, not a staging copy kernel's (pt_restride_*, unaligned sizes)
    regs=$(awk "/Compiling entry function/ { k = (\$0 !~ /pt_restride_/) } k && /Used [0-9]+ registers/" "$d/ptxas.txt" |
           grep -oE "Used [0-9]+ registers" | head -1)
    echo "ok   $name ($regs, no spills)"
done <"$here/variants.txt"
# A graph name that is no C identifier (issue 12): "gemm-f16.v2" gives the kernel
# pt_gemm_f16_v2, and kernel and launcher compile.
"$cli" examples gemm_f16 | sed 's/"name": "gemm_f16"/"name": "gemm-f16.v2"/' >"$tmp/gv2.json"
if ! "$cli" codegen "$tmp/gv2.json" --set M=512,N=512,K=512 -o "$tmp/gv2" >"$tmp/gen.log" 2>&1; then
    echo "FAIL gemm-f16.v2: generation: $(cat "$tmp/gen.log")"; fails=$((fails + 1))
elif ! "$NVCC" -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings \
        -o "$tmp/gv2/kernel.cubin" "$tmp/gv2/kernel.cu" >"$tmp/gv2/nvcc.txt" 2>&1; then
    echo "FAIL gemm-f16.v2: nvcc: $(head -c 1500 "$tmp/gv2/nvcc.txt")"; fails=$((fails + 1))
elif ! gcc -std=c11 -Wall -Wextra -Werror -I"$CUDA_INC" -fsyntax-only "$tmp/gv2/launch.c" 2>"$tmp/gv2/gcc.txt"; then
    echo "FAIL gemm-f16.v2: launch.c: $(head -c 800 "$tmp/gv2/gcc.txt")"; fails=$((fails + 1))
elif ! grep -q "^pt_gemm_f16_v2(" "$tmp/gv2/kernel.cu"; then
    echo "FAIL gemm-f16.v2: no kernel pt_gemm_f16_v2"; fails=$((fails + 1))
else echo "ok   gemm-f16.v2 (kernel pt_gemm_f16_v2 compiles)"; fi
# Refusals: each is one line, and nothing is written.
if "$cli" codegen gemm_f16 --tile m=96,n=256,k=64,wg=2 --target sm90a -o "$tmp/refused" 2>"$tmp/err"; then
    echo "FAIL refusal: m=96 with 2 warpgroups was generated"; fails=$((fails + 1))
elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -e "$tmp/refused/kernel.cu" ]; then
    echo "FAIL refusal: $(cat "$tmp/err")"; fails=$((fails + 1))
else echo "ok   refusal: $(cat "$tmp/err")"; fi
# Unaligned rows of a matmul's operands are staged (the u_* variants above); a dequantised
# GEMM's packed weights are read as they lie, so theirs must be 16-byte multiples: refused with
# the axis and the rule.
if "$cli" codegen gemm_w4a16 --set K=4104,G=8 --target sm90a -o "$tmp/refused2" 2>"$tmp/err"; then
    echo "FAIL refusal: gemm_w4a16 K=4104 (packed rows of 2052 bytes) was generated"; fails=$((fails + 1))
elif ! grep -q "so k must be a multiple of 32" "$tmp/err"; then
    echo "FAIL refusal: gemm_w4a16 K=4104 does not name the rule: $(cat "$tmp/err")"; fails=$((fails + 1))
else echo "ok   refusal: $(cat "$tmp/err")"; fi
if "$cli" codegen flash_attention --set D=72 --target sm90a -o "$tmp/refused3" 2>"$tmp/err"; then
    echo "FAIL refusal: flash_attention with head dim 72 (not a multiple of wgmma's k16) was generated"; fails=$((fails + 1))
else echo "ok   refusal: $(cat "$tmp/err")"; fi
if "$cli" codegen flash_attention --tile m=128,n=128,wg=1 --target sm90a -o "$tmp/refused4" 2>"$tmp/err"; then
    echo "FAIL refusal: 128 query rows on one warpgroup was generated"; fails=$((fails + 1))
else echo "ok   refusal: $(cat "$tmp/err")"; fi
if "$cli" codegen mamba2_chunk_scan --set B=1,S=512,H=2,N=96 --tile l=128,s=32,wg=2 --target sm90a -o "$tmp/refused5" 2>"$tmp/err"; then
    echo "FAIL refusal: mamba2_chunk_scan with N = 96 (not whole 128-byte atoms) was generated"; fails=$((fails + 1))
elif ! grep -q "expected a multiple of 64" "$tmp/err"; then
    echo "FAIL refusal: mamba2_chunk_scan N = 96 does not name the rule: $(cat "$tmp/err")"; fails=$((fails + 1))
else echo "ok   refusal: $(cat "$tmp/err")"; fi
# The tensor-core rows on N (wg_axis=n): M's tile is wgmma's N, a multiple of 8; a dequantised B
# (each warpgroup dequantising its rows into A fragments) in groups of 32 k; not for attention's
# head dim.
refused() { # name pattern cli-args...: refused, one line, naming the rule
    name=$1 pat=$2; shift 2
    if "$cli" "$@" --target sm90a -o "$tmp/refused-$name" 2>"$tmp/err"; then
        echo "FAIL refusal: $name was generated"; fails=$((fails + 1))
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "$pat" "$tmp/err"; then
        echo "FAIL refusal: $name does not say \"$pat\": $(cat "$tmp/err")"; fails=$((fails + 1))
    else echo "ok   refusal: $(cat "$tmp/err")"; fi
}
refused swap-m100 "expected a multiple of 8 up to 256" codegen gemm_f16 --set M=257 --tile m=100,n=128,k=64,wg=1,wg_axis=n
refused swap-m264 "expected a multiple of 8 up to 256" codegen gemm_f16 --set M=264 --tile m=264,n=64,k=64,wg=1,wg_axis=n
refused swap-acol "expected a multiple of 64 up to 256" codegen "$here/graphs/gemm_f16_acol.json" --set M=100 --tile m=104,n=128,k=64,wg=1,wg_axis=n
refused swap-w4a16-g16 "group size 16 .* expected a multiple of 32" codegen gemm_w4a16 --set M=16,G=16 --tile m=16,n=128,k=64,wg=1,wg_axis=n
refused swap-attention "only a single matmul.s tensor-core rows" codegen flash_attention --set S=1024 --tile m=64,n=64,wg=1,wg_axis=d
echo "$fails failed"
[ "$fails" -eq 0 ]
