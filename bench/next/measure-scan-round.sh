#!/usr/bin/env bash
# A device round (session 35, H100): schedule --measure 8 on ChunkScan 8 x 2048 and 8 x 4096
# (the two shapes short of 2.0x mamba_ssm): is any shortlisted candidate faster than the pick?
set -u
. bench/common/round-start.sh measure-scan
for S in 2048 4096; do
timeout 110 "$CLI" schedule mamba2_chunk_scan --hw H100 --target sm90a --set B=8,S=$S --measure 8 \
    -o "$R/measured-pick-$S.json" > "$R/measure-$S.txt" 2>&1
echo "measure $S rc $? $(( $(date +%s) - T0 )) s"; grep -v "candidates, best" "$R/measure-$S.txt" | tail -14
done
