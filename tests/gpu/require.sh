# require.sh — sourced by the GPU test scripts (suite 'gpu'). Each check prints "SKIP: why" and
# exits 77, meson's skip, where the machine lacks what the test needs (CI has no GPU);
# require_nvcc also puts CUDA's bin on PATH where nvcc is only at /usr/local/cuda/bin.
require_gpu() { # [what the test needs it for]
    nvidia-smi -L 2>/dev/null | grep -q '^GPU' && return 0
    echo "SKIP: no GPU (nvidia-smi -L found none)${1:+: $1}"
    exit 77
}
require_tool() { # tool [why]
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "SKIP: $1 not found${2:+ ($2)}"
    exit 77
}
require_nvcc() {
    command -v nvcc >/dev/null 2>&1 && return 0
    [ -x /usr/local/cuda/bin/nvcc ] || { echo "SKIP: nvcc not found"; exit 77; }
    PATH=$PATH:/usr/local/cuda/bin
    export PATH
}
require_torch() { # [why]
    python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && return 0
    echo "SKIP: python3 with CUDA torch not found${1:+ ($1)}"
    exit 77
}
