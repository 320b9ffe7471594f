#!/usr/bin/env bash
# bench/fa/split-sweep/make.sh CLI OUT [SHAPES] — FlashDecoding at several split counts of each shape:
# for every (shape, SPLITS) the scheduler's partial and combine sProgram with the count fixed
# (--set SPLITS=N), and their bundles. run.sh builds and times them on the GPU machine; the
# measured pairs say where the split search's ranking (partial + combine) is wrong, and the
# kernels alone are model data. OUT/list: name, the two sets, per line. SHAPES: a file of
# lines "name set kv-length counts..." instead of the shapes below.
set -eu
cli=$1 out=$2 shapes=${3:-}
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
: >"$out/list"
default="mqa16k   B=1,HKV=1,G=32,D=128  16384  16 32 64 128 256
mqa128k  B=1,HKV=1,G=32,D=128  131072 32 64 128 256
mqa8_64k B=1,HKV=1,G=8,D=128   65536  32 64 128 256
b1_16k   B=1,HKV=8,G=4,D=128   16384  4 8 16 32 64
b1_4k    B=1,HKV=8,G=4,D=128   4096   4 8 16 32
b8_16k   B=8,HKV=8,G=4,D=128   16384  1 2 4 8
b2_d64   B=2,HKV=2,G=8,D=64    4099   4 8 16 32
"
[ -n "$shapes" ] && list=$(cat "$shapes") || list=$default
while read -r shape set S counts; do
    for sp in $counts; do
        n=${shape}_sp$sp d=$out/$n
        mkdir -p "$d"
        sp_set="$set,S=$S,SPLITS=$sp" c_set="$set,SPLITS=$sp"
        "$cli" schedule "$root/examples/flash_decoding.json" --set "$sp_set" --target sm90a \
            -o "$d/partial.json" >"$d/log" 2>&1 &&
        "$cli" codegen "$root/examples/flash_decoding.json" --set "$sp_set" --program "$d/partial.json" \
            --target sm90a -o "$d/partial" >>"$d/log" 2>&1 &&
        "$cli" schedule "$root/examples/flash_decoding_combine.json" --set "$c_set" --target sm90a \
            -o "$d/combine.json" >>"$d/log" 2>&1 &&
        "$cli" codegen "$root/examples/flash_decoding_combine.json" --set "$c_set" \
            --program "$d/combine.json" --target sm90a -o "$d/combine" >>"$d/log" 2>&1 ||
            { echo "$n: generation failed: $(tail -1 "$d/log")"; rm -rf "$d"; continue; }
        pred=$(grep -a -o 'best predicted: [0-9.]* us[^=]*= [0-9.]* us' "$d/log" | head -1)
        echo "$n $sp_set $c_set $pred" | tee -a "$out/list"
    done
done <<<"$list"
