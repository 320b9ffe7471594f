#!/bin/sh
# test_combine_tile.sh — FlashDecoding's combine tasks (codegen/device/pt_combine.cuh) compiled for
# the CPU and run over the tile shapes the sm90a generator takes (combine_tile.cpp says what is
# checked). Skips (77) without a C++ compiler.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CXX=${CXX_REFCPU:-g++}
command -v "$CXX" >/dev/null 2>&1 || { echo "SKIP: $CXX not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CUDA's #pragma unroll means nothing to the host compiler
"$CXX" -std=c++17 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -I"$here/../../codegen/device" \
    "$here/combine_tile.cpp" -o "$tmp/combine_tile" || { echo "FAIL: the test does not compile"; exit 1; }
"$tmp/combine_tile"
