#!/bin/sh
# test_cli.sh — pipethreader-cli end to end: every verb's --help, exit statuses 0/1/2, one-line
# errors naming the file, every example through partition/program/validate/simulate, and the
# outputs (sProgram, trace, Chrome trace) read back.
# usage: test_cli.sh PATH/TO/pipethreader-cli
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() { # want_status description command...
    want=$1; what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -eq "$want" ]; then ok "$what"; else bad "$what (exit $got, wanted $want): $(head -c 300 "$tmp/err")"; fi
}
stderr_has() { # text description
    if grep -qF -- "$1" "$tmp/err"; then ok "$2"; else bad "$2: stderr lacks \"$1\": $(head -c 300 "$tmp/err")"; fi
}
one_line_err() {
    n=$(wc -l <"$tmp/err")
    if [ "$n" -eq 1 ]; then ok "$1: one line"; else bad "$1: $n lines on stderr"; fi
}

expect 0 "top-level --help" "$cli" --help
for v in partition program simulate validate schedule codegen profile calibrate hw examples; do
    expect 0 "$v --help" "$cli" "$v" --help
done
expect 2 "no verb" "$cli"
expect 2 "unknown verb" "$cli" frobnicate
expect 2 "unknown option" "$cli" simulate gemm_f16 --frob
expect 2 "missing graph" "$cli" simulate
expect 2 "option without value" "$cli" simulate gemm_f16 --hw
expect 1 "missing file" "$cli" partition "$tmp/nothing.json"
stderr_has "nothing.json: cannot open" "missing file named"

# Broken inputs: exit 1, one line naming the file and the place.
printf '{"name": "x", "axes": {"m": 4}, "tensors": {}, "ops": [' >"$tmp/trunc.json"
expect 1 "truncated graph" "$cli" simulate "$tmp/trunc.json"
stderr_has "trunc.json: line 1: the JSON text ends early" "truncated graph message"
one_line_err "truncated graph"
head -c 3000 /dev/urandom >"$tmp/binary.json"
expect 1 "binary graph" "$cli" partition "$tmp/binary.json"
one_line_err "binary graph"
"$cli" examples flash_attention | sed 's/"in": \["P", "V"\]/"in": ["P", "Vt"]/' >"$tmp/fa_bad.json"
expect 1 "undefined tensor" "$cli" validate "$tmp/fa_bad.json"
stderr_has 'fa_bad.json: $.ops[2].in[1]: tensor "Vt" is not defined' "undefined tensor message"
expect 1 "bad --hw" "$cli" simulate gemm_f16 --hw "$tmp/nothing.json"
expect 1 "bad --set" "$cli" simulate gemm_f16 --set Z=3
stderr_has 'no parameter "Z"' "bad --set message"
expect 1 "bad --tile" "$cli" partition gemm_f16 --tile q=4
stderr_has '"q" is not an axis of gemm_f16' "bad --tile message"
expect 2 "--tile with --program" "$cli" simulate gemm_f16 --tile m=64 --program "$tmp/x.json"

# Every example: partition, default program, validate, simulate with every output.
for ex in $("$cli" examples); do
    expect 0 "partition $ex" "$cli" partition "$ex"
    expect 0 "partition --json $ex" "$cli" partition "$ex" -o "$tmp/$ex.sg.json"
    expect 0 "program $ex" "$cli" program "$ex" -o "$tmp/$ex.prog.json"
    expect 0 "validate $ex" "$cli" validate "$ex" --program "$tmp/$ex.prog.json"
    expect 0 "simulate $ex" "$cli" simulate "$ex" --program "$tmp/$ex.prog.json" \
        -o "$tmp/$ex.trace.json" --chrome "$tmp/$ex.chrome.json" --json
    if grep -q '"predicted_time_ns": [0-9]' "$tmp/out" && grep -q '"tflops": ' "$tmp/out"; then
        ok "simulate --json summary $ex"; else bad "simulate --json summary $ex: $(cat "$tmp/out")"; fi
    if python3 -c "import json,sys; t=json.load(open(sys.argv[1])); assert any(e.get('ph')=='X' for e in t['traceEvents'])" "$tmp/$ex.chrome.json"; then
        ok "chrome trace parses $ex"; else bad "chrome trace $ex"; fi
done

# A schedule edited into a deadlock is refused with the cycle named.
"$cli" program gemm_f16 --tile wg=1 -o "$tmp/g.json"
python3 - "$tmp/g.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["waits"].append({"stask": "load.A", "on": "mma.C", "distance": 0})
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
expect 1 "deadlock refused" "$cli" validate gemm_f16 --program "$tmp/g.json"
stderr_has "deadlock" "deadlock named"
expect 1 "deadlock refused by simulate" "$cli" simulate gemm_f16 --program "$tmp/g.json"

# Shared-memory overflow.
"$cli" program gemm_f16 -o "$tmp/s.json"
sed -i 's/"A": 3/"A": 9/' "$tmp/s.json"
expect 1 "smem overflow refused" "$cli" validate gemm_f16 --program "$tmp/s.json"
stderr_has "shared memory" "smem overflow named"

# The graph named by the program must match.
expect 1 "program for another graph" "$cli" validate flash_attention --program "$tmp/g.json"

# The automatic scheduler: its best sProgram validates and simulates; usage errors exit 2.
expect 0 "schedule flash_attention" "$cli" schedule flash_attention -q --top 3 -o "$tmp/fa.sched.json"
expect 0 "scheduled program validates" "$cli" validate flash_attention --program "$tmp/fa.sched.json"
expect 0 "schedule gemm --target sm90a" "$cli" schedule gemm_f16 -q --target sm90a -o "$tmp/g.sched.json"
expect 0 "scheduled gemm generates" "$cli" codegen gemm_f16 --program "$tmp/g.sched.json" --target sm90a -o "$tmp/g.bundle"
expect 2 "schedule --top 0" "$cli" schedule gemm_f16 --top 0
expect 2 "schedule --target bogus" "$cli" schedule gemm_f16 --target bogus
expect 2 "schedule --budget -1" "$cli" schedule gemm_f16 --budget -1

# Output cannot be written: exit 1, nothing crashes.
expect 1 "unwritable output" "$cli" program gemm_f16 -o /nonexistent-dir/p.json

echo "$fails failed"
[ "$fails" -eq 0 ]
