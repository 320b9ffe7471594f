#!/usr/bin/env bash
# bench/common/ssd-vs-mamba.sh R TIMEOUT BUNDLE... — on the GPU machine, from the repository root:
# built Mamba2 bundles (make lib kernel.cubin) against mamba_ssm's Triton kernels in one process
# (bench/mamba2/ssd_time.py: CUDA graphs, rotated inputs, interleaved, every element checked),
# results in R/ssd.jsonl (stderr in R/ssd.err), then one table row per bundle. PLACEMENTS
# (default 2) as ssd_time.py takes it. The anchors: ../shared/anchors/mamba2-triton, else
# .dev/anchors (carried). Used by the device rounds in bench/next.
set -u
R=$1 tmo=$2; shift 2
A=$(pwd)/../shared/anchors/mamba2-triton; [ -d "$A" ] || A=$(pwd)/.dev/anchors
t0=$(date +%s)
PLACEMENTS=${PLACEMENTS:-2} timeout "$tmo" python3 bench/mamba2/ssd_time.py "$A" "$@" > "$R/ssd.jsonl" 2>"$R/ssd.err"
echo "ssd_time rc $? $(( $(date +%s) - t0 )) s"; tail -3 "$R/ssd.err"
python3 bench/mamba2/ssd_rows.py "$R/ssd.jsonl"
