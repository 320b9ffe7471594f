# module.sh — sourced by the refcpu test scripts (README.md), with $here this folder. Sets CXX
# and CC (skipping the test, 77, without the C++ compiler), tmp (a folder removed at exit) and
# fails=0. refcpu_module PREFIX DIR compiles DIR/reference.cu (as C++ for the CPU) and
# DIR/reference_host.c with every kernel and pt_reference_run renamed PREFIX_..., and writes and
# compiles DIR/module.cpp: the table of the kernels by the names reference_host.c asks for, with
# their pointer counts.
refcpu=$here
CXX=${CXX_REFCPU:-g++}
CC=${CC:-gcc}
command -v "$CXX" >/dev/null 2>&1 || { echo "SKIP: $CXX not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
refcpu_module() {
    mp=$1 md=$2
    defs=""
    for k in $(sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(.*/\1/p' "$md/reference.cu"); do
        defs="$defs -D$k=${mp}_$k"
    done
    {
        echo '#include "refcpu.h"'
        sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(\(.*\))$/\1 \2/p' "$md/reference.cu" |
            while read -r k params; do echo "extern \"C\" void ${mp}_$k();"; done
        echo "static const refcpu_kernel ${mp}_kernels[] = {"
        sed -n '/__global__/s/.* \(ref_[a-z0-9_]*\)(\(.*\))$/\1 \2/p' "$md/reference.cu" |
            while read -r k params; do
                n=$(printf '%s' "$params" | tr -cd '*' | wc -c)
                echo "    {\"$k\", (void *)${mp}_$k, $n},"
            done
        echo "    {nullptr, nullptr, 0}};"
        echo "refcpu_module ${mp}_module = {${mp}_kernels};"
    } >"$md/module.cpp"
    # shellcheck disable=SC2086
    "$CXX" -std=c++20 -O1 -w -pthread -I"$refcpu" -I"$refcpu/include" -include refcpu_device.h $defs \
        -x c++ -c "$md/reference.cu" -o "$md/reference.o" &&
    "$CC" -std=c11 -O1 -I"$refcpu/include" -Dpt_reference_run=${mp}_reference_run \
        -c "$md/reference_host.c" -o "$md/reference_host.o" &&
    "$CXX" -std=c++20 -O1 -I"$refcpu" -c "$md/module.cpp" -o "$md/module.o"
}
