#!/usr/bin/env bash
# grid.sh SRC DST G — a hand edit: bundle SRC copied to DST with its persistent grid of 132 CTAs
# launched as G (launch.c; the kernel walks its tiles by gridDim.x, so nothing else changes).
set -eu
rm -rf "$2"; cp -r "$1" "$2"
grep -q 'cuLaunchKernel(f, 132, ' "$2/launch.c"
sed -i "s/cuLaunchKernel(f, 132, /cuLaunchKernel(f, $3, /; s/\*grid = 132u;/*grid = ${3}u;/" "$2/launch.c"
