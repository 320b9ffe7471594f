#!/bin/sh
# differential.sh BUILD [N] [SEED0] — tests/gpu/differential.sh on the CPU: N random sPrograms
# the validator and the sm90a generator accept (tests/gen_random_sprogram WORKLOAD SEED DIR
# --small, seeds SEED0 .. SEED0+N-1, the workload by seed mod 11 as there, or mod the count of
# WORKLOADS, a space-separated subset, when set), each bundle built
# against this folder's emulated device library and run (README.md): every output element
# checked, a kernel that hangs (no thread can go on) a failure. The contract's promise — an
# accepted sProgram generates a kernel that finishes and is correct — checked without a GPU on
# draws no variant lists: session 47's generator passed every variant and hung on 5 of 400 such
# draws. A draw whose kernel the emulator cannot run (a thread-block cluster) or that is too big
# for it is listed as not run. Prints one line per draw and
#     kernelcpu differential: N drawn, R run, P correct, F failed
# exits 1 on any failure, 77 without g++, gcc or python3. N defaults to $PT_KCPU_DIFF_N or 22
# (two draws of each workload), SEED0 to 1.
set -u
build=${1:?usage: differential.sh BUILD [N] [SEED0]}
n=${2:-${PT_KCPU_DIFF_N:-22}}
seed0=${3:-1}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
[ -d "$build" ] || build=$(dirname "$(dirname "$build")")  # given the CLI: its build directory
gen=$build/tests/gen_random_sprogram
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/bundle.sh"
kcpu_setup
[ -x "$gen" ] || { echo "FAIL: $gen is not an executable (build the tree first)"; exit 1; }
workloads=${WORKLOADS:-"gemm_f16 gemm_bf16 flash_attention flash_attention_bf16 gemm_w4a16 gemm_wfp4a16
mamba2_chunk_state mamba2_chunk_scan flash_decoding flash_decoding_combine flash_decoding_unsplit"}
n_workloads=$(echo $workloads | wc -w)
workload_of() {
    i=$(($1 % n_workloads))
    # shellcheck disable=SC2086
    set -- $workloads
    shift "$i"
    echo "$1"
}
ran=0 ok=0 fails=0
seed=$seed0
while [ "$seed" -lt $((seed0 + n)) ]; do
    w=$(workload_of "$seed")
    name="$w seed $seed"
    b=$tmp/b/$seed d=$tmp/d/$seed
    seed=$((seed + 1))
    if ! "$gen" "$w" $((seed - 1)) "$b" --small >"$tmp/gen.log" 2>&1; then
        echo "FAIL $name: nothing accepted: $(tail -1 "$tmp/gen.log")"; fails=$((fails + 1)); continue
    fi
    what=$(python3 "$here/what_to_check.py" "$b/tensors.json" "${PT_KCPU_MACS:-33554432}" "$b/program.json" - "drawn")
    case $what in
    -*) echo "--   $name: not run (${what#- })"; rm -rf "$b"; continue ;;
    esac
    checker=${what%% *} args=${what#* }
    kcpu_build "$b" "$d" "$checker" "$name" || { fails=$((fails + 1)); continue; }
    ran=$((ran + 1))
    if [ "$checker" = harness ]; then
        harness_check "$d" "$name" || { fails=$((fails + 1)); echo "     $(grep -m1 "^replay" "$b/replay.txt" 2>/dev/null)"; continue; }
    else
        # shellcheck disable=SC2086
        "$d/check" "$name" $args || { fails=$((fails + 1)); continue; }
    fi
    ok=$((ok + 1))
    rm -rf "$b" "$d"
done
echo "kernelcpu differential: $n drawn, $ran run, $ok correct, $fails failed"
[ "$fails" -eq 0 ]
