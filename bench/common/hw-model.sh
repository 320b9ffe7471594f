#!/bin/sh
# bench/common/hw-model.sh — the built-in hardware model for this machine's GPU, for the bench
# scripts' `schedule --hw`: H100 or H200 from nvidia-smi's name, H200 where neither is named (no
# GPU, another card). $HW, when set, wins: a name, or a model file (given back as an absolute
# path, so that it names the same file from any folder the script runs the CLI in).
if [ -n "${HW:-}" ]; then
    if [ -f "$HW" ]; then realpath "$HW"; else echo "$HW"; fi
    exit 0
fi
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$name" in
    *H100*) echo H100 ;;
    *) echo H200 ;;
esac
