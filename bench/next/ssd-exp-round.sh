#!/usr/bin/env bash
# A device round (session 35, H100): hand-edited ChunkState bundles (.dev/exp, carried; made by
# bench/next/ssd-exp-make.py from the H100 pick: the states' convert and/or TMA store removed; x / Bm stages
# moved) timed with the harness (--no-check); the H100 ChunkScan pick at 8 x 2048 checked with
# several seeds and dA ranges (its profile refused 4 of 67M outputs); ChunkScan's top candidates
# measured by `schedule --measure`.
set -u
. bench/common/round-start.sh ssd-exp
E=.dev/exp
ls -d $E/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
d=$E/scan-b8s2048-pick
for a in "--seed 1" "--seed 2" "--cumsum dA_l=-0.1:0" "--cumsum dA_l=-0.02:0 --seed 3"; do
    echo "== scan pick check $a"; (cd $d && timeout 60 ./harness --check-only $a 2>&1 | grep -E 'mismatch|check out|correct' | head -8)
done
echo "checked $(( $(date +%s) - T0 )) s"
bench/common/harness-passes.sh 2 $E/state-*/
echo "timed $(( $(date +%s) - T0 )) s"
timeout 280 "$CLI" schedule examples/mamba2_chunk_scan.json --set B=8,S=2048,H=64,P=64,N=128,L=256 --hw H100 \
    --target sm90a --measure 6 --candidates "$R/cand" -o "$R/scan-measured.json" > "$R/scan-measure.txt" 2>&1
echo "measure rc $? $(( $(date +%s) - T0 )) s"; grep -v "candidates, best" "$R/scan-measure.txt" | tail -25
find "$R/cand" -type f ! -name '*.json' -delete 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
