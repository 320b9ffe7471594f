#!/usr/bin/env bash
# bench/fa/parts-ab/run.sh DIR — on the GPU machine: builds what make.sh wrote in DIR and times,
# for each shape, the partial followed by the new combine ("ours") and by the old one
# ("ours_twin"), and the new combine alone, in one process with torch SDPA (decode_time.py
# TWINS=1, 2 placements; every output checked against torch first). DIR/ab.jsonl.
set -u
dir=${1:?usage: run.sh DIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
args=()
for d in "$dir"/*/; do
    ok=1
    for b in partial new old; do
        make -s -C "$d/$b" lib >"$d/$b.build.log" 2>&1 || { echo "$d$b: build failed"; tail -5 "$d/$b.build.log"; ok=0; }
    done
    [ $ok = 1 ] && args+=("$d/partial" "$d/new" "$d/old")
done
TWINS=1 python3 "$root/bench/fa/decode_time.py" "${args[@]}" >"$dir/ab.jsonl"
python3 "$root/bench/fa/decode_summary.py" "$dir/ab.jsonl"
