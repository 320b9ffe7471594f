#!/bin/sh
# gpu-test.sh CLI — meson test (suite 'gpu'): runs run-gpu-tests.sh over tests/codegen/variants.txt
# where a GPU is present; skips (77) elsewhere, and where nvcc or make is missing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/require.sh"
require_gpu
require_tool make
require_nvcc
exec "$here/run-gpu-tests.sh" "$1" "$here/../codegen/variants.txt"
