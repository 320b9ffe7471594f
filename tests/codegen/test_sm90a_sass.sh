#!/bin/sh
# test_sm90a_sass.sh CLI — the SASS of generated kernels holds HGMMA (wgmma), UTMALDG/UTMASTG
# (TMA) and SYNCS (mbarrier), not the HMMA slow path. Needs a cuobjdump that reads CUDA 13
# cubins: skips (77) where there is none (Debian's cuobjdump is 11.8 and cannot).
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
OBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo "$(dirname "$NVCC")/cuobjdump")}
[ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
[ -x "$OBJDUMP" ] || { echo "SKIP: no cuobjdump for CUDA 13 cubins on this machine"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
while read -r name graph set tile edits; do
    case "$name" in ''|'#'*) continue ;; esac
    "$here/make-variant.sh" "$cli" "$tmp" "$name" "$graph" "$set" "$tile" "$edits" >/dev/null 2>&1 || { echo "FAIL $name: generation"; fails=$((fails + 1)); continue; }
    d=$tmp/$name
    "$NVCC" -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -o "$d/kernel.cubin" "$d/kernel.cu" 2>/dev/null || { echo "FAIL $name: nvcc"; fails=$((fails + 1)); continue; }
    "$OBJDUMP" --dump-sass "$d/kernel.cubin" >"$d/kernel.sass" 2>&1 || { echo "SKIP: $OBJDUMP cannot read CUDA 13 cubins"; exit 77; }
    miss=""
    for op in HGMMA UTMALDG UTMASTG SYNCS; do grep -q "$op" "$d/kernel.sass" || miss="$miss $op"; done
    if grep -qE "[^G]HMMA" "$d/kernel.sass"; then miss="$miss (HMMA present: slow path)"; fi
    if [ -n "$miss" ]; then echo "FAIL $name: SASS lacks$miss"; fails=$((fails + 1)); else
        echo "ok   $name: $(grep -oE 'HGMMA\.[0-9x]+' "$d/kernel.sass" | sort -u | tr '\n' ' ')"; fi
done <"$here/variants.txt"
echo "$fails failed"
[ "$fails" -eq 0 ]
