#!/usr/bin/env bash
# test_gui.sh — the explorer end to end (suite 'gui'), through `pipethreader --screenshot`.
#   usage: test_gui.sh PIPETHREADER PNG_CHECK [EXAMPLE…]
# Without a display it re-runs itself under Xvfb (skip, 77, when xvfb-run is missing).
# Checks: every embedded example opens, simulates and renders to a PNG that decodes and is not
# blank; selecting an sTask fills the inspector; a broken file, a file that does not exist and a graph that is not a graph each show
# their one-line error in the window (printed as "error: …"), still write a screenshot and exit
# 1 with the message on stderr (the app never crashes on bad input); the PNG is exactly --size;
# bad options are refused with exit 2.
set -u
app=$1 check=$2
shift 2
if [ -z "${DISPLAY:-}" ] && [ -z "${PT_GUI_TEST_UNDER_XVFB:-}" ]; then
    if ! command -v xvfb-run >/dev/null; then
        echo "test_gui: SKIP: no display and no xvfb-run (install xvfb xauth)"
        exit 77
    fi
    export PT_GUI_TEST_UNDER_XVFB=1
    exec xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$app" "$check" "$@"
fi
export GDK_BACKEND=x11 GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
    examples=(gemm_f16 gemm_bf16 flash_attention flash_decoding flash_decoding_combine
              mamba2_chunk_scan mamba2_chunk_state gemm_w4a16 gemm_wfp4a16)
fi

# Every example renders (not blank) and reports a simulated kernel.
for ex in "${examples[@]}"; do
    out=$tmp/$ex.png
    if ! timeout 60 "$app" --screenshot "$out" --size 1200x800 "$ex" >"$tmp/$ex.log" 2>&1; then
        fail "$ex: pipethreader --screenshot exited $?"; cat "$tmp/$ex.log"; continue
    fi
    grep -q '^error:' "$tmp/$ex.log" && { fail "$ex: error shown"; cat "$tmp/$ex.log"; }
    grep -q "kernel .* µs" "$tmp/$ex.log" || { fail "$ex: no simulated summary"; cat "$tmp/$ex.log"; }
    # Exactly the size asked for, in the log and in the PNG's header.
    grep -q "^screenshot: .* (1200x800)$" "$tmp/$ex.log" || { fail "$ex: not 1200x800"; cat "$tmp/$ex.log"; }
    dims=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]))' "$out")
    [ "$dims" = 1200x800 ] || fail "$ex: the PNG is $dims, not 1200x800"
    # No "0 TFLOP/s" or "1 iterations" for an operator without a matmul or with one iteration.
    grep -Eq " 0 TFLOP/s|[^0-9]1 iterations" "$tmp/$ex.log" && { fail "$ex: summary wording"; cat "$tmp/$ex.log"; }
    if res=$(python3 "$check" "$out" 600 400); then
        echo "ok: $ex: $res"
    else
        fail "$ex: $res"
    fi
done

# Every hardware model.
for hw in H100 MI300X; do
    if timeout 60 "$app" --screenshot "$tmp/hw.png" --size 1000x700 --hw "$hw" gemm_f16 >"$tmp/hw.log" 2>&1 &&
        grep -q " on $hw " "$tmp/hw.log" && python3 "$check" "$tmp/hw.png" >/dev/null; then
        echo "ok: gemm_f16 on $hw"
    else
        fail "gemm_f16 on $hw"; cat "$tmp/hw.log"
    fi
done

# Selecting an sTask (as a click on a bar or a table row does) fills the inspector; an unknown
# id is an error shown in the window (exit 1), not a crash.
if timeout 60 "$app" --screenshot "$tmp/sel.png" --size 1200x800 --select mma.S.wg0 flash_attention \
        >"$tmp/sel.log" 2>&1 && grep -q '^inspector: mma.S.wg0' "$tmp/sel.log" &&
        grep -q '^predicted: [1-9][0-9]* instances, mean' "$tmp/sel.log" &&
        grep -q '^deps: load.Q load.K' "$tmp/sel.log"; then
    echo "ok: --select mma.S.wg0 fills the inspector"
else
    fail "--select mma.S.wg0"; cat "$tmp/sel.log"
fi
timeout 60 "$app" --screenshot "$tmp/sel.png" --size 1200x800 --select no.such flash_attention \
    >"$tmp/sel.log" 2>&1
sel_rc=$? # an error shown is exit 1, like a broken file
if [ $sel_rc -eq 1 ] && grep -q "^error: no sTask 'no.such'" "$tmp/sel.log"; then
    echo "ok: --select no.such is an error in the window"
else
    fail "--select no.such"; cat "$tmp/sel.log"
fi

# The sTask-graph page renders (not blank, and not the timeline page).
if timeout 60 "$app" --screenshot "$tmp/graph.png" --size 1200x800 --page graph flash_attention \
        >"$tmp/graph.log" 2>&1 && ! grep -q '^error:' "$tmp/graph.log" &&
        res=$(python3 "$check" "$tmp/graph.png" 600 400) &&
        timeout 60 "$app" --screenshot "$tmp/tl.png" --size 1200x800 flash_attention >/dev/null 2>&1 &&
        ! cmp -s "$tmp/graph.png" "$tmp/tl.png"; then
    echo "ok: --page graph flash_attention: $res"
else
    fail "--page graph flash_attention"; cat "$tmp/graph.log"
fi

# Issue 18: the inspector names what the selected sTask's lane waits for (a free ring stage):
# the FlashAttention example with one stage per ring, so V's loads wait for their ring.
here=$(cd "$(dirname "$0")/../.." && pwd)
sed 's/"stages": 2}/"stages": 1}/' "$here/examples/flash_attention.json" >"$tmp/fa_one_stage.json"
if timeout 60 "$app" --screenshot "$tmp/fa18.png" --size 1200x800 --select load.V "$tmp/fa_one_stage.json" \
        >"$tmp/fa18.log" 2>&1 &&
        grep -qE '^longest idle gap before it: load\.V\[[0-9]+\] waits [0-9]+ ns for a free stage of ring V \(stage [0-9]+ of [0-9]+, released by mma\.O\.wg[01]\[[0-9]+\] on tc\.wg[01]\)' "$tmp/fa18.log"; then
    echo "ok: inspector: the idle gap's reason (ring stage)"
else
    fail "inspector: idle gap reason"; cat "$tmp/fa18.log"
fi

# A profiled trace (v2, recorded on an H200): its graph is loaded with the default sProgram,
# the measured spans of the first sampled CTA are drawn over the prediction, the summary gives
# the measured kernel time and the inspector the per-sTask error.
trace=tests/fixtures/gemm_f16_2048.trace.json
if [ -f "$trace" ]; then
    if timeout 60 "$app" --screenshot "$tmp/trace.png" --size 1200x800 --select load.B "$trace" \
            >"$tmp/trace.log" 2>&1 && ! grep -q '^error:' "$tmp/trace.log" &&
            grep -q '^gemm_f16 on H200 .*measured kernel [0-9.]* µs' "$tmp/trace.log" &&
            grep -q 'measured bars: CTA [0-9]*, [1-9][0-9]* spans' "$tmp/trace.log" &&
            grep -q '^measured: mean span [0-9.]* ns' "$tmp/trace.log" &&
            grep -q '^prediction error: [-+][0-9.]*% = ([0-9.]* - [0-9.]*) / [0-9.]*' "$tmp/trace.log" &&
            grep -q 'the trace does not name its parameters or sProgram' "$tmp/trace.log" &&
            python3 - "$tmp/trace.log" <<'PY' &&
# issue 18: the inspector's error is (predicted - measured) / measured of the numbers it shows
import re, sys
t = open(sys.argv[1]).read()
e, p, m = re.search(r'^prediction error: ([-+][0-9.]+)% = \(([0-9.]+) - ([0-9.]+)\)', t, re.M).groups()
assert abs(float(e) - (float(p) - float(m)) / float(m) * 100) < 0.1, (e, p, m)
PY
            res=$(python3 "$check" "$tmp/trace.png" 600 400); then
        echo "ok: $trace: measured overlay: $res"
    else
        fail "$trace: measured overlay"; cat "$tmp/trace.log"
    fi
fi

# Issue 18: the "Measured" page — one row per sTask, sorted worst-predicted first, each error
# (predicted - measured) / measured of the two means in its row; the sample and busy per lane.
if [ -f "$trace" ]; then
    if timeout 60 "$app" --screenshot "$tmp/cmp.png" --size 1200x800 --page compare "$trace" \
            >"$tmp/cmp.log" 2>&1 && ! grep -q '^error:' "$tmp/cmp.log" &&
            grep -q '^compare: Sample: 8 CTAs (blocks 0, 16, 32' "$tmp/cmp.log" &&
            grep -q '^Busy per lane (predicted, unit, measured):  tma ' "$tmp/cmp.log" &&
            python3 - "$tmp/cmp.log" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.count(" | ") == 9]
assert len(lines) == 7, lines
def ns(t):
    v, u = t.split()
    return float(v) * (1000 if u == "µs" else 1)
errs = []
for l in lines:
    c = l.split(" | ")
    p, m, e = ns(c[2]), ns(c[3]), float(c[6].rstrip("%"))
    assert abs(e - (p - m) / m * 100) < 0.2, l
    errs.append(abs(e))
assert errs == sorted(errs, reverse=True), errs
PY
    then
        echo "ok: the Measured page: per-sTask table, errors one way, sorted"
    else
        fail "the Measured page"; cat "$tmp/cmp.log"
    fi
fi

# Broken inputs: the error is shown in the window and the screenshot of it written, but the exit
# status is 1 with the message on stderr (issue 19: a broken file must not pass for a good one).
printf '{"name": "broken", "axes": [' >"$tmp/broken.json"
printf '{"name": "not_a_graph", "ops": 42}' >"$tmp/wrong.json"
head -c 3000 /dev/urandom >"$tmp/random.json"
for f in "$tmp/broken.json" "$tmp/wrong.json" "$tmp/random.json" "$tmp/missing.json"; do
    name=$(basename "$f")
    timeout 60 "$app" --screenshot "$tmp/err.png" --size 1000x700 "$f" >"$tmp/err.log" \
        2>"$tmp/err.stderr"
    rc=$?
    if [ $rc -ne 1 ]; then
        fail "$name: exit $rc (expected 1)"; cat "$tmp/err.log"; continue
    fi
    if ! grep -q "$name" "$tmp/err.stderr"; then
        fail "$name: no message on stderr"; cat "$tmp/err.stderr"; continue
    fi
    line=$(grep -m1 '^error: ' "$tmp/err.log")
    if [ -z "$line" ] || ! grep -q "$name" <<<"$line"; then
        fail "$name: no one-line error naming the file"; cat "$tmp/err.log"; continue
    fi
    if ! python3 "$check" "$tmp/err.png" >/dev/null; then
        fail "$name: no screenshot of the window showing the error"; continue
    fi
    echo "ok: $name: $line"
done

# Refusals.
for args in "--size 10x10 --screenshot $tmp/x.png gemm_f16" "--bogus" "--screenshot $tmp/x.png"; do
    # shellcheck disable=SC2086
    timeout 30 "$app" $args >/dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] && echo "ok: refused: $args" || fail "'$args' exited $rc (expected 2)"
done

if [ $fails -ne 0 ]; then
    echo "test_gui: $fails failures"
    exit 1
fi
echo "test_gui: all passed"
