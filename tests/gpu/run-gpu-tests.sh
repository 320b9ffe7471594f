#!/bin/sh
# run-gpu-tests.sh CLI [VARIANTS] [OUTDIR] — on the GPU machine: for every variant, write the
# sm90a bundle (pipethreader-cli codegen), build it with its Makefile, run ./harness --json-only
# (every output element checked against the f32 reference, then timed), collect the JSON lines
# into OUTDIR/results.jsonl, print a table, and exit 1 if any variant fails to build, run or
# check.
#
# VARIANTS (default tests/codegen/variants.txt): one variant per line,
#     name  graph  set  tile  [edits]
# set: --set value (P=V,...) or -; tile: --tile value or -; edits: - or a Python dict literal
# merged into the default sProgram's JSON (as in tests/codegen/variants.txt), e.g.
# {"stages":{"A":4,"B":4},"partition":{"persistent":True}}. Edits need python3.
# Then every line of RANGES (default tests/gpu/input-ranges.txt: "name harness-options...") whose
# variant was built runs that variant once more, check only, with those options (inputs drawn
# from other ranges: --range or --cumsum NAME=LO:HI), as row "name+ranges".
# Environment: HARNESS_ARGS (extra harness options, e.g. "--iters 100"), RUN_TIMEOUT (seconds
# per harness run, default 120: a hung kernel is a failure, not a hung test), JOBS (parallel
# builds, default: the number of CPUs), NVCC, CUDA_PATH (passed to make).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cli=${1:?usage: run-gpu-tests.sh CLI [VARIANTS] [OUTDIR]}
variants=${2:-$here/../codegen/variants.txt}
out=${3:-$(mktemp -d /tmp/pt-gpu-tests.XXXXXX)}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
[ -x "$cli" ] || { echo "run-gpu-tests: $cli is not an executable" >&2; exit 2; }
[ -r "$variants" ] || { echo "run-gpu-tests: cannot read $variants" >&2; exit 2; }
mkdir -p "$out" || exit 2
results=$out/results.jsonl
: >"$results"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
timeout_s=${RUN_TIMEOUT:-120}
make_vars=""
[ -n "${NVCC:-}" ] && make_vars="$make_vars NVCC=$NVCC"
[ -n "${CUDA_PATH:-}" ] && make_vars="$make_vars CUDA_PATH=$CUDA_PATH"
fails=0
names=""

# 1. Generate every bundle (fast, sequential).
while read -r name graph set tile edits; do
    case "$name" in ''|'#'*) continue ;; esac
    dir=$out/$name
    mkdir -p "$dir"
    names="$names $name"
    "$here/../codegen/make-variant.sh" "$cli" "$out" "$name" "$graph" "$set" "$tile" "${edits:--}" \
        >"$dir/generate.log" 2>&1 || echo "generate" >"$dir/FAILED"
done <"$variants"
[ -n "$names" ] || { echo "run-gpu-tests: no variants in $variants" >&2; exit 2; }

# 2. Build them in parallel (nvcc is the slow part).
for name in $names; do
    [ -e "$out/$name/FAILED" ] || echo "$name"
done | xargs -P "$jobs" -I{} sh -c \
    'make -C "$1/$2" $3 all >"$1/$2/build.log" 2>&1 || echo build >"$1/$2/FAILED"' \
    sh "$out" {} "$make_vars"

# 3. Run them one at a time (each owns the GPU while timed).
field() { # json key -> value (numbers, true/false/null)
    sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1" | head -1
}
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout $timeout_s"
printf '%-32s %-8s %10s %10s %10s %10s %8s\n' variant correct mismatch max_abs rel_err ms tflops
for name in $names; do
    dir=$out/$name
    if [ -e "$dir/FAILED" ]; then
        what=$(cat "$dir/FAILED")
        printf '%-32s %-8s %s\n' "$name" "FAILED" "($what: see $dir/$what.log)"
        tail -n 5 "$dir/$what.log" | sed 's/^/    /'
        printf '{"variant": "%s", "error": "%s"}\n' "$name" "$what" >>"$results"
        fails=$((fails + 1))
        continue
    fi
    # shellcheck disable=SC2086
    (cd "$dir" && $tmo ./harness --json-only ${HARNESS_ARGS:-}) >"$dir/result.json" 2>"$dir/run.log"
    rc=$?
    if [ ! -s "$dir/result.json" ]; then
        why="exit $rc"
        [ "$rc" -eq 124 ] && why="timed out after ${timeout_s}s (hang?)"
        printf '%-32s %-8s %s\n' "$name" "FAILED" "(run: $why: $(head -c 300 "$dir/run.log"))"
        printf '{"variant": "%s", "error": "run", "status": %d}\n' "$name" "$rc" >>"$results"
        fails=$((fails + 1))
        continue
    fi
    sed "s/^{/{\"variant\": \"$name\", /" "$dir/result.json" >>"$results"
    correct=$(field "$dir/result.json" correct)
    printf '%-32s %-8s %10s %10s %10s %10s %8s\n' "$name" "$correct" \
        "$(field "$dir/result.json" mismatches)" "$(field "$dir/result.json" max_abs_err)" \
        "$(field "$dir/result.json" rel_err)" "$(field "$dir/result.json" time_ms_median)" \
        "$(field "$dir/result.json" tflops)"
    if [ "$rc" -ne 0 ] || [ "$correct" != "true" ]; then
        fails=$((fails + 1))
    fi
done
# 4. The variants again on inputs from other ranges, check only.
ranges=${RANGES:-$here/input-ranges.txt}
if [ -r "$ranges" ]; then
    while read -r name args; do
        case "$name" in ''|'#'*) continue ;; esac
        case " $names " in *" $name "*) ;; *) continue ;; esac
        dir=$out/$name
        [ -e "$dir/FAILED" ] && continue
        # shellcheck disable=SC2086
        (cd "$dir" && $tmo ./harness --check-only --json-only $args) >"$dir/ranges.json" 2>"$dir/ranges.log"
        rc=$?
        correct=$(field "$dir/ranges.json" correct)
        printf '%-32s %-8s %10s %10s %10s   (%s)\n' "$name+ranges" "${correct:-FAILED}" \
            "$(field "$dir/ranges.json" mismatches)" "$(field "$dir/ranges.json" max_abs_err)" \
            "$(field "$dir/ranges.json" rel_err)" "$args"
        [ -s "$dir/ranges.json" ] && sed "s/^{/{\"variant\": \"$name+ranges\", /" "$dir/ranges.json" >>"$results"
        if [ "$rc" -ne 0 ] || [ "$correct" != "true" ]; then
            [ -s "$dir/ranges.json" ] || head -c 300 "$dir/ranges.log"
            fails=$((fails + 1))
        fi
    done <"$ranges"
fi
echo "results: $results"
[ "$fails" -eq 0 ] || { echo "$fails variant(s) failed"; exit 1; }
echo "all variants correct"
