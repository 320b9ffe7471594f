#!/usr/bin/env bash
# A device round (session 35, H100): schedule --measure 6 on ChunkState 8 x 2048 (the shortlist
# now holds the best tile at 2 stages as well as 4): which candidate the measured pick is.
set -u
. bench/common/round-start.sh measure
timeout 230 "$CLI" schedule mamba2_chunk_state --hw H100 --target sm90a --set B=8,S=2048 --measure 6 \
    -o "$R/measured-pick.json" > "$R/measure.txt" 2>&1
echo "measure rc $? $(( $(date +%s) - T0 )) s"; grep -v "candidates, best" "$R/measure.txt" | tail -14
