#!/bin/sh
# test_profile_cli.sh CLI GEN_FAKE_PROFILE — the profile verb on a machine without a GPU: its
# usage errors, the one-line "which is missing" refusal, and, through fake --remote commands
# that answer like pt-run.sh (the contract in traces/runner.h), the whole path from the reply
# to the trace and Chrome files: success, wrong results, a fault, a hang (the watchdog kills
# the process group), a corrupt or cut trace, a failed build, a command that ignores the
# contract. Temporary files must be gone afterwards.
set -u
cli=$1 gen=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
run() { # want_status description command...
    want=$1; what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -eq "$want" ]; then ok "$what"; else bad "$what (exit $got, wanted $want): $(head -c 400 "$tmp/err")"; fi
}
err_has() { if grep -qF -- "$1" "$tmp/err"; then ok "$2"; else bad "$2: stderr lacks \"$1\": $(head -c 400 "$tmp/err")"; fi; }
out_has() { if grep -qF -- "$1" "$tmp/out"; then ok "$2"; else bad "$2: stdout lacks \"$1\": $(head -c 400 "$tmp/out")"; fi; }
one_line() { n=$(wc -l <"$tmp/err"); if [ "$n" -eq 1 ]; then ok "$1: one line"; else bad "$1: $n lines on stderr: $(head -c 400 "$tmp/err")"; fi; }

mkdir -p "$tmp/tmpd"
TMPDIR=$tmp/tmpd
export TMPDIR
G="gemm_f16 --set M=512,N=512,K=512"

run 0 "profile --help" "$cli" profile --help
run 2 "profile without -o" "$cli" profile gemm_f16
run 2 "profile --timeout 0" "$cli" profile gemm_f16 -o "$tmp/x.json" --timeout 0
run 2 "profile --remote ''" "$cli" profile gemm_f16 -o "$tmp/x.json" --remote ''
run 2 "--remote on another verb" "$cli" simulate gemm_f16 --remote x

# No GPU here: one line saying which is missing, nothing written.
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "skip the no-GPU refusal: this machine has a GPU"
else
    run 1 "profile without a GPU" "$cli" profile gemm_f16 -o "$tmp/x.json"
    one_line "profile without a GPU"
    if grep -qE "no NVIDIA driver \(libcuda.so.1 not found\)|no GPU \(nvidia-smi -L lists none\)|nvcc not found|make not found" "$tmp/err"; then
        ok "says which is missing: $(cat "$tmp/err")"
    else bad "no-GPU message: $(cat "$tmp/err")"; fi
    [ ! -e "$tmp/x.json" ] && ok "no trace written" || bad "a trace was written without a GPU"
fi

# Fake replies of a GPU machine.
fk=$tmp/fake
"$gen" gemm_f16 M=512,N=512,K=512 "$fk" || { echo "FAIL gen_fake_profile"; exit 1; }
# shellcheck disable=SC2086
run 0 "profile through a fake remote" "$cli" profile $G -o "$tmp/t.json" --chrome "$tmp/c.json" \
    --remote "cat >/dev/null; cat '$fk/reply.txt'"
out_has "kernel time: predicted" "summary: kernel time"
out_has "overhead +7.8%" "summary: instrumentation overhead"
out_has "worst-predicted sTasks" "summary: worst sTasks"
out_has "first record 15.00 us after its start" "summary: placed on the CUPTI span"
out_has "tc.wg1" "summary: per-lane busy"
if command -v python3 >/dev/null 2>&1; then
    if python3 - "$tmp/t.json" "$tmp/c.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
assert t["format"] == "pipethreader.trace" and t["version"] == 2
m = t["measured"]
assert m["build"] == "instrumented" and m["origin"] == "cupti_kernel_start", m["origin"]
assert len(m["ctas"]) == 2 and all(len(c["spans"]) > 0 for c in m["ctas"])
lanes = len(t["lanes"])
for c in m["ctas"]:
    assert {s[1] for s in c["spans"]} == set(range(lanes)), "a lane without spans"
k = m["kernel"]
assert k["cupti"]["registers"] == 168 and abs(k["overhead_pct"] - 7.84) < 0.1
a = t["alignment"]
assert len(a["stasks"]) == len(t["stasks"]) and len(a["lanes"]) == lanes
for s in a["stasks"]:
    assert s["error_pct"] is not None and abs(s["error_pct"]) < 1, s
c = json.load(open(sys.argv[2]))["traceEvents"]
procs = [e["args"]["name"] for e in c if e["ph"] == "M" and e["name"] == "process_name"]
assert procs == ["EU 0 (predicted)", "CTA 0 on SM 10 (measured)", "CTA 4 on SM 17 (measured)"], procs
x = [e for e in c if e["ph"] == "X"]
assert len(x) == len(t["predicted"]["spans"]) + sum(len(c["spans"]) for c in m["ctas"])
print("ok")
PY
    then ok "trace and Chrome files hold both timelines"; else bad "trace/Chrome content: $(cat "$tmp/py")"; fi
else
    grep -q '"measured": {"build": "instrumented"' "$tmp/t.json" && ok "trace has the measured side" ||
        bad "trace lacks the measured side"
fi

# The tar stream follows the contract: a flat bundle with pt-run.sh, which sh can parse.
# shellcheck disable=SC2086
run 0 "the remote gets the bundle as a tar stream" "$cli" profile $G -q -o "$tmp/t2.json" --remote \
    "d=\$(mktemp -d) && tar -xf - -C \"\$d\" && test -f \"\$d/pt-run.sh\" && test -f \"\$d/kernel.cu\" && test -f \"\$d/Makefile\" && test -f \"\$d/harness.c\" && sh -n \"\$d/pt-run.sh\" && cat '$fk/reply.txt'; s=\$?; rm -rf \"\$d\"; exit \$s"

# shellcheck disable=SC2086
run 1 "wrong results" "$cli" profile $G -o "$tmp/w.json" --remote "cat >/dev/null; cat '$fk/reply_wrong.txt'"
err_has "wrong results: 1234 of 262144 elements differ (max abs err 3.5)" "wrong results message"
one_line "wrong results"
[ ! -e "$tmp/w.json" ] && ok "wrong results: nothing saved" || bad "wrong results were saved"

# shellcheck disable=SC2086
run 1 "corrupt trace buffer" "$cli" profile $G -o "$tmp/b.json" --remote "cat >/dev/null; cat '$fk/reply_badmagic.txt'"
err_has "header.magic: 0x1122334455667788 is not a PipeThreader trace buffer" "corrupt trace message"
one_line "corrupt trace"
# shellcheck disable=SC2086
run 1 "cut trace" "$cli" profile $G -o "$tmp/b.json" --remote "cat >/dev/null; cat '$fk/reply_cut.txt'"
err_has "the transfer was cut" "cut trace message"
one_line "cut trace"

# shellcheck disable=SC2086
run 1 "illegal address" "$cli" profile $G -o "$tmp/f.json" --remote "cat >/dev/null; echo 'PT-STEP time' >&2; echo 'harness: cuStreamSynchronize(timing) failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered, code 700)' >&2; cat '$fk/reply_fault.txt'"
err_has "profile gemm_f16 (default sProgram, kernel" "fault message names what was running"
err_has "the harness failed (exit 1) while timing the kernel: harness: cuStreamSynchronize(timing) failed: CUDA_ERROR_ILLEGAL_ADDRESS" "fault message"
one_line "illegal address"

start=$(date +%s)
# shellcheck disable=SC2086
run 1 "hang" "$cli" profile $G -o "$tmp/h.json" --timeout 1 --remote "cat >/dev/null; echo 'PT-PHASE build'; echo 'PT-PHASE run'; echo 'PT-STEP trace-time' >&2; sleep 47; echo done"
took=$(( $(date +%s) - start ))
err_has "timed out after 1 s: the kernel hung (mbarrier deadlock?) while timing the instrumented kernel" "hang message"
one_line "hang"
[ "$took" -le 30 ] && ok "the watchdog fired ($took s)" || bad "the watchdog took $took s"
sleep 1
if ps -eo args 2>/dev/null | grep -q '^sleep 47$'; then bad "the hung command's process group survived"; else ok "the hung command's process group was killed"; fi

# shellcheck disable=SC2086
run 1 "build failure" "$cli" profile $G -o "$tmp/f.json" --remote "cat >/dev/null; echo 'PT-PHASE build'; echo 'kernel.cu(12): error: identifier \"x\" is undefined' >&2; echo 'PT-BUILD-FAILED'; exit 1"
err_has "the build failed (through --remote): kernel.cu(12): error: identifier" "build failure message"
one_line "build failure"

# shellcheck disable=SC2086
run 1 "a command that ignores the contract" "$cli" profile $G -o "$tmp/f.json" --remote "cat >/dev/null; echo hello; exit 5"
err_has "the remote command exited with status 5 without running pt-run.sh" "contract message"
one_line "contract"

left=$(ls -A "$tmp/tmpd")
[ -z "$left" ] && ok "no temporary files left" || bad "temporary files left: $left"

echo "$fails failed"
[ "$fails" -eq 0 ]
