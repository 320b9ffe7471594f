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
python3 - "$dir/ab.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "info" in r:
        print(r["info"]); continue
    if "error" in r:
        print(r.get("combine"), "ERROR", r["error"]); continue
    t = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    print(f'{r["combine"].split("/")[-3]:6s} G {r["G"]} splits {r["splits"]}: mismatches {r["mismatches"]}/{r.get("twin_mismatches")}'
          f' new pair {t["ours"]:.2f} us, old pair {t["ours_twin"]:.2f} us (old/new {t["ours_twin"]/t["ours"]:.3f}),'
          f' new combine alone {t["ours_combine"]:.2f} us, partial {t["ours_partial"]:.2f} us,'
          f' best torch {r["torch_best"]} {t[r["torch_best"]]:.2f} us')
PY
