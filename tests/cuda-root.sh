# cuda-root.sh — sourced by the test scripts: cuda_root NVCC prints the CUDA toolkit's root.
# nvcc may be a wrapper script elsewhere in PATH (CI has /usr/local/bin/nvcc exec'ing the real
# one), so ask nvcc itself where its toolkit is (the TOP line of --dryrun) before falling back
# to the directory above the nvcc found.
cuda_root() {
    _top=$("$1" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)
    if [ -n "$_top" ] && [ -f "$_top/include/cuda.h" ]; then
        (cd "$_top" && pwd -P)
    elif [ -f /usr/local/cuda/include/cuda.h ] && [ ! -f "$(dirname "$(dirname "$1")")/include/cuda.h" ]; then
        echo /usr/local/cuda
    else
        dirname "$(dirname "$1")"
    fi
}
