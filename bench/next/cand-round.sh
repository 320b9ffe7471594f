#!/usr/bin/env bash
# A device round (session 34): the long decode rows are within 1.5% of cuDNN, both at the memory
# rate. Do the scheduler's other candidates (key tile, stages, order, grid) read faster than its
# pick? .dev/cand (carried) holds the top candidates of `schedule --measure N --candidates` for
# B 64 KV 16k (unsplit) and B 8 KV 64k (2 splits, one combine), generated; each is timed against
# torch SDPA in one process (bench/fa/decode_time.py), every output checked first.
set -u
R=$OUT/cand; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
ls -d .dev/cand/*/cand-*/ .dev/cand/b8/combine/ | xargs -P 16 -I{} sh -c 'make -s -C {} lib >{}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
a=(); for d in .dev/cand/b64/cand-*/; do a+=("$d" -); done
PLACEMENTS=1 timeout 200 python3 bench/fa/decode_time.py "${a[@]}" > "$R/b64.jsonl" 2>"$R/b64.err"
echo "b64 rc $? $(( $(date +%s) - T0 )) s"
a=(); for d in .dev/cand/b8/cand-*/; do a+=("$d" .dev/cand/b8/combine); done
PLACEMENTS=1 timeout 200 python3 bench/fa/decode_time.py "${a[@]}" > "$R/b8.jsonl" 2>"$R/b8.err"
echo "b8 rc $? $(( $(date +%s) - T0 )) s"
for f in b64 b8; do python3 bench/fa/decode_summary.py "$R/$f.jsonl" | grep -v "^{'gpu" | sed 's|.*/cand/||'; done
