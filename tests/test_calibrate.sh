#!/bin/sh
# test_calibrate.sh — the calibrate verb and its benchmark.
# usage: test_calibrate.sh smoke PATH/TO/pipethreader-cli
#          a saved result (tests/fixtures/calibrate-result.json, synthetic numbers) -> calibrate
#          --from -> the model loads (hw FILE) and simulates (--hw FILE); malformed results are
#          one-line errors with exit 1; failed or missing measurements are warnings and the base
#          value stays; without --from on a machine with no GPU: exit 1 naming what is missing.
#        test_calibrate.sh compile [NVCC]
#          bench/micro/calibrate.cu compiles and links for sm_90a with every warning an error,
#          no spills, no serialised wgmma, and the PTX holds the instructions it claims to time.
#          Skips (77) without nvcc.
set -u
mode=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
finish() {
    if [ "$fails" -eq 0 ]; then echo "all passed"; exit 0; fi
    echo "$fails failed"; exit 1
}

if [ "$mode" = compile ]; then
    NVCC=${2:-}
    [ -n "$NVCC" ] || NVCC=${NVCC_ENV:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    [ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
    . "$(dirname "$0")/cuda-root.sh"
    CUDA=$(cuda_root "$NVCC")
    src=bench/micro/calibrate.cu
    if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Werror all-warnings \
            -o "$tmp/calibrate" "$src" -L"$CUDA/lib64/stubs" -L"$CUDA/lib64" -lcuda \
            >"$tmp/build.txt" 2>&1; then
        ok "calibrate.cu compiles and links (nvcc -Werror all-warnings)"
    else
        bad "calibrate.cu: $(head -c 1500 "$tmp/build.txt")"
        finish
    fi
    if grep -E "spill (stores|loads)" "$tmp/build.txt" | grep -vq "0 bytes spill stores, 0 bytes spill loads"; then
        bad "spills: $(grep spill "$tmp/build.txt" | grep -v ' 0 bytes spill stores' | head -3)"
    else
        ok "no register spills"
    fi
    if grep -qE "C7515|C7510|C7508" "$tmp/build.txt"; then
        bad "ptxas serialised wgmma: $(grep -E 'C75' "$tmp/build.txt" | head -3)"
    else
        ok "no serialised wgmma (C7515/C7510)"
    fi
    if "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -ptx -o "$tmp/calibrate.ptx" "$src" \
            >"$tmp/ptx.txt" 2>&1; then
        for ins in cp.async.bulk.tensor.2d.shared::cluster.global.tile \
                   cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group \
                   mbarrier.try_wait.parity \
                   wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 \
                   wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 \
                   wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 \
                   ex2.approx.ftz.f32 cvt.rn.f16x2.f32 fma.rn.f16x2 cvt.rn.bf16x2.f32 mul.rn.bf16x2 shfl.sync.up.b32 \
                   st.volatile.shared.v4.f32 bar.sync %globaltimer %clock64; do
            if grep -qF -- "$ins" "$tmp/calibrate.ptx"; then ok "PTX has $ins"; else bad "PTX lacks $ins"; fi
        done
    else
        bad "calibrate.cu -ptx: $(head -c 800 "$tmp/ptx.txt")"
    fi
    # The program's own argument check, where it can start (it needs the driver's libcuda).
    if "$tmp/calibrate" --frob >"$tmp/out" 2>"$tmp/err"; then got=0; else got=$?; fi
    if [ "$got" -eq 127 ] || grep -q "libcuda" "$tmp/err"; then
        ok "calibrate --frob: skipped (no CUDA driver here to start the program)"
    elif [ "$got" -eq 2 ] && grep -q usage "$tmp/err"; then
        ok "calibrate --frob: usage, exit 2"
    else
        bad "calibrate --frob: exit $got: $(head -c 300 "$tmp/err")"
    fi
    finish
fi

[ "$mode" = smoke ] || { echo "usage: $0 smoke CLI | compile [NVCC]"; exit 2; }
cli=$2
fixture=tests/fixtures/calibrate-result.json

expect() { # want_status description command...
    want=$1; what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -eq "$want" ]; then ok "$what"; else bad "$what (exit $got, wanted $want): $(head -c 400 "$tmp/err")"; fi
}
stderr_has() { # text description
    if grep -qF -- "$1" "$tmp/err"; then ok "$2"; else bad "$2: stderr lacks \"$1\": $(head -c 400 "$tmp/err")"; fi
}
file_has() { # file text description
    if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3: $1 lacks \"$2\""; fi
}
one_line_err() {
    n=$(wc -l <"$tmp/err")
    if [ "$n" -eq 1 ]; then ok "$1: one line"; else bad "$1: $n lines on stderr: $(head -c 400 "$tmp/err")"; fi
}
# A variant of the fixture: sed expression, output name.
variant() { sed "$1" "$fixture" >"$tmp/$2"; }

expect 0 "calibrate --help" "$cli" calibrate --help
expect 2 "calibrate without -o" "$cli" calibrate --from "$fixture"
expect 2 "calibrate with a stray argument" "$cli" calibrate gemm_f16 --from "$fixture" -o "$tmp/m.json"
expect 2 "calibrate --timeout 0" "$cli" calibrate --from "$fixture" -o "$tmp/m.json" --timeout 0
expect 2 "calibrate --timeout 5 (under 10 s)" "$cli" calibrate --from "$fixture" -o "$tmp/m.json" --timeout 5
expect 1 "calibrate --hw FILE (not a builtin)" "$cli" calibrate --hw "$fixture" --from "$fixture" -o "$tmp/m.json"
one_line_err "--hw FILE"
expect 1 "calibrate --hw MI300X (not NVIDIA)" "$cli" calibrate --hw MI300X --from "$fixture" -o "$tmp/m.json"
one_line_err "--hw MI300X"
expect 1 "calibrate --from a missing file" "$cli" calibrate --from "$tmp/nothing.json" -o "$tmp/m.json"
stderr_has "nothing.json" "missing result named"
one_line_err "missing result"

# The fixture converts; the model loads, names its base and sources, and simulates.
m=$tmp/model.json
expect 0 "calibrate --from fixture" "$cli" calibrate --from "$fixture" -o "$m"
file_has "$tmp/out" "wrote $m: H200-calibrated" "summary line"
file_has "$m" '"base":	"H200"' "model overrides H200"
file_has "$m" '"name":	"H200-calibrated"' "model name"
file_has "$m" "calibrated on NVIDIA H200 (synthetic) 2026-12-01T12:00:00Z by pipethreader-cli calibrate" "model source names device and date"
for kind in load store softmax_max softmax_exp softmax_sum rescale normalize elementwise reduce \
            dequant cumsum exp_decay fill convert; do
    file_has "$m" "\"kind\":	\"$kind\"" "cost entry $kind"
done
for dt in f16 bf16 fp8-e4m3 f32; do
    file_has "$m" "\"dtype\":	\"$dt\"" "mma entry $dt"
done
file_has "$m" '"barrier_ns":	58.6' "barrier_ns from the mbarrier hand-off"
# the factored decay's work fractions are kernel-level fits: kept from the base model, not derived
# from the pieces (exp_decay 26.9 / (16 x decay_cols 3.3625) would say 0.5)
if grep -q '"decay_factored_' "$m"; then bad "the factored decay's work fractions were derived from pieces"
else ok "the factored decay's work fractions kept from the base model"; fi
file_has "$m" '"issue_ns":	13.8' "TMA issue_ns"
file_has "$m" '"rate":	56.9' "load rate = L2 re-read rate of the largest tiles"
file_has "$m" '"rate":	6930' "f16 mma rate = best configuration"
file_has "$m" 'mostly hit L2' "load source explains the L2 choice"
n_src=$(grep -c '"source":' "$m"); n_kind=$(grep -c '"kind":' "$m")
if [ "$n_src" -gt "$n_kind" ]; then ok "every cost entry has a source ($n_kind entries, $n_src sources)"; else bad "sources: $n_src for $n_kind entries"; fi
expect 0 "hw FILE loads the model" "$cli" hw "$m"
file_has "$tmp/out" '"name":	"H200-calibrated"' "hw prints the calibrated model"
file_has "$tmp/out" '"clock_ghz":	1.755' "hw shows the measured clock"
expect 0 "simulate gemm_f16 --hw FILE --json" "$cli" simulate gemm_f16 --hw "$m" --json
file_has "$tmp/out" '"hw": "H200-calibrated"' "simulate uses the calibrated model"
expect 0 "simulate flash_attention --hw FILE" "$cli" simulate flash_attention --hw "$m" --json
expect 0 "simulate gemm_w4a16 --hw FILE (int4 dequant)" "$cli" simulate gemm_w4a16 --hw "$m" --json
expect 0 "simulate mamba2_chunk_scan --hw FILE (cumsum, exp_decay)" "$cli" simulate mamba2_chunk_scan --hw "$m" --json
expect 0 "calibrate --hw H100 --from fixture" "$cli" calibrate --hw h100 --from "$fixture" -o "$tmp/h100.json"
file_has "$tmp/h100.json" '"name":	"H100-calibrated"' "H100 base"
expect 0 "hw H100-calibrated loads" "$cli" hw "$tmp/h100.json"

# Malformed results: exit 1, one line naming the file and the place.
check_bad() { # sed-expr name message-part description
    variant "$1" "$2"
    expect 1 "$4" "$cli" calibrate --from "$tmp/$2" -o "$tmp/bad-out.json"
    stderr_has "$3" "$4: message"
    one_line_err "$4"
    if [ -e "$tmp/bad-out.json" ]; then bad "$4: wrote a model anyway"; rm -f "$tmp/bad-out.json"; fi
}
check_bad 's/"pipethreader.calibration"/"pipethreader.hw"/' fmt.json 'is a hardware model, expected a calibration result' "wrong format"
check_bad '/"sm_count"/d' nosms.json '$: missing "sm_count"' "missing sm_count"
check_bad 's/"sm_count": 132/"sm_count": "132"/' strsms.json 'sm_count' "sm_count as a string"
check_bad '0,/"bytes_per_ns_per_sm": 33.6/s//"bytes_per_ns_per_sm": -33.6/' negrate.json '$.tma.tiles[0].hbm' "negative rate"
check_bad '0,/"flops_per_ns_per_sm": 4410.0/s//"flops_per_ns_per_sm": "fast"/' strflops.json '$.wgmma[0].wg1' "rate as a string"
check_bad '0,/"store_hbm": {[^}]*}, /s///' nostore.json '$.tma.tiles[0].store_hbm: missing' "missing measurement in a complete run"
check_bad 's/"dtype": "bf16"/"dtype": "int4"/' int4mma.json '"int4" is not a measured wgmma input type' "unknown wgmma dtype"
check_bad 's/"wgmma": \[/"wgmma": {/' wgobj.json 'wgobj.json: line' "wgmma not an array (broken JSON)"
head -c 2000 "$fixture" >"$tmp/trunc.json"
expect 1 "truncated result" "$cli" calibrate --from "$tmp/trunc.json" -o "$tmp/bad-out.json"
stderr_has "trunc.json" "truncated result: message"
one_line_err "truncated result"
head -c 3000 /dev/urandom >"$tmp/binary.json"
expect 1 "binary result" "$cli" calibrate --from "$tmp/binary.json" -o "$tmp/bad-out.json"
one_line_err "binary result"
printf '[1, 2, 3]\n' >"$tmp/array.json"
expect 1 "result not an object" "$cli" calibrate --from "$tmp/array.json" -o "$tmp/bad-out.json"
one_line_err "result not an object"

printf '{"format": "pipethreader.calibration", "version": 1, "date": "d", "error": "no CUDA device", "complete": false}\n' >"$tmp/nodev.json"
expect 1 "a run that failed at setup" "$cli" calibrate --from "$tmp/nodev.json" -o "$tmp/bad-out.json"
stderr_has "the benchmark failed before measuring: no CUDA device" "failed at setup: the benchmark's reason"
one_line_err "failed at setup"

# Measurements the benchmark reported as failed: warnings, the base value stays.
variant '0,/"flops_per_ns_per_sm": 4410.0/s//"error": "an mbarrier wait gave up"/' errmeas.json
expect 0 "a failed measurement is a warning" "$cli" calibrate --from "$tmp/errmeas.json" -o "$tmp/w.json"
stderr_has 'warning: ' "failed measurement: warning printed"
stderr_has 'an mbarrier wait gave up' "failed measurement: the benchmark's reason"
expect 0 "model with a failed measurement loads" "$cli" hw "$tmp/w.json"
# Every exp2 measurement failed: softmax_exp keeps the H200 value.
variant '/"piece": "exp2"/ s/"\(wg1\|wg2\|latency\)": {[^}]*}/"\1": {"error": "implausible rate"}/g' noexp.json
expect 0 "a piece with every measurement failed" "$cli" calibrate --from "$tmp/noexp.json" -o "$tmp/noexp-model.json"
if grep -q '"kind":	"softmax_exp"' "$tmp/noexp-model.json"; then
    bad "softmax_exp written although not measured"
else
    ok "softmax_exp left to the base model"
fi
"$cli" hw "$tmp/noexp-model.json" >"$tmp/noexp-hw.json" 2>/dev/null
"$cli" hw H200 >"$tmp/h200.json"
want=$(grep -A3 '"kind":	"softmax_exp"' "$tmp/h200.json" | grep rate)
have=$(grep -A3 '"kind":	"softmax_exp"' "$tmp/noexp-hw.json" | grep rate)
if [ -n "$want" ] && [ "$want" = "$have" ]; then ok "softmax_exp rate is H200's"; else bad "softmax_exp rate: '$have' vs H200 '$want'"; fi
# An incomplete run (watchdog): missing sections are warnings.
sed -e 's/"complete": true/"complete": false, "error": "watchdog: --timeout reached during cuda-core exp2"/' \
    -e '/"cuda_core": \[/,/^ \]/d' "$fixture" >"$tmp/partial.json"
expect 0 "an incomplete run converts what it measured" "$cli" calibrate --from "$tmp/partial.json" -o "$tmp/p.json"
stderr_has 'did not complete' "incomplete run: warning"
expect 0 "partial model simulates" "$cli" simulate flash_attention --hw "$tmp/p.json" --json
# Nothing usable at all: an error.
printf '{"format": "pipethreader.calibration", "version": 1, "device": "X", "date": "d", "sm_count": 132, "l2_bytes": 0, "complete": false, "error": "setup: no memory"}\n' >"$tmp/empty.json"
expect 1 "a run that measured nothing" "$cli" calibrate --from "$tmp/empty.json" -o "$tmp/e.json"
stderr_has "no usable measurement" "measured nothing: message"
if [ -e "$tmp/e.json" ]; then bad "measured nothing: wrote a model anyway"; fi

# Measuring here needs nvcc and a GPU: without a GPU, exit 1 with one line saying so.
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
    ok "calibrate without --from: skipped (a GPU is present; it would run the benchmark)"
else
    expect 1 "calibrate without --from, no GPU" "$cli" calibrate -o "$tmp/here.json"
    stderr_has "cannot measure on this machine" "no GPU: message"
    stderr_has "no GPU" "no GPU: names the GPU as missing"
    stderr_has "--from" "no GPU: points at --from"
    one_line_err "no GPU"
    if [ -e "$tmp/here.json" ]; then bad "no GPU: wrote a model anyway"; fi
fi
finish
