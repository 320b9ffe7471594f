# bundle.sh — sourced by test_kernels.sh and differential.sh: one generated sm90a bundle built
# against the emulated device library of this folder and run on the CPU (README.md).
# Needs here (this folder) and root (the repository) set; kcpu_setup sets CXX, CC and tmp.

# kcpu_setup: the compilers (CXX_REFCPU, CC; the script exits 77 without them or python3), a
# scratch folder $tmp removed at exit, and kcpu_init's objects in it (the script exits 1 if
# they do not compile)
kcpu_setup() {
    CXX=${CXX_REFCPU:-g++}
    CC=${CC:-gcc}
    for t in "$CXX" "$CC" python3; do
        command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
    done
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    kcpu_init || exit 1
}

# kcpu_init: the emulator, the driver stand-in and the checkers, compiled once into $tmp
kcpu_init() {
    for f in kernelcpu_run kernelcpu_driver combine_check gemm_check attn_check decode_check; do
        "$CXX" -std=c++20 -O1 -pthread -Wall -Wextra -Werror -I"$here" -c "$here/$f.cpp" -o "$tmp/$f.o" ||
            { echo "FAIL: $f.cpp does not compile"; return 1; }
    done
    "$CXX" -std=c++20 -O1 -c "$root/tests/refcpu/refcpu_half.cpp" -o "$tmp/half.o"
}

# harness_check DIR LABEL [ARGS...]: the bundle's harness built in DIR, check only, with ARGS;
# one ok or FAIL line; its exit status
harness_check() {
    hd=$1 label=$2
    shift 2
    if "$hd/check" --check-only "$@" >"$hd/check.log" 2>&1 </dev/null; then
        echo "ok   $label ($(grep -m1 '^check:' "$hd/check.log" | sed 's/^check: correct: //'))"
    else
        echo "FAIL $label: $(grep -E '^(check|harness|kernelcpu)|mismatch' "$hd/check.log" | head -12)"
        return 1
    fi
}

# kcpu_build BUNDLE DIR CHECKER NAME: BUNDLE's kernel (and, for CHECKER harness, its harness and
# reference kernels) built in DIR into DIR/check; a FAIL line naming NAME and status 1 when it
# does not build. PT_KCPU_EDIT (a Python script), when set, edits DIR's kernel.cu first.
kcpu_build() {
    b=$1 d=$2 checker=$3 name=$4
    mkdir -p "$d"
    # the bundle's kernel beside the headers it needs, but not its device library: include/ has it
    for f in kernel.cu launch.c pt_tile.cuh pt_combine.cuh pt_ssd.cuh pt_dequant.cuh raster.h trace_abi.h \
             reference.cu reference_host.c harness.c pt_harness.h graph_table.h; do
        [ -f "$b/$f" ] && cp "$b/$f" "$d/"
    done
    if [ -n "${PT_KCPU_EDIT:-}" ] && ! python3 "$PT_KCPU_EDIT" "$d/kernel.cu" "$d/kernel.cu" >"$d/edit.log" 2>&1; then
        echo "FAIL $name: the edit $PT_KCPU_EDIT: $(tail -1 "$d/edit.log")"; return 1
    fi
    if ! python3 "$here/make_module.py" "$d/kernel.cu" "$d/module.cpp" >"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -w -x c++ -I"$here/include" -c "$d/kernel.cu" -o "$d/kernel.o" >>"$d/build.log" 2>&1 ||
       ! "$CXX" -std=c++20 -O1 -w -I"$here" -c "$d/module.cpp" -o "$d/module.o" >>"$d/build.log" 2>&1 ||
       ! "$CC" -O1 -I"$here/include" -c "$d/launch.c" -o "$d/launch.o" >>"$d/build.log" 2>&1; then
        echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; return 1
    fi
    if [ "$checker" = harness ]; then
        # the bundle's harness and reference kernels (reference.cu's __shared__ arrays one per block)
        if ! python3 "$here/make_module.py" "$d/reference.cu" "$d/refmodule.cpp" kernelcpu_reference >>"$d/build.log" 2>&1 ||
           ! "$CXX" -std=c++20 -O1 -w -x c++ -DKERNELCPU_SHARED_STATIC -I"$here/include" -c "$d/reference.cu" \
                -o "$d/reference.o" >>"$d/build.log" 2>&1 ||
           ! "$CXX" -std=c++20 -O1 -w -I"$here" -c "$d/refmodule.cpp" -o "$d/refmodule.o" >>"$d/build.log" 2>&1 ||
           ! (cd "$d" && "$CC" -O1 -w -fopenmp -I"$here/include" -c reference_host.c harness.c) >>"$d/build.log" 2>&1 ||
           ! "$CXX" -pthread -fopenmp "$d/kernel.o" "$d/module.o" "$d/launch.o" "$d/reference.o" "$d/refmodule.o" \
                "$d/reference_host.o" "$d/harness.o" "$tmp/kernelcpu_run.o" "$tmp/kernelcpu_driver.o" "$tmp/half.o" \
                -o "$d/check" -lm >>"$d/build.log" 2>&1; then
            echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; return 1
        fi
    elif ! "$CXX" -pthread "$tmp/$checker.o" "$d/kernel.o" "$d/module.o" "$d/launch.o" "$tmp/kernelcpu_run.o" \
            "$tmp/half.o" -o "$d/check" >>"$d/build.log" 2>&1; then
        echo "FAIL $name: build: $(head -c 1500 "$d/build.log")"; return 1
    fi
}
