#!/usr/bin/env bash
# bench/fa/combine-tiles/run.sh CLI OUT — FlashDecoding's combine at several tiles of the same
# shape, each chained after the same partial kernel (the scheduler's sProgram) and timed by
# bench/fa/decode_time.py in one process (torch SDPA beside them): how the combine's time
# follows its CTA count and bytes per CTA (rows g of the query group: under 4 rows the warpgroup
# reads the log-sum-exps itself; columns d of the head, a multiple of 32) where the model
# predicts it nearly flat. Shapes: MQA (B 1, HKV 1, G 32, 128 splits, KV 16384) and Llama-3-8B
# heads at B 1 (HKV 8, G 4, 16 splits). On the GPU machine from the repository root; OUT/tiles.jsonl.
set -u
cli=${1:?usage: run.sh CLI OUT}
out=${2:?usage: run.sh CLI OUT}
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
args=()
while read -r name set splits tiles; do
    d=$out/$name
    mkdir -p "$d"
    "$cli" schedule "$root/examples/flash_decoding.json" --set "$set,S=16384,SPLITS=$splits" \
        --target sm90a -o "$d/partial.json" >"$d/log" 2>&1 &&
    "$cli" codegen "$root/examples/flash_decoding.json" --set "$set,S=16384,SPLITS=$splits" \
        --program "$d/partial.json" --target sm90a -o "$d/partial" >>"$d/log" 2>&1 &&
    make -s -C "$d/partial" lib >>"$d/log" 2>&1 || { echo "$name: partial failed"; tail -3 "$d/log"; continue; }
    for t in $tiles; do
        c=$d/c_${t//[=,]/_}
        "$cli" program "$root/examples/flash_decoding_combine.json" --set "$set,SPLITS=$splits" \
            --tile "$t,s=$splits" -o "$c.json" >>"$d/log" 2>&1 &&
        "$cli" codegen "$root/examples/flash_decoding_combine.json" --set "$set,SPLITS=$splits" \
            --program "$c.json" --target sm90a -o "$c" >>"$d/log" 2>&1 &&
        make -s -C "$c" lib >>"$d/log" 2>&1 || { echo "$name $t: combine failed"; continue; }
        echo "$name $t: $("$cli" simulate "$root/examples/flash_decoding_combine.json" --set "$set,SPLITS=$splits" --program "$c.json" 2>&1 | grep -m1 predicted)"
        args+=("$d/partial" "$c")
    done
done <<'SHAPES'
mqa B=1,HKV=1,G=32,D=128 128 g=1,d=32 g=2,d=32 g=4,d=32 g=8,d=32 g=1,d=128 g=2,d=64
b1 B=1,HKV=8,G=4,D=128 16 g=1,d=32 g=2,d=32 g=4,d=32 g=4,d=128
SHAPES
[ ${#args[@]} -gt 0 ] || { echo "nothing to time"; exit 1; }
PLACEMENTS=1 python3 "$root/bench/fa/decode_time.py" "${args[@]}" >"$out/tiles.jsonl"
python3 "$root/bench/fa/decode_summary.py" "$out/tiles.jsonl"
