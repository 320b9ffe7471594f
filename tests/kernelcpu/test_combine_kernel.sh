#!/bin/sh
# test_combine_kernel.sh CLI — every FlashDecoding combine variant of tests/codegen/variants.txt
# (dec_combine_*): its sm90a bundle written by the CLI, kernel.cu and launch.c compiled for the
# CPU against include/ (README.md) and run through the bundle's own launcher on random inputs,
# every element of O against the combine in double precision (combine_check.cpp). The kernel's
# barriers, TMA boxes (the driver's rules on tensor maps included) and shared-memory layout are
# what is checked; its speed is not. PT_ONLY=PREFIX: only the variants whose name starts with it.
# Skips (77) without g++, gcc or python3.
set -u
cli=${1:?usage: test_combine_kernel.sh CLI}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CXX=${CXX_REFCPU:-g++}
CC=${CC:-gcc}
for t in "$CXX" "$CC" python3; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the runner, once
"$CXX" -std=c++20 -O1 -pthread -Wall -Wextra -Werror -I"$here" -c "$here/kernelcpu_run.cpp" -o "$tmp/run.o" &&
    "$CXX" -std=c++20 -O1 -c "$root/tests/refcpu/refcpu_half.cpp" -o "$tmp/half.o" ||
    { echo "FAIL: the runner does not compile"; exit 1; }
fails=0 n=0
grep "^${PT_ONLY:-dec_combine_}" "$root/tests/codegen/variants.txt" >"$tmp/variants.txt"
while read -r name graph set tile edits; do
    n=$((n + 1))
    d=$tmp/$name
    if ! "$root/tests/codegen/make-variant.sh" "$cli" "$tmp/b" "$name" "$graph" "$set" "$tile" "${edits:--}" \
            >"$tmp/gen.log" 2>&1; then
        echo "FAIL $name: generation: $(tail -2 "$tmp/gen.log")"; fails=$((fails + 1)); continue
    fi
    b=$tmp/b/$name
    mkdir -p "$d"
    # the bundle's kernel beside the headers it needs, but not its device library: include/ has it
    cp "$b/kernel.cu" "$b/launch.c" "$b/pt_combine.cuh" "$b/raster.h" "$b/trace_abi.h" "$d/"
    args=$(python3 - "$b/tensors.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["tensors"]
idx = {x["name"]: i for i, x in enumerate(t)}
y, x, o = t[idx["Opart"]], t[idx["LSE"]], t[idx["O"]]
bh = 1
for e in o["shape"][:-2]:
    bh *= e
print(j["kernel"], bh, y["shape"][-3], o["shape"][-2], o["shape"][-1], o["dtype"], len(t), idx["Opart"], idx["LSE"], idx["O"])
PY
)
    kernel=${args%% *} args=${args#* }
    plain=""
    grep -q 'const float \*__restrict__ x' "$d/kernel.cu" && plain=-DX_PLAIN
    # shellcheck disable=SC2086
    if ! "$CXX" -std=c++20 -O1 -w -x c++ -I"$here/include" -c "$d/kernel.cu" -o "$d/kernel.o" >"$d/build.log" 2>&1 ||
       ! "$CC" -O1 -I"$here/include" -c "$d/launch.c" -o "$d/launch.o" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -pthread -DKERNEL="$kernel" $plain -I"$here" "$here/combine_check.cpp" "$d/kernel.o" "$d/launch.o" \
            "$tmp/run.o" "$tmp/half.o" -o "$d/check" >>"$d/build.log" 2>&1; then
        echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; fails=$((fails + 1)); continue
    fi
    # shellcheck disable=SC2086
    "$d/check" "$name" $args || fails=$((fails + 1))
done <"$tmp/variants.txt"
[ "$n" -gt 0 ] || { echo "FAIL: no dec_combine_ variants"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n combine variants failed"; exit 1; }
echo "all $n combine variants agree"
