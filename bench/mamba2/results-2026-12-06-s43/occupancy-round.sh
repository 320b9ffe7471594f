#!/usr/bin/env bash
# Session 43's first device round (README.md here): does ChunkScan at B 8 run faster with more
# consumer warpgroups on an SM? Session 42 found the pick bound by its two consumer warpgroups'
# own chains. Run on the GPU machine from the repository root with cJSON available
# (`source .deps/unpack.sh`), OUT set to a folder that comes back; mamba_ssm's kernels as
# bench/common/ssd-vs-mamba.sh finds them. At each of SHAPES (B:S, default "8:2048 8:4096"; H 64,
# P 64, N 128, L 256): the model's pick (h 2, two consumer warpgroups, persistent) against one
# consumer warpgroup a CTA on one head (h 1, l 64, 2-stage rings, one tile a CTA, 71.9 KB of
# shared memory): w1f with the pick's factored decay and column walk, w1 with the default
# (direct) decay, each as generated (__launch_bounds__(256, 1): one CTA an SM) and built for two
# and three CTAs an SM (x2, x3: __launch_bounds__(256, N) and the consumer's setmaxnreg lowered so
# that producer plus consumer keep the launch's registers: 40 + 200, 40 + 120). Timed in one
# process with mamba_ssm, every element checked (ssd-vs-mamba.sh: ssd_time.py, 2 placements).
set -u
. bench/common/round-start.sh occupancy
G=examples/mamba2_chunk_scan.json
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=${WORK:-/tmp/occupancy}/b$Bn-s$Sn  # the bundles stay off $OUT (too many files to bring back)
mkdir -p "$B"
"$CLI" schedule $G --set $SET --hw "$(sh bench/common/hw-model.sh)" --target sm90a -q -o "$B/pick.json" >/dev/null &&
    "$CLI" codegen $G --set $SET --program "$B/pick.json" --target sm90a -o "$B/pick" >/dev/null || { echo "pick failed"; exit 1; }
"$CLI" program $G --hw H100 --set $SET --tile h=1,l=64,s=64,n=128,wg=1 -o "$B/w1.json" &&
    python3 - "$B/w1.json" "$B/w1f.json" <<'PY' || { echo "w1f failed"; exit 1; }
import json, sys
p = json.load(open(sys.argv[1]))
p["decay"] = "factored"  # the pick's decay form, so that only the CTA shape differs
p["partition"] = {"raster": "column", "group": 8, "persistent": False}
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
for v in w1 w1f; do
    "$CLI" codegen $G --set $SET --program "$B/$v.json" --target sm90a -o "$B/$v" >/dev/null || { echo "$v failed"; exit 1; }
done
for v in w1 w1f; do for n in 2 3; do
    [ $v = w1 ] && [ $n = 2 ] && continue
    cp -r "$B/$v" "$B/${v}x$n"
    inc=$([ $n = 2 ] && echo 200 || echo 120)
    sed -i "s/__launch_bounds__(256, 1)/__launch_bounds__(256, $n)/; s/regs_increase<240>/regs_increase<$inc>/" "$B/${v}x$n/kernel.cu"
    [ "$(grep -c "__launch_bounds__(256, $n)\|regs_increase<$inc>" "$B/${v}x$n/kernel.cu")" = 2 ] || { echo "${v}x$n: the edit did not apply"; exit 1; }
done; done
rm -rf "$B/w1"
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 240 "$B/pick" "$B/w1f" "$B/w1fx2" "$B/w1fx3" "$B/w1x3"
grep -h "registers\|spill" "$B"/*/kernel.ptxas.txt | sort | uniq -c
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"; cp "$B/ssd.err" "$R/ssd-b$Bn-s$Sn.err"
done
