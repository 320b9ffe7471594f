#!/bin/sh
# test_codegen_reference.sh GEN_REFERENCE CLI [NVCC] — the reference backend of every example
# compiles for sm_90a with nvcc treating every warning as an error, and its host code passes
# gcc -std=c11 -Wall -Wextra -Werror; the bundle's harness.c does too (for the GEMM examples,
# which the sm90a backend generates). Also: codegen refuses bad targets and unwritable
# directories with one line. Skips (77) without nvcc.
set -u
gen=$1 cli=$2
NVCC=${3:-}
[ -n "$NVCC" ] || NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
. "$(dirname "$0")/cuda-root.sh"
CUDA_INC=$(cuda_root "$NVCC")/include
CC=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

check_c() { # file description
    if "$CC" -std=c11 -Wall -Wextra -Werror -I"$CUDA_INC" -fsyntax-only "$1" 2>"$tmp/cc.txt"; then
        ok "$2"
    else
        bad "$2: $(head -c 800 "$tmp/cc.txt")"
    fi
}

check_reference() { # name dir
    if "$NVCC" -cubin -gencode=arch=compute_90a,code=sm_90a -Werror all-warnings \
            -o "$2/reference.cubin" "$2/reference.cu" 2>"$tmp/nvcc.txt"; then
        ok "$1: reference.cu compiles (nvcc -Werror all-warnings)"
    else
        bad "$1: reference.cu: $(head -c 1500 "$tmp/nvcc.txt")"
    fi
    check_c "$2/reference_host.c" "$1: reference_host.c compiles (-Wall -Wextra -Werror)"
}

# Every example, with its own sizes and with a causal / small variant where it has one.
for ex in $("$cli" examples); do
    d=$tmp/ref-$ex
    mkdir -p "$d"
    if "$gen" "$ex" "$d" 2>"$tmp/gen.txt"; then
        check_reference "$ex" "$d"
    else
        bad "$ex: gen_reference: $(cat "$tmp/gen.txt")"
    fi
done
d=$tmp/ref-fa-causal
mkdir -p "$d"
if "$gen" flash_attention "$d" "CAUSAL=1,S=256" 2>"$tmp/gen.txt"; then
    check_reference "flash_attention causal" "$d"
    grep -q "c_n > c_m" "$d/reference.cu" && ok "causal mask in the reference" ||
        bad "causal mask missing from the reference"
else
    bad "flash_attention causal: $(cat "$tmp/gen.txt")"
fi

# Whole bundles (the sm90a backend generates GEMMs): harness.c and the host files compile.
for ex in gemm_f16 gemm_bf16; do
    d=$tmp/bundle-$ex
    if "$cli" codegen "$ex" --set M=257,N=1000,K=200 --target sm90a -o "$d" >"$tmp/out.txt" 2>&1; then
        grep -q "^wrote $d: kernel.cu" "$tmp/out.txt" && ok "$ex: codegen message" ||
            bad "$ex: codegen message: $(cat "$tmp/out.txt")"
        for f in kernel.cu launch.c reference.cu reference_host.c harness.c Makefile README.md; do
            [ -s "$d/$f" ] || bad "$ex: bundle lacks $f"
        done
        check_c "$d/harness.c" "$ex: harness.c compiles (-Wall -Wextra -Werror)"
        check_c "$d/reference_host.c" "$ex: bundle reference_host.c compiles"
        check_reference "$ex bundle" "$d"
        grep -q '^kernel.cubin: kernel.cu' "$d/Makefile" && ok "$ex: Makefile has kernel.cubin" ||
            bad "$ex: Makefile lacks the kernel.cubin rule"
    else
        bad "$ex: codegen: $(cat "$tmp/out.txt")"
    fi
done

# Refusals: one line each, no crash.
expect() { # want_status description command...
    want=$1 what=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    n=$(wc -l <"$tmp/err")
    if [ "$got" -eq "$want" ] && [ "$n" -eq 1 ]; then ok "$what"; else
        bad "$what (exit $got, wanted $want; $n lines): $(head -c 300 "$tmp/err")"; fi
}
expect 2 "codegen: unknown target" "$cli" codegen gemm_f16 --target sm80 -o "$tmp/x"
grep -q "valid targets: sm90a" "$tmp/err" && ok "unknown target names the valid ones" ||
    bad "unknown target message: $(cat "$tmp/err")"
expect 2 "codegen: missing -o" "$cli" codegen gemm_f16
: >"$tmp/afile"
expect 1 "codegen: -o is a file" "$cli" codegen gemm_f16 -o "$tmp/afile"
expect 1 "codegen: -o under a file" "$cli" codegen gemm_f16 -o "$tmp/afile/sub"
mkdir -p "$tmp/ro" && chmod 0555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
    expect 1 "codegen: unwritable directory" "$cli" codegen gemm_f16 -o "$tmp/ro"
fi
expect 1 "codegen: wrong hardware for sm90a" "$cli" codegen gemm_f16 --hw MI300X -o "$tmp/amd"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
