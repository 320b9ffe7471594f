#!/usr/bin/env bash
# bench/fa/split-sweep/run.sh DIR — on the GPU machine: builds what make.sh wrote in DIR and
# times every pair (the partial, then its combine; each alone too) with torch SDPA in one
# process (bench/fa/decode_time.py, 2 placements; every output checked first). DIR/sweep.jsonl.
set -u
dir=${1:?usage: run.sh DIR}
root=$(cd "$(dirname "$0")/../../.." && pwd)
ls -d "$dir"/*/partial "$dir"/*/combine | xargs -P "$(nproc)" -I{} sh -c \
    'make -s -C {} lib >{}.build.log 2>&1 || { echo "{}: build failed"; tail -5 {}.build.log; }'
args=()
for d in "$dir"/*/; do
    [ -f "$d/partial/libkernel.so" ] && [ -f "$d/combine/libkernel.so" ] && args+=("$d/partial" "$d/combine")
done
python3 "$root/bench/fa/decode_time.py" "${args[@]}" >"$dir/sweep.jsonl"
python3 "$root/bench/fa/decode_summary.py" "$dir/sweep.jsonl"
