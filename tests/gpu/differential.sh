#!/bin/sh
# differential.sh CLI_OR_BUILD [N] [SEED0] [OUTDIR] — the stage contract on the GPU (issue 12):
# N random sPrograms that the validator and the sm90a generator accept (tests/gen_random_sprogram,
# seeds SEED0 .. SEED0+N-1, workloads gemm_f16, gemm_bf16, flash_attention, flash_attention_bf16,
# gemm_w4a16, gemm_wfp4a16, mamba2_chunk_state, mamba2_chunk_scan, flash_decoding,
# flash_decoding_combine, flash_decoding_unsplit by seed mod 11) are written as bundles, built in parallel, and each harness is run with
# --check-only (every output element checked against the f32 reference) under `timeout`: a hang
# is a failure, reported with its seed. One seed in every SAN_EVERY (a different workload each
# time) is also generated small (--small) and run under compute-sanitizer memcheck and racecheck. Prints a table and the line
#     differential: N run, P correct, F failed, H hung, S sanitizer reports
# and exits 1 on any failure, hang or sanitizer report; 77 (skipped) without a GPU, nvcc or make.
#
# CLI_OR_BUILD: the meson build directory, or its cli/pipethreader-cli (the generator is then
# BUILD/tests/gen_random_sprogram; GEN_RANDOM_SPROGRAM overrides). N defaults to
# $PT_DIFFERENTIAL_N or 200. Environment: RUN_TIMEOUT (seconds per harness, default 30),
# SAN_TIMEOUT (per sanitizer run, default 300), SAN_EVERY (default 20; 0 = no sanitizer runs),
# WORKLOADS (a space-separated subset, taken by seed mod its count), JOBS (parallel builds,
# default nproc), RUN_JOBS (harnesses run at once, default 4: --check-only runs are not timed,
# so they may share the GPU), NVCC, CUDA_PATH (passed to make), DEADLINE_S (seconds from the
# start: builds, runs and sanitizer runs not begun by then are skipped and counted as not run,
# so a bounded device call still ends with its table; 0 or unset: none).
# Replay one failure: gen_random_sprogram WORKLOAD SEED DIR && make -C DIR run (see DIR/replay.txt).
# shellcheck disable=SC2016  # the xargs sh -c scripts expand their own arguments
set -u
arg=${1:?usage: differential.sh CLI_OR_BUILD [N] [SEED0] [OUTDIR]}
n=${2:-${PT_DIFFERENTIAL_N:-200}}
seed0=${3:-1}
out=${4:-$(mktemp -d /tmp/pt-differential.XXXXXX)}
if [ -d "$arg" ]; then build=$arg; else build=$(dirname "$(dirname "$arg")"); fi
gen=${GEN_RANDOM_SPROGRAM:-$build/tests/gen_random_sprogram}
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac

. "$(cd "$(dirname "$0")" && pwd)/require.sh"
require_gpu "the differential test runs on the GPU machine"
require_tool make
require_nvcc
[ -x "$gen" ] || { echo "differential: $gen is not an executable (build the tree first)" >&2; exit 2; }
mkdir -p "$out" || exit 2
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
run_jobs=${RUN_JOBS:-4}
run_timeout=${RUN_TIMEOUT:-30}
san_timeout=${SAN_TIMEOUT:-300}
san_every=${SAN_EVERY:-20}
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
make_vars=""
[ -n "${NVCC:-}" ] && make_vars="$make_vars NVCC=$NVCC"
[ -n "${CUDA_PATH:-}" ] && make_vars="$make_vars CUDA_PATH=$CUDA_PATH"
workloads=${WORKLOADS:-"gemm_f16 gemm_bf16 flash_attention flash_attention_bf16 gemm_w4a16 gemm_wfp4a16
mamba2_chunk_state mamba2_chunk_scan flash_decoding flash_decoding_combine flash_decoding_unsplit"}
n_workloads=$(echo $workloads | wc -w)
workload_of() { # seed -> workload (seed mod their count; of all ten, as gen_random_sprogram --check all)
    i=$(($1 % n_workloads))
    # shellcheck disable=SC2086
    set -- $workloads
    shift "$i"
    echo "$1"
}
start=$(date +%s)
deadline=${DEADLINE_S:-0}
# the time past which nothing more is begun, 0 for none; the xargs scripts below test it inline
# (a function of this shell does not reach theirs)
end=0
[ "$deadline" -gt 0 ] && end=$((start + deadline))

# 1. Generate (sequential, milliseconds each).
list=$out/bundles.txt
: >"$list"
i=0
while [ "$i" -lt "$n" ]; do
    seed=$((seed0 + i))
    w=$(workload_of "$seed")
    d=$out/s$seed
    if "$gen" "$w" "$seed" "$d" >"$out/s$seed.gen.log" 2>&1; then
        echo "s$seed" >>"$list"
    else
        mkdir -p "$d"; echo generate >"$d/FAILED"; cp "$out/s$seed.gen.log" "$d/generate.log"
    fi
    # one seed of each block of SAN_EVERY, shifted by one a block, so that the sample rotates
    # over the workloads (seed mod their count) rather than always hitting the same one
    if [ "$san_every" -gt 0 ] &&
       [ $((i % san_every)) -eq $(((i / san_every) % (san_every < 10 ? san_every : 10))) ]; then
        "$gen" "$w" "$seed" "$out/san$seed" --small >"$out/san$seed.gen.log" 2>&1 &&
            echo "san$seed" >>"$list"
    fi
    i=$((i + 1))
done

# 2. Build in parallel (nvcc is the slow part).
xargs -P "$jobs" -I{} sh -c '
    if [ "$4" -gt 0 ] && [ "$(date +%s)" -ge "$4" ]; then echo >"$1/$2/SKIPPED"; exit 0; fi
    make -C "$1/$2" $3 all >"$1/$2/build.log" 2>&1 || echo build >"$1/$2/FAILED"' \
    sh "$out" {} "$make_vars" "$end" <"$list"
built=$(date +%s)

# 3. Run every harness (check only) under timeout, RUN_JOBS at a time.
grep '^s[0-9]' "$list" | xargs -P "$run_jobs" -I{} sh -c '
    d=$1/$2
    [ -e "$d/FAILED" ] || [ -e "$d/SKIPPED" ] && exit 0
    if [ "$4" -gt 0 ] && [ "$(date +%s)" -ge "$4" ]; then echo >"$d/SKIPPED"; exit 0; fi
    (cd "$d" && timeout -k 5 "$3" ./harness --check-only --json-only) >"$d/result.json" 2>"$d/run.log"
    echo $? >"$d/rc"' sh "$out" {} "$run_timeout" "$end"

# A kernel that hangs holds the GPU and can push the runs beside it past their timeout: rerun
# every timed-out bundle alone before calling it hung.
for d in "$out"/s[0-9]*; do
    [ -e "$d/rc" ] || continue
    case $(cat "$d/rc") in
    124|137)
        (cd "$d" && timeout -k 5 "$run_timeout" ./harness --check-only --json-only) >"$d/result.json" 2>"$d/run.log"
        echo $? >"$d/rc" ;;
    esac
done

# 4. compute-sanitizer on the small sample.
if [ "$san_every" -gt 0 ] && [ -x "$CS" ]; then
    grep '^san' "$list" | xargs -P 4 -I{} sh -c '
        d=$1/$2
        [ -e "$d/FAILED" ] || [ -e "$d/SKIPPED" ] && exit 0
        for tool in memcheck racecheck; do
            if [ "$5" -gt 0 ] && [ "$(date +%s)" -ge "$5" ]; then echo >"$d/SKIPPED"; exit 0; fi
            (cd "$d" && timeout -k 5 "$3" "$4" --tool $tool --error-exitcode 9 ./harness --check-only --json-only) >"$d/$tool.log" 2>&1
            echo $? >"$d/$tool.rc"
        done' sh "$out" {} "$san_timeout" "$CS" "$end"
elif [ "$san_every" -gt 0 ]; then
    echo "note: compute-sanitizer not found: no sanitizer runs"
fi
ran=$(date +%s)

# 5. Table and summary.
field() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1" 2>/dev/null | head -1; }
total=0 correct=0 failed=0 hung=0 san=0 skipped=0
printf '%-7s %-22s %-8s %s\n' seed workload status "sProgram (see DIR/replay.txt)"
i=0
while [ "$i" -lt "$n" ]; do
    seed=$((seed0 + i)); d=$out/s$seed; w=$(workload_of "$seed")
    i=$((i + 1))
    if [ -e "$d/SKIPPED" ]; then
        skipped=$((skipped + 1)); continue
    fi
    total=$((total + 1))
    what=$(head -1 "$d/replay.txt" 2>/dev/null | sed 's/^seed [0-9]* [a-z_0-9]* //')
    if [ -e "$d/FAILED" ]; then
        st=$(cat "$d/FAILED")
        failed=$((failed + 1))
        printf '%-7s %-22s %-8s %s\n' "$seed" "$w" "FAIL:$st" "$what"
        tail -n 5 "$d/$st.log" 2>/dev/null | sed 's/^/        /'
        continue
    fi
    rc=$(cat "$d/rc" 2>/dev/null || echo 1)
    ok=$(field "$d/result.json" correct)
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        hung=$((hung + 1))
        printf '%-7s %-22s %-8s %s\n' "$seed" "$w" "HUNG" "$what"
        echo "        killed after ${run_timeout}s; replay: $gen $w $seed DIR && make -C DIR run"
    elif [ "$rc" = 0 ] && [ "$ok" = true ]; then
        correct=$((correct + 1))
        [ -n "${VERBOSE:-}" ] && printf '%-7s %-22s %-8s %s\n' "$seed" "$w" "ok" "$what"
    else
        failed=$((failed + 1))
        printf '%-7s %-22s %-8s %s\n' "$seed" "$w" "WRONG" "$what"
        echo "        exit $rc, correct=$ok mismatches=$(field "$d/result.json" mismatches) max_abs_err=$(field "$d/result.json" max_abs_err): $(head -c 200 "$d/run.log")"
        echo "        replay: $gen $w $seed DIR && make -C DIR run"
    fi
done
for d in "$out"/san*; do
    [ -d "$d" ] || continue
    s=${d##*/san}
    [ -e "$d/SKIPPED" ] && [ ! -e "$d/memcheck.rc" ] && continue
    if [ -e "$d/FAILED" ]; then
        san=$((san + 1)); echo "sanitizer sample seed $s: $(cat "$d/FAILED") failed"; continue
    fi
    for tool in memcheck racecheck; do
        [ -e "$d/$tool.rc" ] || continue
        rc=$(cat "$d/$tool.rc")
        if [ "$rc" != 0 ]; then
            san=$((san + 1))
            why=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$d/$tool.log" | tail -1)
            { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && why="timed out after ${san_timeout}s (a hang under the sanitizer, or raise SAN_TIMEOUT)"
            echo "sanitizer $tool seed $s (--small): exit $rc: $why"
            echo "        replay: $gen $(workload_of "$s") $s DIR --small; log $d/$tool.log"
        fi
    done
done
echo "bundles in $out (generate+build $((built - start)) s, runs $((ran - built)) s)"
[ "$skipped" -gt 0 ] && echo "past DEADLINE_S=$deadline s: $skipped seeds not run"
echo "differential: $total run, $correct correct, $failed failed, $hung hung, $san sanitizer reports"
[ "$failed" -eq 0 ] && [ "$hung" -eq 0 ] && [ "$san" -eq 0 ]
