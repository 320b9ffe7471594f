#!/usr/bin/env bash
# Session 48, second device call. (1) What the low-bit fence costs: session 41's picks for 8B.o
# (N 4096, K 4096) at M 1 and 16, int4 and fp4 (bench/lowbit/results-2026-12-06-s41), as now
# generated (each warp fences before handing Wq's and the scales' stages back), with that one
# line removed, and with the release deferred to the wgmma groups the stages feed
# (defer_lowbit.py), every element checked, then timed by their harness, PASSES passes. (2) The
# ChunkScan pick (session 44's, on this GPU's model) as now generated against mamba_ssm in one
# process (ssd-vs-mamba.sh: CUDA graphs, rotated inputs, interleaved, every element checked) at
# SHAPES. From the repository root on the GPU machine after `source .deps/unpack.sh`.
set -u
. bench/common/round-start.sh call2
W=/tmp/c2; rm -rf $W; mkdir -p $W
S41=bench/lowbit/results-2026-12-06-s41
for f in w4a16 wfp4a16; do for m in ${LB_MS:-1 16}; do
    n=$f-m$m
    "$CLI" codegen tests/codegen/graphs/gemm_${f}_bf16_frag.json --set M=$m,N=4096,K=4096,G=128 \
        --program $S41/program-$f-8Bo-m$m-pick.json --target sm90a -o $W/$n-fence >/dev/null || echo "$n: codegen failed"
    cp -r $W/$n-fence $W/$n-nofence; cp -r $W/$n-fence $W/$n-defer
    sed -i '/the loads have returned before the stages go back/d' $W/$n-nofence/kernel.cu
    python3 bench/mamba2/results-2026-12-07-s48/defer_lowbit.py $W/$n-defer
    echo "$n fences: $(grep -c fence_proxy_async $W/$n-fence/kernel.cu) / $(grep -c fence_proxy_async $W/$n-nofence/kernel.cu)"
done; done
ls -d $W/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{}: build failed"'
echo "lowbit built $(( $(date +%s) - T0 )) s"
for d in $W/*/; do echo "$(basename $d) $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | cut -c1-160)"; done | tee $R/lowbit-check.txt
bash bench/common/harness-passes.sh ${PASSES:-3} $W/*/ | tee $R/lowbit-passes.txt
echo "lowbit done $(( $(date +%s) - T0 )) s"
G=examples/mamba2_chunk_scan.json; HWM=$(sh bench/common/hw-model.sh)
P=bench/mamba2/results-2026-12-07-s45/programs
for BS in ${SHAPES-8:2048 8:4096}; do
    IFS=: read -r Bn Sn <<<"$BS"
    B=$W/scan-b$Bn-s$Sn; mkdir -p $B
    "$CLI" codegen $G --set B=$Bn,S=$Sn,H=64,P=64,N=128,L=256 --program $P/h2-$HWM-b$Bn-s$Sn.json --target sm90a -o $B/pick >/dev/null
    make -s -C $B/pick all lib > $B/pick/build.log 2>&1 || echo "$BS: build failed"
    bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/pick"
    cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"
    bash bench/common/harness-passes.sh 2 "$B/pick" | tee -a $R/scan-passes.txt
    echo "$BS done $(( $(date +%s) - T0 )) s"
done
