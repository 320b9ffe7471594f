#!/bin/sh
# release-race-test.sh CLI — meson test (suite 'gpu'), on the GPU machine: the ChunkScan forms in
# which warps that handed CB's stage back right after their ldmatrix lost output elements to the
# producer's next TMA fill (session 47; codegen/ir/pass_step.c, decision 4): three warpgroups on
# head triples with their own stores, the prologue product a tile ahead (up to 1e4 wrong
# elements a launch at 8 x 4096 before the fix) and grouped (a few at 8 x 8192), and the
# committed two-warpgroup pick. Each is generated from its sProgram (programs/), built, and its
# harness checks every output element against the f32 reference with several seeds (a race
# shows in some launches, not all). Skips (77) without a GPU, nvcc or make.
set -u
cli=${1:?usage: release-race-test.sh CLI}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/require.sh"
require_gpu
require_tool make
require_nvcc
tmp=$(mktemp -d /tmp/pt-release-race.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
# name  program  set  seeds
while read -r name prog set seeds; do
    case "$name" in ''|'#'*) continue ;; esac
    d=$tmp/$name
    if ! "$cli" codegen "$root/examples/mamba2_chunk_scan.json" --set "$set" --program "$here/programs/$prog" \
            --target sm90a -o "$d" >"$tmp/$name.log" 2>&1 || ! make -s -C "$d" all >>"$tmp/$name.log" 2>&1; then
        echo "FAIL $name: $(tail -3 "$tmp/$name.log")"; fail=1; continue
    fi
    for s in $seeds; do
        # exit 0: every element within tolerance; 3: wrong elements; 1: a CUDA error
        if out=$(cd "$d" && timeout 120 ./harness --check-only --json-only --seed "$s" 2>&1); then
            echo "ok   $name seed $s"
        else
            echo "FAIL $name seed $s: $(echo "$out" | tail -1 | cut -c1-300)"; fail=1
        fi
    done
done <<LIST
h3_rpa_b8_s4096   chunk_scan_h3_rpa.json      B=8,S=4096,H=64,P=64,N=128,L=256  1 2 3 4
h3_rpa_b2_s2304   chunk_scan_h3_rpa.json      B=2,S=2304,H=66,P=64,N=128,L=256  5 6
h3_grouped_b8_s8192 chunk_scan_h3_grouped.json B=8,S=8192,H=64,P=64,N=128,L=256  1 2 3
h2_pick_b8_s4096  chunk_scan_h2_pick.json     B=8,S=4096,H=64,P=64,N=128,L=256  1 2
LIST
exit $fail
