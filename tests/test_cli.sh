#!/bin/sh
# test_cli.sh — pipethreader-cli end to end: every verb's --help, exit statuses 0/1/2, one-line
# errors naming the file, every example through partition/program/validate/simulate, and the
# outputs (sProgram, trace, Chrome trace) read back.
# usage: test_cli.sh PATH/TO/pipethreader-cli
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
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

# Issue 18: the text timeline gives busy % (issue to completion) and the unit's own occupancy per
# lane, and names what the lane waits for in its longest idle gaps: a Wait or data dependency
# on which sTask and iteration, or a free stage of which ring.
expect 0 "simulate flash_attention: idle gaps" "$cli" simulate flash_attention
if grep -qE '^  tc\.wg0 +\|.*\| +[0-9.]+% busy, unit +[0-9.]+%$' "$tmp/out"; then ok "busy and unit % per lane"
else bad "busy and unit % per lane: $(head -c 600 "$tmp/out")"; fi
if grep -qE 'waits [0-9]+ ns for [a-zA-Z_.0-9]+\[[0-9]+\] on [a-z.0-9]+ \((data dependency|Wait)\)' "$tmp/out"; then
    ok "an idle gap names the instance waited for"
else bad "idle gap naming a dependency: $(grep -A6 'idle gaps' "$tmp/out")"; fi
# one stage of V: its loads wait for the ring, and the gap says which stage and who frees it
"$cli" program flash_attention -o "$tmp/fa_v1.json" &&
    python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['stages']['V']=1; json.dump(p, open(sys.argv[1],'w'))" "$tmp/fa_v1.json"
expect 0 "simulate flash_attention with one stage of V" "$cli" simulate flash_attention --program "$tmp/fa_v1.json"
if grep -qE 'waits [0-9]+ ns for a free stage of ring [A-Za-z]+ \(stage [0-9]+ of [0-9]+, released by [a-zA-Z_.0-9]+\[[0-9]+\] on ' "$tmp/out"; then
    ok "an idle gap names the ring stage waited for"
else bad "idle gap naming a ring stage: $(grep -A12 'idle gaps' "$tmp/out")"; fi
expect 2 "report without a trace" "$cli" report
expect 0 "report on the recorded trace" "$cli" report tests/fixtures/gemm_f16_2048.trace.json
if grep -q 'per sTask, worst-predicted sTasks first' "$tmp/out" && grep -q '^  mma.C.wg0 ' "$tmp/out"; then ok "report: per-sTask table"
else bad "report: per-sTask table: $(head -c 600 "$tmp/out")"; fi
for v in partition program simulate validate schedule codegen profile report calibrate hw examples; do
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
stderr_has "nothing.json: cannot open" "bad --hw file named"
expect 1 "unknown --hw name" "$cli" simulate gemm_f16 --hw H300
stderr_has 'unknown hardware model "H300"; built-in: H100, H200, MI300X (or give a JSON file path)' "unknown --hw lists the builtins"
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

# Validator errors name the sProgram file and the JSON path; a Wait beyond the dependency's
# distance is out of range, not missing (issue 12).
"$cli" program gemm_f16 --tile wg=1 -o "$tmp/w8.json"
python3 - "$tmp/w8.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
w = [x for x in p["waits"] if x["on"].startswith("load.A")][0]
w["distance"] = 8
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
expect 1 "wait at distance 8 refused" "$cli" validate gemm_f16 --program "$tmp/w8.json"
stderr_has "w8.json: \$.waits[" "wait distance: file and JSON path"
stderr_has "is at distance 8, out of range for this dependency" "wait distance: out of range"
stderr_has "expected a distance from 0 to 0" "wait distance: the accepted range"
expect 1 "wait at distance 8 refused by simulate" "$cli" simulate gemm_f16 --program "$tmp/w8.json"
stderr_has "w8.json: \$.waits[" "simulate: wait distance: file and JSON path"

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
# MI300X (issue 20): schedule returns only sPrograms that fit a CU — 64 KB of LDS, and one VGPR
# budget for every wave (the largest role's) with the busiest of the 4 SIMDs at most 512 per
# lane, recomputed here from the saved roles; an H200 program is refused there, naming LDS; so
# is a budget only the NVIDIA rule (budgets x threads summed) would let through; and where no
# candidate fits (attention's tiles today) schedule exits 1 naming MI300X.
expect 0 "schedule gemm_f16 --hw MI300X" "$cli" schedule gemm_f16 --hw MI300X -q --top 3 -o "$tmp/mi.sched.json"
expect 0 "MI300X program validates there" "$cli" validate gemm_f16 --program "$tmp/mi.sched.json" --hw MI300X
lds=$(sed -n 's/^shared memory \([0-9]*\) of 65536 bytes; registers [0-9]* of 131072$/\1/p' "$tmp/out")
if [ -n "$lds" ] && [ "$lds" -le 65536 ]; then ok "MI300X program: $lds bytes of LDS"
else bad "MI300X program's LDS: $(cat "$tmp/out")"; fi
if python3 - "$tmp/mi.sched.json" <<'PY'
import json, sys
roles = json.load(open(sys.argv[1]))["roles"]
threads = [r.get("threads", 128) for r in roles]
budget, waves = max(r["regs"] for r in roles), sum((t + 63) // 64 for t in threads)
sys.exit(0 if all(t % 64 == 0 for t in threads) and budget * -(-waves // 4) <= 512 else 1)
PY
then ok "MI300X program: VGPRs of the busiest SIMD within 512"
else bad "MI300X program's VGPRs: $(grep -A4 roles "$tmp/mi.sched.json")"; fi
expect 1 "an H200 schedule on MI300X" "$cli" validate flash_attention --program "$tmp/fa.sched.json" --hw MI300X
stderr_has "but MI300X allows 65536 per block" "H200 schedule refused on MI300X for its LDS"
python3 - "$tmp/mi.sched.json" "$tmp/mi.regs.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
wg0 = [r for r in p["roles"] if r["name"] == "wg0"][0]
wg0["regs"], wg0["threads"] = 480, 256  # 2 + 4 (+ 2) waves: two on a SIMD at 480 each
json.dump(p, open(sys.argv[2], "w"))
PY
expect 1 "MI300X: 480 VGPRs on 2 waves of a SIMD" "$cli" validate gemm_f16 --program "$tmp/mi.regs.json" --hw MI300X
stderr_has "every wave of the kernel gets the largest role budget, 480 per lane" "MI300X register rule named"
# MI300X: attention fits its 64 KB of LDS as gfx942 allocates it (src/smem_layout.h), and the
# scheduler's pick is one the gfx942 generator prints; a part with 8 KB of LDS fits nothing
expect 0 "schedule flash_attention --hw MI300X" "$cli" schedule flash_attention --hw MI300X -q -o "$tmp/fa_mi.json"
expect 0 "codegen of the MI300X pick" "$cli" codegen flash_attention --hw MI300X --target gfx942 --program "$tmp/fa_mi.json" -o "$tmp/fa_mi"
printf '{"format": "pipethreader.hw", "version": 1, "base": "MI300X", "name": "MI300X-8K", "smem_per_eu": 8192, "smem_per_block": 8192}\n' >"$tmp/mi8k.json"
expect 1 "schedule flash_attention on an 8 KB LDS: nothing fits" "$cli" schedule flash_attention --hw "$tmp/mi8k.json" -q
stderr_has "fits MI300X-8K (shared memory, registers or tile shapes)" "schedule says nothing fits the 8 KB part"
expect 2 "schedule --top 0" "$cli" schedule gemm_f16 --top 0
expect 2 "schedule --target bogus" "$cli" schedule gemm_f16 --target bogus
expect 2 "schedule --budget -1" "$cli" schedule gemm_f16 --budget -1

# Issue 14: a size the generator cannot emit is refused with the generator's reason (the
# dimension and the rule), the commonest over the candidates it refused, in one line.
# Issue 15: a prefill graph with a single query row against many keys points to decoding.
python3 - "$here/../examples/flash_attention.json" "$tmp/fa_decode.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
g["name"] = "fa_decode_shape"
g["params"]["SQ"] = 1
g["axes"]["m"] = "SQ"
json.dump(g, open(sys.argv[2], "w"))
PY
expect 1 "codegen a one-query prefill graph" "$cli" codegen "$tmp/fa_decode.json" --target sm90a -o "$tmp/fa_decode"
stderr_has "is decoding, not prefill" "a one-query prefill graph points to decoding"
# One head per warpgroup needs as many heads: a tile past the head axis is refused with the
# rule (such kernels hung on the H200, round 156), from partition and codegen alike.
expect 1 "partition: heads tile past the axis" "$cli" partition mamba2_chunk_state --set B=1,S=256,H=2 --tile h=3,wg=3,wg_axis=h
stderr_has 'tile h=3 gives each of 3 warpgroups its own "h" index, but "h" has 2; expected h <= 2' "heads tile past the axis: the rule named"
expect 1 "codegen: heads tile past the axis" "$cli" codegen examples/mamba2_chunk_scan_grouped.json --set B=1,S=256,G=2,HG=1 --tile l=64,hg=2,wg=2,wg_axis=hg --target sm90a -o "$tmp/hg_past"
stderr_has 'but "hg" has 1; expected hg <= 1' "grouped heads tile past the axis: the rule named"
# A chunk length that is not a multiple of 64: the scheduler and the generator name the axis and
# the rule (not a later pass's complaint about the loop it could not make).
expect 1 "schedule mamba2_chunk_scan at L=96 for sm90a" "$cli" schedule mamba2_chunk_scan --set B=1,S=960,L=96 --target sm90a -q
stderr_has 'l=96, the rows of the causal exp_decay "exp_decay3" (ChunkScan'"'"'s chunk length): expected a multiple of 64' "L=96 refused by the scheduler with the rule"
expect 1 "codegen mamba2_chunk_scan at L=32" "$cli" codegen mamba2_chunk_scan --set B=1,S=256,L=32 --target sm90a -o "$tmp/cs32"
stderr_has 'codegen sm90a: l=32, the rows of the causal exp_decay' "L=32 refused by the generator with the rule"
# Issue 16: the ChunkScan schedule measured fastest at B 8 x S 2048 (rounds 147-151: the
# warpgroups on two heads, 4-7% ahead of the l = 128 rows split) is the sm90a pick.
expect 0 "schedule mamba2_chunk_scan for sm90a" "$cli" schedule mamba2_chunk_scan --target sm90a --set B=8,S=2048 --top 1
if grep -qE '^ +1 .* wg_axis=h wg=2 stages=4 persistent column run=2' "$tmp/out"; then ok "ChunkScan pick: the heads split, runs of 2 along columns"
else bad "ChunkScan pick: $(grep -E '^ +1 ' "$tmp/out")"; fi
# --ragged: warpgroup counts that do not divide the heads (three on 64: the last triple has one
# head) are searched, and only then; their tiles are charged in full.
expect 0 "schedule mamba2_chunk_scan --ragged" "$cli" schedule mamba2_chunk_scan --hw H100 --target sm90a --set B=4,S=1024 --top 1 --ragged -o "$tmp/ragged.json"
if grep -qE '^ +1 .* h=3 .*wg_axis=h wg=3 ' "$tmp/out" && grep -qE '"h": 3' "$tmp/ragged.json"; then ok "--ragged: three warpgroups on 64 heads predicted fastest"
else bad "--ragged pick: $(grep -E '^ +1 ' "$tmp/out")"; fi
expect 0 "schedule mamba2_chunk_scan without --ragged" "$cli" schedule mamba2_chunk_scan --hw H100 --target sm90a --set B=4,S=1024 --top 64
if grep -qE 'wg=3' "$tmp/out"; then bad "a ragged split searched without --ragged: $(grep -m1 'wg=3' "$tmp/out")"
else ok "without --ragged no count that leaves the heads ragged"; fi
# On the H100, ChunkState 2 steps ahead ran 8-12% faster than 4 (BENCHMARKS.md, sessions 35 and
# 40): the model charges a kernel that writes as much as it reads for reading further ahead
# (dram_overfill_*), so its pick is the 2-stage ring, and --measure's shortlist still holds the
# deeper ones to time.
expect 0 "schedule --measure 6 --candidates (ChunkState, H100)" "$cli" schedule mamba2_chunk_state --hw H100 --target sm90a --set B=8,S=2048 --measure 6 --candidates "$tmp/cand_cs"
if grep -qE '^1 [0-9]+ l=64 n=128 wg_axis=h wg=2 stages=2 ' "$tmp/out" && grep -qE '^[0-9]+ [0-9]+ l=64 n=[0-9]+ wg_axis=h wg=2 stages=[34] ' "$tmp/out" &&
   [ "$(ls "$tmp/cand_cs" | wc -l)" = 6 ]; then ok "--measure shortlist: the pick's tile at 2 stages first, deeper rings after, 6 written"
else bad "--measure shortlist: $(cat "$tmp/out" | tail -7)"; fi
# An sProgram is read against the model it was scheduled for ($.hw) unless --hw says otherwise;
# a model it names that is not here leaves the default (H200), with a note naming the file and field.
"$cli" schedule mamba2_chunk_state --hw H100 --target sm90a --set B=8,S=2048 --top 1 -o "$tmp/cs_h100.json" >/dev/null 2>&1
expect 0 "simulate an H100 sProgram without --hw" "$cli" simulate mamba2_chunk_state --set B=8,S=2048 --program "$tmp/cs_h100.json"
if grep -q '"release": "fence"' "$tmp/cs_h100.json"; then ok "ChunkState's H100 pick hands its stages back behind a fence"
else bad "ChunkState's H100 pick: no \"release\": \"fence\""; fi
if grep -qE '^predicted kernel time .* on H100 ' "$tmp/out"; then ok "read against its own model (H100)"
else bad "model of an H100 sProgram: $(head -1 "$tmp/out")"; fi
expect 0 "simulate an H100 sProgram with --hw H200" "$cli" simulate mamba2_chunk_state --set B=8,S=2048 --program "$tmp/cs_h100.json" --hw H200
if grep -qE '^predicted kernel time .* on H200 ' "$tmp/out"; then ok "--hw overrides the sProgram's model"
else bad "--hw H200 on an H100 sProgram: $(head -1 "$tmp/out")"; fi
sed 's/"hw": "H100"/"hw": "H999"/' "$tmp/cs_h100.json" >"$tmp/cs_h999.json"
expect 0 "simulate an sProgram naming a model not here" "$cli" simulate mamba2_chunk_state --set B=8,S=2048 --program "$tmp/cs_h999.json"
stderr_has "cs_h999.json: note: \$.hw names \"H999\", which is not a built-in model or a model file here; read against H200" "a model not here: the file, \$.hw and the model used named"
if grep -qE '^predicted kernel time .* on H200 ' "$tmp/out"; then ok "a model not here: read against H200"
else bad "a model not here: $(head -1 "$tmp/out")"; fi
# Issue 14: unaligned N and K are staged through 16-byte-pitched copies (src/staging.h): the
# search through the sm90a generator finds programs, and their prediction holds the copies.
expect 0 "schedule unaligned N for sm90a" "$cli" schedule gemm_f16 -q --target sm90a --set M=4096,N=1001,K=4096 --top 1 -o "$tmp/u1001.json"
expect 0 "simulate unaligned N" "$cli" simulate gemm_f16 --set M=4096,N=1001,K=4096 --program "$tmp/u1001.json" --json
if grep -qE '"staged": 2, "staging_bytes": 32915456,' "$tmp/out"; then ok "unaligned N: B and C staged, 32.9 MB copied"
else bad "unaligned N: staging in the prediction: $(head -c 600 "$tmp/out")"; fi
expect 0 "codegen unaligned K for sm90a" "$cli" codegen gemm_f16 --target sm90a --set M=64,N=64,K=1001 -o "$tmp/u_k1001"
if grep -q 'A into its staging buffer' "$tmp/u_k1001/launch.c"; then ok "unaligned K: A staged by the launcher"
else bad "unaligned K: launch.c does not stage A"; fi
# What stays impossible (a dequantised GEMM's packed weights are read as they lie) names the
# dimension and the rule, from the scheduler as from the generator.
expect 1 "schedule unaligned packed weights for sm90a" "$cli" schedule gemm_w4a16 -q --target sm90a --set M=64,N=4096,K=4104,G=8
stderr_has "the sm90a code generator refused all" "unaligned packed weights: the generator named"
stderr_has "(k = 4104); TMA needs a multiple of 16 bytes and the packed B is not staged (a matmul's operands and their scales are), so k must be a multiple of 32" "unaligned packed weights: the dimension and the rule"
one_line_err "unaligned packed weights"

# Split-K (partition.split_k): at small M the search picks it (its partial tiles through the
# workspace or a cluster), the saved program says so, and it validates and simulates as
# tiles x split_k work items.
expect 0 "schedule small-M gemm" "$cli" schedule gemm_f16 -q --hw H200 --set M=64,N=4096,K=4096 --top 3 -o "$tmp/sk.json"
if grep -qE '^  1 .* split-k=[0-9]+( cluster)?$' "$tmp/out"; then ok "small-M pick is split-K"
else bad "small-M pick is split-K: $(head -c 600 "$tmp/out")"; fi
if grep -qE '"split_k": [0-9]+' "$tmp/sk.json"; then ok "saved split_k"; else bad "saved split_k: $(grep partition "$tmp/sk.json")"; fi
expect 0 "split-K program validates" "$cli" validate gemm_f16 --hw H200 --set M=64,N=4096,K=4096 --program "$tmp/sk.json"
expect 0 "split-K program simulates" "$cli" simulate gemm_f16 --hw H200 --set M=64,N=4096,K=4096 --program "$tmp/sk.json"
if grep -qE 'tiles x split-K [0-9]+ = [0-9]+ work items' "$tmp/out" && grep -q 'fix-up' "$tmp/out"; then ok "split-K in the summary"
else bad "split-K in the summary: $(head -c 600 "$tmp/out")"; fi
sed 's/"split_k": [0-9]*/"split_k": 99/' "$tmp/sk.json" >"$tmp/sk99.json"
expect 1 "split_k out of range" "$cli" validate gemm_f16 --set M=64,N=4096,K=4096 --program "$tmp/sk99.json"
stderr_has "sk99.json: \$.partition.split_k: 99 is out of range; expected 1 to 16" "split_k range names file and field"

# Output cannot be written: exit 1, nothing crashes.
expect 1 "unwritable output" "$cli" program gemm_f16 -o /nonexistent-dir/p.json

# Non-finite times (issue 12): a model whose rate cannot give finite times is refused at load
# time with the file, the field and the range (it used to crash the text timeline with a NaN
# index, and print inf into --json and --chrome).
printf '{"base": "H200", "name": "tiny", "costs": [{"kind": "mma", "dtype": "*", "rate": 1e-300}]}' >"$tmp/tiny.json"
for out in "" "--json" "--chrome $tmp/tiny.chrome.json"; do
    # shellcheck disable=SC2086
    expect 1 "tiny rate refused: simulate $out" "$cli" simulate gemm_f16 --hw "$tmp/tiny.json" $out
    stderr_has 'tiny.json: $.costs[0].rate: 1e-300 is too small to give finite times; expected 0 (unsupported) or 1e-06 to 1e+09' "tiny rate message $out"
    one_line_err "tiny rate $out"
done
printf '{"base": "H200", "name": "nomma", "costs": [{"kind": "mma", "dtype": "f16", "rate": 0}]}' >"$tmp/nomma.json"
expect 1 "missing cost names the hw file" "$cli" simulate gemm_f16 --hw "$tmp/nomma.json"
stderr_has 'nomma.json: $.costs: hardware model nomma has no cost for mma on f16' "missing cost message"

# Graph names in generated code (issue 12): a name with '-' and '.' becomes a valid C
# identifier through one mapping; names that could break out of a string or comment are
# refused by the loader, naming the file and the field.
"$cli" examples gemm_f16 | sed 's/"name": "gemm_f16"/"name": "gemm-f16.v2"/' >"$tmp/gv2.json"
# Accepted by the validator, but a 512-thread CTA compiles with at most 128 registers per thread
# and a wgmma m64n256 needs ~154 (ptxas C7602): the generator refuses it with the reason.
expect 1 "3 warpgroups x n=256 refused by the generator" "$cli" codegen gemm_bf16 --set M=128,N=392,K=48 \
    --program "$here/fixtures/gemm_bf16_192x256_wg3.sprogram.json" --target sm90a -o "$tmp/wg3"
stderr_has "ptxas compiles a 512-thread CTA with at most 128 registers" "3 warpgroups x n=256: the reason"
expect 0 "codegen of gemm-f16.v2" "$cli" codegen "$tmp/gv2.json" --set M=512,N=512,K=512 -o "$tmp/gv2"
if grep -q "^pt_gemm_f16_v2(" "$tmp/gv2/kernel.cu" && ! grep -q "pt_gemm-f16" "$tmp/gv2/kernel.cu" "$tmp/gv2/launch.c" &&
   grep -qF 'cuModuleGetFunction(&f, mod, "pt_gemm_f16_v2")' "$tmp/gv2/launch.c"; then
    ok "gemm-f16.v2: kernel pt_gemm_f16_v2"; else bad "gemm-f16.v2: $(grep -n "pt_gemm" "$tmp/gv2/kernel.cu" | head -3)"; fi
"$cli" examples gemm_f16 | sed 's|"name": "gemm_f16"|"name": "g\\"*/\\nx"|' >"$tmp/gq.json"
expect 1 "graph name with a quote refused" "$cli" codegen "$tmp/gq.json" -o "$tmp/gq"
stderr_has 'gq.json: $.name: "g"*/?x" is not a valid name; expected 1 to 47 letters, digits' "name refusal message"
one_line_err "name refusal"
[ ! -e "$tmp/gq" ] && ok "nothing generated for a refused name" || bad "a bundle was written for a refused name"

# Mamba2 ChunkState is generated (issue 16): x mapped over all five axes, the per-tile scalar
# as a 16-byte 1-D box, A made in registers; what the kernel cannot do is refused with the
# reason (two warpgroups would share the decay vectors; a 32-row tile is below wgmma's m64).
expect 0 "codegen mamba2_chunk_state" "$cli" codegen mamba2_chunk_state --set B=1,S=1280,H=3 -o "$tmp/cs"
if grep -q "pt::tma_load_5d(smem + OFF_X" "$tmp/cs/kernel.cu" && grep -q "pt::tma_load_1d(" "$tmp/cs/kernel.cu" &&
   grep -q "pt::afrag_scaled<elem_t, KS, true>" "$tmp/cs/kernel.cu" && [ -f "$tmp/cs/pt_ssd.cuh" ]; then
    ok "chunk_state: 5-D x box, 1-D scalar box, A fragment made from x"; else bad "chunk_state kernel: $(grep -c tma_load "$tmp/cs/kernel.cu") loads"; fi
expect 1 "chunk_state with 2 warpgroups refused" "$cli" codegen mamba2_chunk_state --set P=128 --tile p=128,wg=2 -o "$tmp/cs2"
stderr_has "is shared by the 2 consumer warpgroups (its tile lacks the axis p they split)" "chunk_state 2 warpgroups: the reason"
one_line_err "chunk_state 2 warpgroups"
expect 1 "chunk_state with a p tile of 32 refused" "$cli" codegen mamba2_chunk_state --set P=32 --tile p=32 -o "$tmp/cs3"
stderr_has "tile p=32 with 1 consumer warpgroup(s); expected 64 rows per warpgroup" "chunk_state p tile 32: the reason"
# by default a head dim or state size under 64 is one 64-wide atom, zero-filled past its end
# (default_tiling.c), so the defaults of both Mamba2 graphs generate there
expect 0 "chunk_state at P=32, N=16 by default" "$cli" codegen mamba2_chunk_state --set P=32,N=16 -o "$tmp/cs4"
expect 0 "chunk_scan at P=32, N=16 by default" "$cli" codegen mamba2_chunk_scan --set P=32,N=16 -o "$tmp/cs5"

# Mamba2 with ngroups > 1 (issue 16): x[b, c, l, g, hg, p] has six axes; its map takes (b, c)
# as one dimension (coordinate b * C + c), so every TMA transfer stays within five. With the
# warpgroups on the heads, x's map puts hg outside its rows.
expect 0 "codegen mamba2_chunk_scan_grouped" "$cli" codegen mamba2_chunk_scan_grouped --set B=2,S=512,G=2,HG=4 --tile l=64,hg=2,wg=2,wg_axis=hg -o "$tmp/csg"
if grep -q "(g0) \* 2 + g1" "$tmp/csg/kernel.cu" && ! grep -q "tma_load_6d\|tma_store_6d" "$tmp/csg/kernel.cu" &&
   grep -q "const cuuint64_t dims\[5\] = {64u, 2u, 256u, 4u, 4u}" "$tmp/csg/launch.c"; then
    ok "chunk_scan grouped: (b, c) merged in the 6-axis maps, hg outside x's rows"; else bad "chunk_scan grouped maps: $(grep -c 'dims\[' "$tmp/csg/launch.c") maps"; fi

# Write errors (issue 12): output that cannot be written exits 1 with "PATH: write failed",
# whether it goes to -o FILE, --chrome FILE or stdout; a device given as -o is written in place,
# never renamed over.
for v in "examples" "examples gemm_f16" "hw" "hw H200" "partition gemm_f16" \
         "partition gemm_f16 --json" "program gemm_f16" "simulate gemm_f16" \
         "simulate gemm_f16 --json" "validate gemm_f16" "--help"; do
    # shellcheck disable=SC2086
    "$cli" $v >/dev/full 2>"$tmp/err"; got=$?
    if [ "$got" -eq 1 ] && grep -qF "stdout: write failed: No space left on device" "$tmp/err"; then
        ok "$v > /dev/full"; else bad "$v > /dev/full (exit $got): $(head -c 300 "$tmp/err")"; fi
    one_line_err "$v > /dev/full"
done
for opt in "program gemm_f16 -o" "partition gemm_f16 -o" "simulate gemm_f16 -o" \
           "simulate gemm_f16 --chrome" "schedule gemm_f16 -q --top 1 -o"; do
    # shellcheck disable=SC2086
    expect 1 "$opt /dev/full" "$cli" $opt /dev/full
    stderr_has "/dev/full: write failed: No space left on device" "$opt /dev/full message"
done
if [ -c /dev/full ]; then ok "/dev/full is still a device"; else bad "/dev/full was replaced"; fi
expect 0 "-o /dev/null" "$cli" program gemm_f16 -o /dev/null

# Inputs must be regular files (issue 12): a FIFO without a writer is refused at once, never
# waited on; so are devices.
mkfifo "$tmp/fifo.json"
expect 1 "graph FIFO refused" timeout 20 "$cli" partition "$tmp/fifo.json"
stderr_has "fifo.json: is a FIFO (named pipe); expected a regular JSON file" "graph FIFO message"
expect 1 "program FIFO refused" timeout 20 "$cli" validate gemm_f16 --program "$tmp/fifo.json"
stderr_has "fifo.json: is a FIFO" "program FIFO message"
expect 1 "hw FIFO refused" timeout 20 "$cli" simulate gemm_f16 --hw "$tmp/fifo.json"
stderr_has "fifo.json: is a FIFO" "hw FIFO message"
expect 1 "calibration FIFO refused" timeout 20 "$cli" calibrate --from "$tmp/fifo.json" -o "$tmp/cal.json"
stderr_has "fifo.json: is a FIFO" "calibration FIFO message"
expect 1 "graph device refused" "$cli" partition /dev/zero
stderr_has "/dev/zero: is a character device" "graph device message"

# Issue 13: the choices the simulator and the generator both read are sProgram fields —
# partition.order (longest_first / raster) and partition.staging (apart / over_resident).
"$cli" program flash_attention --set CAUSAL=1 -o "$tmp/fa_c.json" >/dev/null 2>&1
sed 's/"persistent": false}/"persistent": false, "order": "raster"}/' "$tmp/fa_c.json" >"$tmp/fa_raster.json"
expect 0 "order raster: codegen" "$cli" codegen flash_attention --set CAUSAL=1 --program "$tmp/fa_raster.json" --target sm90a -o "$tmp/fa_raster"
expect 0 "order auto: codegen" "$cli" codegen flash_attention --set CAUSAL=1 --program "$tmp/fa_c.json" --target sm90a -o "$tmp/fa_auto"
if grep -q "mt = TILES_M - 1 - mt" "$tmp/fa_auto/kernel.cu" && ! grep -q "mt = TILES_M - 1 - mt" "$tmp/fa_raster/kernel.cu"; then
    ok "order: auto walks causal tiles longest first, raster does not"
else bad "order: the tile walk does not follow partition.order"; fi
# 2048 tiles in 16 waves: the launch order changes the tail
t_auto=$("$cli" simulate flash_attention --set CAUSAL=1 --program "$tmp/fa_c.json" 2>/dev/null | sed -n 's/^predicted kernel time \([0-9.]*\) us.*/\1/p')
t_raster=$("$cli" simulate flash_attention --set CAUSAL=1 --program "$tmp/fa_raster.json" 2>/dev/null | sed -n 's/^predicted kernel time \([0-9.]*\) us.*/\1/p')
if [ -n "$t_auto" ] && [ -n "$t_raster" ] && [ "$t_auto" != "$t_raster" ]; then
    ok "order: the simulator reads it too ($t_auto us longest first, $t_raster us raster)"
else bad "order: the simulator ignores partition.order ($t_auto / $t_raster)"; fi
sed 's/"persistent": false}/"persistent": false, "order": "sideways"}/' "$tmp/fa_c.json" >"$tmp/fa_badorder.json"
expect 1 "order: bad value refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_badorder.json"
stderr_has "partition.order" "order: the message names the field"
"$cli" program gemm_f16 -o "$tmp/g_c.json" >/dev/null 2>&1
sed 's/"persistent": false}/"persistent": false, "order": "longest_first"}/' "$tmp/g_c.json" >"$tmp/g_lf.json"
expect 1 "order longest_first without a causal mask refused" "$cli" validate gemm_f16 --program "$tmp/g_lf.json"
sed 's/"persistent": false}/"persistent": true, "staging": "over_resident"}/' "$tmp/fa_c.json" >"$tmp/fa_over.json"
sed 's/"persistent": false}/"persistent": true, "staging": "apart"}/' "$tmp/fa_c.json" >"$tmp/fa_apart.json"
sed 's/"persistent": false}/"persistent": false, "staging": "apart"}/' "$tmp/fa_c.json" >"$tmp/fa_apart1.json"
expect 1 "staging apart without persistent refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_apart1.json"
stderr_has "partition.staging" "staging: the message names the field"
expect 0 "schedule writes its choices" "$cli" schedule flash_attention --set CAUSAL=1 -q -o "$tmp/fa_s.json"
if grep -q '"order": "longest_first"' "$tmp/fa_s.json" && grep -q '"staging": "' "$tmp/fa_s.json"; then
    ok "schedule: the saved program spells out order and staging"
else bad "schedule: saved partition lacks order/staging: $(grep partition "$tmp/fa_s.json")"; fi
expect 0 "staging over_resident: codegen" "$cli" codegen flash_attention --set CAUSAL=1 --program "$tmp/fa_over.json" --target sm90a -o "$tmp/fa_over"
expect 0 "staging apart: codegen" "$cli" codegen flash_attention --set CAUSAL=1 --program "$tmp/fa_apart.json" --target sm90a -o "$tmp/fa_apart"
if grep -q "OFF_O = 0" "$tmp/fa_over/kernel.cu" && ! grep -q "OFF_O = 0" "$tmp/fa_apart/kernel.cu"; then
    ok "staging: O over Q or in its own buffer, as the program says"
else bad "staging: the kernel's O buffer does not follow partition.staging"; fi

# Issue 15: stages on a resident tile (attention's Q): 2 = two copies, the next tile's loaded
# during this one, only in a persistent program with the output staged apart; stages on a
# tensor that no ring or resident tile holds are refused at their field.
python3 - "$tmp/fa_apart.json" "$tmp" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
def put(name, q, **part):
    d = json.loads(json.dumps(p)); d["stages"]["Q"] = q; d["partition"].update(part)
    json.dump(d, open(sys.argv[2] + "/" + name, "w"))
put("fa_q2.json", 2)
put("fa_q3.json", 3)
put("fa_q2_one.json", 2, persistent=False, staging="auto")
put("fa_q2_over.json", 2, staging="over_resident")
d = json.loads(json.dumps(p)); d["stages"]["O"] = 2
json.dump(d, open(sys.argv[2] + "/fa_ostages.json", "w"))
PY
expect 0 "stages Q 2 (persistent, staged apart): codegen" "$cli" codegen flash_attention --set CAUSAL=1 --program "$tmp/fa_q2.json" --target sm90a -o "$tmp/fa_q2"
if grep -q "STAGES_Q = 2" "$tmp/fa_q2/kernel.cu" && grep -q "mbar_wait(&q_full\[n_tile & 1\], (n_tile >> 1) & 1)" "$tmp/fa_q2/kernel.cu" &&
   grep -q "OFF_Q + (n_tile & 1) \* Q_PITCH" "$tmp/fa_q2/kernel.cu"; then
    ok "stages Q 2: two copies of Q, tile n_tile on copy n_tile & 1"
else bad "stages Q 2: the kernel does not keep two copies of Q"; fi
smem1=$("$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_apart.json" 2>&1 | sed -n 's/.*shared memory \([0-9]*\) .*/\1/p' | head -1)
smem2=$("$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_q2.json" 2>&1 | sed -n 's/.*shared memory \([0-9]*\) .*/\1/p' | head -1)
if [ -n "$smem1" ] && [ -n "$smem2" ] && [ "$smem2" -gt "$smem1" ]; then ok "stages Q 2: shared memory counts the second copy ($smem1 -> $smem2 bytes)"
else bad "stages Q 2: shared memory $smem1 -> $smem2"; fi
expect 1 "stages Q 3 refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_q3.json"
stderr_has '$.stages.Q: is 3' "stages Q 3: the message names the field and the value"
expect 1 "stages Q 2 without persistent refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_q2_one.json"
stderr_has "partition.persistent" "stages Q 2 without persistent: the message says what to set"
expect 1 "stages Q 2 with O staged over Q refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_q2_over.json"
stderr_has "stage it apart" "stages Q 2 over resident: the message says what to do"
expect 1 "stages on O (no ring, no resident tile) refused" "$cli" validate flash_attention --set CAUSAL=1 --program "$tmp/fa_ostages.json"
stderr_has '$.stages.O' "stages on O: the message names the field"

# Issue 18: the instrumented build's record regions are sized from the launch (every record of
# the CTA's tiles), not a fixed 4096 that a long FlashAttention tile overflows.
expect 0 "long FA bundle" "$cli" codegen flash_attention --set B=2,H=16,S=8192,D=128,CAUSAL=1 --target sm90a -o "$tmp/fa_long"
cap_long=$(sed -n 's/^ *\*cap = \([0-9]*\)u;/\1/p' "$tmp/fa_long/launch.c")
cap_small=$(sed -n 's/^ *\*cap = \([0-9]*\)u;/\1/p' "$tmp/fa_raster/launch.c")
kcap=$(sed -n 's/.*TRACE_CAP = \([0-9]*\);.*/\1/p' "$tmp/fa_long/kernel.cu")
# default sProgram: one tile per CTA, 128 key blocks of 64 at S=8192 (64 at S=4096)
if [ -n "$cap_long" ] && [ "$cap_long" -ge 1024 ] && [ "$cap_long" = "$kcap" ] && [ $((cap_small * 3 / 2)) -lt "$cap_long" ]; then
    ok "trace regions sized from the launch ($cap_small records for S=4096 default, $cap_long for S=8192)"
else bad "trace cap: launcher $cap_long / kernel $kcap / small $cap_small"; fi

# pack (issue 17): bf16 weights -> Wq (two nibbles a byte, even k low) and Ws (one scale per
# group, a row of 3 padded with zeros to 8 = 16 bytes, or 3 with --scales exact); decoded here,
# every weight is within half a quantisation step of its input.
python3 - "$tmp/w.bin" <<'PY'
import random, struct, sys
random.seed(7)
def bf16(x):
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    return (u + 0x7fff + ((u >> 16) & 1)) >> 16
open(sys.argv[1], 'wb').write(b''.join(struct.pack('<H', bf16(random.gauss(0, 0.05))) for _ in range(8 * 96)))
PY
for fmt_scales in "int4 padded" "fp4-e2m1 padded" "int4 exact"; do
    set -- $fmt_scales; fmt=$1 scales=$2
    expect 0 "pack $fmt, $scales scales" "$cli" pack "$tmp/w.bin" --rows 8 --cols 96 --group 32 --format $fmt --scales $scales -o "$tmp/wp"
    if python3 - "$tmp/w.bin" "$tmp/wp" $fmt $scales <<'PY'
import struct, sys
w = open(sys.argv[1], 'rb').read(); q = open(sys.argv[2] + '.wq', 'rb').read(); s = open(sys.argv[2] + '.ws', 'rb').read()
fp4 = sys.argv[3] != 'int4'; F = [0, .5, 1, 1.5, 2, 3, 4, 6]
pitch = 8 if sys.argv[4] == 'padded' else 3
f = lambda h: struct.unpack('<f', struct.pack('<I', h << 16))[0]
assert len(q) == 8 * 96 // 2 and len(s) == 8 * pitch * 2, (len(q), len(s))
for i in range(8 * 96):
    v = (q[i // 2] >> 4) if i % 2 else (q[i // 2] & 15)
    val = (-1 if v & 8 else 1) * F[v & 7] if fp4 else (v - 16 if v >= 8 else v)
    sc = f(struct.unpack_from('<H', s, 2 * ((i // 96) * pitch + (i % 96) // 32))[0])
    x = f(struct.unpack_from('<H', w, 2 * i)[0])
    step = 2.0 * sc if fp4 else sc  # the widest gap between neighbouring values
    assert abs(val * sc - x) <= step / 2 + 1e-6, (i, val, sc, x)
assert all(struct.unpack_from('<H', s, 2 * (r * pitch + g))[0] == 0 for r in range(8) for g in range(3, pitch))
PY
    then ok "pack $fmt, $scales scales: every weight within half a step of its input"; else bad "pack $fmt $scales: decoded weights"; fi
done
expect 2 "pack: an unknown --scales" "$cli" pack "$tmp/w.bin" --rows 8 --cols 96 --group 32 --scales wide -o "$tmp/wp"
stderr_has "pack: --scales wide; expected padded or exact" "pack names the --scales values"
# --packing fragments: the same weights in the order of wgmma's A fragments (src/packing.h),
# decoded here by the layout's own rule
python3 - "$tmp/w16.bin" <<'PY'
import random, struct, sys
random.seed(8)
def bf16(x):
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    return (u + 0x7fff + ((u >> 16) & 1)) >> 16
open(sys.argv[1], 'wb').write(b''.join(struct.pack('<H', bf16(random.gauss(0, 0.05))) for _ in range(32 * 128)))
PY
expect 0 "pack --packing fragments" "$cli" pack "$tmp/w16.bin" --rows 32 --cols 128 --group 64 --packing fragments -o "$tmp/wf"
# (the order it checks is written to fragorder.txt, element by element, for the decoder check below)
if python3 - "$tmp/w16.bin" "$tmp/wf" "$tmp/fragorder.txt" <<'PY'
import struct, sys
w = open(sys.argv[1], 'rb').read(); q = open(sys.argv[2] + '.wq', 'rb').read(); s = open(sys.argv[2] + '.ws', 'rb').read()
f = lambda h: struct.unpack('<f', struct.pack('<I', h << 16))[0]
N, K = 32, 128
def nibble(n, k):
    rr, kk = n % 16, k % 64
    kc = kk % 32; kt = kc % 16
    lane = 4 * (rr % 8) + (kt % 8) // 2
    word = 2 * (kk // 32) + rr // 8
    nib = 2 * (kc // 16) + kt // 8 + 4 * (kt % 2)
    byte = ((n // 16) * 16 + lane % 16) * (K // 2) + (k // 64) * 32 + 16 * (lane // 16) + 4 * word + nib // 2
    return byte * 2 + nib % 2
seen = set()
for n in range(N):
    for k in range(K):
        e = nibble(n, k); seen.add(e)
        v = (q[e // 2] >> 4) if e % 2 else (q[e // 2] & 15)
        val = v - 16 if v >= 8 else v
        sc = f(struct.unpack_from('<H', s, 2 * (n * 8 + k // 64))[0])  # 2 scales a row, padded to 8
        x = f(struct.unpack_from('<H', w, 2 * (n * K + k))[0])
        assert abs(val * sc - x) <= sc / 2 + 1e-6, (n, k, val, sc, x)
assert len(seen) == N * K
open(sys.argv[3], 'w').write(''.join('%d\n' % nibble(i // K, i % K) for i in range(N * K)))
PY
then ok "pack --packing fragments: every weight where the layout puts it"; else bad "pack --packing fragments: decoded weights"; fi
expect 1 "pack: fragments need rows of 16" "$cli" pack "$tmp/w.bin" --rows 8 --cols 96 --group 32 --packing fragments -o "$tmp/wp"
stderr_has "8 rows; the \"fragments\" packing needs a multiple of 16" "pack: the fragments refusal names the rule"
# a graph whose weights are packed as fragments: its default sProgram puts the tensor-core rows
# on the weights' rows (the only form that reads them); another tiling is refused by name
fg=tests/codegen/graphs/gemm_w4a16_bf16_frag.json
expect 0 "codegen fragments-packed weights, default sProgram" "$cli" codegen "$fg" --target sm90a -o "$tmp/fragk"
if grep -q "frag_packed_load" "$tmp/fragk/kernel.cu" && grep -q "CU_TENSOR_MAP_SWIZZLE_32B" "$tmp/fragk/launch.c"; then
    ok "fragments: the kernel loads a lane's bytes through the stage's swizzle"
else bad "fragments: kernel or tensor map"; fi
# the reference's own decoder (pt_frag_nibble in reference.cu) puts every element where the
# pack tool does: compiled here as C and compared with the order the pack check above decoded
# (fragorder.txt)
if command -v cc >/dev/null 2>&1; then
    { printf '%s\n' '#include <stdio.h>'
      sed -n '/^__device__ __forceinline__ long long pt_frag_nibble/,/^}/p' "$tmp/fragk/reference.cu" |
          sed 's/__device__ __forceinline__/static/'
      # printf, not echo: dash's echo would turn the \n into a line break inside the string
      printf '%s\n' 'int main(void) { for (long long i = 0; i < 32 * 128; i++) printf("%lld\n", pt_frag_nibble(i, 128)); return 0; }'
    } > "$tmp/fragnib.c"
    if cc -o "$tmp/fragnib" "$tmp/fragnib.c" 2>"$tmp/fragnib.err" && "$tmp/fragnib" > "$tmp/fragnib.txt" &&
       cmp -s "$tmp/fragnib.txt" "$tmp/fragorder.txt"
    then ok "fragments: the reference's decoder agrees with the pack tool's order"
    else bad "fragments: reference decoder ($(head -c 200 "$tmp/fragnib.err"))"; fi
fi
expect 1 "codegen fragments-packed weights with the rows on m" "$cli" codegen "$fg" --target sm90a --tile wg_axis=m -o "$tmp/fragm"
stderr_has "packed as \"fragments\", the order of wgmma's A fragments: only a tiling with the tensor-core rows on its rows (wg_axis n) reads it" "fragments: the refusal names the packing and the tiling"
expect 1 "pack: a file of the wrong size" "$cli" pack "$tmp/w.bin" --rows 9 --cols 96 --group 32 -o "$tmp/wp"
stderr_has "expected exactly 9 x 96 bf16 elements" "pack: the size refusal names the shape"

# FlashDecoding's split count is the scheduler's: it is searched with the combine it implies,
# printed, and written as the sProgram's "params", which codegen and simulate apply to the graph
# (an --set that disagrees is refused, naming both).
dset="B=1,HKV=8,G=4,S=65536,D=128"
expect 0 "schedule flash_decoding: split count searched" "$cli" schedule flash_decoding --set "$dset" --target sm90a -q -o "$tmp/dec.json"
if grep -q '^split count SPLITS, chosen by the search (each with the flash_decoding_combine kernel it implies)' "$tmp/out" && grep -qE '^ +[0-9]+ .* <- chosen$' "$tmp/out" &&
   grep -qE '^best predicted: .* with SPLITS=[0-9]+ ' "$tmp/out"; then ok "schedule prints the split counts and the choice"
else bad "split counts in the schedule output: $(head -c 900 "$tmp/out")"; fi
sp=$(sed -n 's/.*"params": {"SPLITS": \([0-9]*\)}.*/\1/p' "$tmp/dec.json")
if [ -n "$sp" ] && grep -q "with SPLITS=$sp " "$tmp/out"; then ok "the written sProgram carries SPLITS=$sp"
else bad "params in the written sProgram: $(head -8 "$tmp/dec.json")"; fi
expect 0 "codegen takes SPLITS from the sProgram" "$cli" codegen flash_decoding --set "$dset" --program "$tmp/dec.json" --target sm90a -o "$tmp/dec.bundle"
if grep -q "constexpr int QSHARE = $sp;" "$tmp/dec.bundle/kernel.cu"; then ok "the kernel is generated for SPLITS=$sp"
else bad "kernel for SPLITS=$sp: $(grep -n 'QSHARE' "$tmp/dec.bundle/kernel.cu" | head -3)"; fi
[ "$sp" = 4 ] && other=8 || other=4
expect 1 "--set disagreeing with the sProgram's SPLITS" "$cli" simulate flash_decoding --set "$dset,SPLITS=$other" --program "$tmp/dec.json"
stderr_has "--set SPLITS=$other disagrees with $tmp/dec.json: \$.params.SPLITS = $sp" "the disagreement names the option, the file and the field"
one_line_err "SPLITS disagreement"
expect 0 "schedule flash_decoding with SPLITS fixed" "$cli" schedule flash_decoding --set "$dset,SPLITS=4" -q --top 1
if grep -q '^split count SPLITS, as --set gives it' "$tmp/out" && grep -qE '^ +4 .* <- chosen$' "$tmp/out" &&
   [ "$(grep -cE '^ +[0-9]+ +[0-9.]+ us +[0-9.]+ us +[0-9.]+ us' "$tmp/out")" -eq 1 ]; then ok "--set SPLITS fixes the count"
else bad "--set SPLITS=4 fixes the count: $(head -c 600 "$tmp/out")"; fi

# A KV length the graph's default count (SPLITS = 16) does not divide: the pieces are ragged (16
# of 63, the last 55), so every step takes it; schedule picks a count whose pieces all hold keys,
# trying those that divide 1000 (25) too.
dodd="B=3,HKV=2,G=8,S=1000,D=128"
expect 0 "schedule flash_decoding with S = 1000" "$cli" schedule flash_decoding --set "$dodd" --target sm90a -q --top 1 -o "$tmp/dec1000.json"
sp=$(sed -n 's/.*"params": {"SPLITS": \([0-9]*\)}.*/\1/p' "$tmp/dec1000.json")
if [ -n "$sp" ] && [ $(( (sp - 1) * ((1000 + sp - 1) / sp) )) -lt 1000 ] && grep -qE "^ +25 +[0-9.]+ us" "$tmp/out"; then
    ok "a count whose pieces all hold keys is chosen ($sp); counts that divide 1000 (25) are tried"
else bad "S = 1000 split search: SPLITS '$sp', $(head -c 900 "$tmp/out")"; fi
if grep -qE '^ +16 +[0-9.]+ us +[0-9.]+ us +[0-9.]+ us  63, the last 55( |$)' "$tmp/out" &&
   grep -qE '^ +8 +[0-9.]+ us +[0-9.]+ us +[0-9.]+ us  125( |$)' "$tmp/out"; then
    ok "the table gives each count's piece length, and the last piece's where shorter"
else bad "piece lengths in the split table: $(grep -E '^ +(8|16) ' "$tmp/out")"; fi
# the sProgram it wrote carries the count, which codegen and simulate apply
expect 0 "codegen flash_decoding S = 1000 from the sProgram's SPLITS" "$cli" codegen flash_decoding --set "$dodd" --program "$tmp/dec1000.json" --target sm90a -o "$tmp/dec1000.bundle"
if [ -n "$sp" ] && grep -q "constexpr int QSHARE = $sp;" "$tmp/dec1000.bundle/kernel.cu"; then ok "the S = 1000 kernel is generated for SPLITS=$sp"
else bad "S = 1000 kernel: $(grep -n 'QSHARE' "$tmp/dec1000.bundle/kernel.cu" | head -3)"; fi
expect 0 "simulate flash_decoding S = 1000 from the sProgram's SPLITS" "$cli" simulate flash_decoding --set "$dodd" --program "$tmp/dec1000.json"
expect 0 "simulate flash_decoding with S = 1000 and the default count (ragged pieces)" "$cli" simulate flash_decoding --set "$dodd"
expect 0 "codegen flash_decoding with S = 1000 in 16 ragged pieces" "$cli" codegen flash_decoding --set "$dodd" --target sm90a -o "$tmp/dec1000r.bundle"
if grep -q "constexpr int SEQ_TOTAL = 1000, PIECES = 16;" "$tmp/dec1000r.bundle/kernel.cu" &&
   grep -q "pt::mask_keys<BN, CAUSAL>(s0, i \* BN, keys" "$tmp/dec1000r.bundle/kernel.cu"; then
    ok "the ragged kernel knows the sequence (1000 keys, 16 pieces) and masks by its piece's keys"
else bad "ragged S = 1000 kernel: $(grep -n 'SEQ_TOTAL\|mask_' "$tmp/dec1000r.bundle/kernel.cu" | head -3)"; fi
# A length in which the default count leaves a piece empty (S = 20: 16 pieces of 2, the last
# would start at key 30): schedule loads the graph with one piece instead (saying so) and
# searches the count; simulate, and schedule with the count given, refuse it, naming the cut
# and two counts that work.
dshort="B=3,HKV=2,G=8,S=20,D=128"
expect 0 "schedule flash_decoding with S = 20" "$cli" schedule flash_decoding --set "$dshort" --target sm90a -q --top 1
stderr_has 'schedule: note: ' "the note says the default count was replaced"
stderr_has '20 cut into 16 pieces (axis "s") of 2 leaves the last piece empty; expected a count whose last piece holds elements (10 or 20 here); SPLITS is searched instead' "the note names the cut and counts that work"
expect 1 "simulate flash_decoding with S = 20 and the default count" "$cli" simulate flash_decoding --set "$dshort"
stderr_has '$.axes.n.split: 20 cut into 16 pieces' "simulate names the split that leaves a piece empty"
expect 1 "schedule flash_decoding with S = 20 and SPLITS = 16 given" "$cli" schedule flash_decoding --set "$dshort,SPLITS=16" -q
stderr_has 'leaves the last piece empty' "a count given by --set is not replaced"
# Many sequences: the unsplit graph (one kernel writes O, no combine) is weighed against one piece
# and picked; its program names that graph, and codegen makes its bundle from it. With fewer
# CTAs than SMs the generator refuses it and points to the split kernels.
duns="B=64,HKV=8,G=4,S=1024,D=128"
expect 0 "schedule flash_decoding, 64 sequences" "$cli" schedule flash_decoding --set "$duns" --target sm90a -q --top 1 -o "$tmp/decu.json"
if grep -qE '^ +unsplit +[0-9.]+ us +none +[0-9.]+ us  <- chosen$' "$tmp/out" &&
   grep -q 'one kernel of the unsplit graph flash_decoding_unsplit (no combine' "$tmp/out" &&
   grep -q '"graph": "flash_decoding_unsplit"' "$tmp/decu.json"; then ok "64 sequences of 1k keys: the unsplit kernel is chosen"
else bad "unsplit pick: $(head -c 900 "$tmp/out")"; fi
expect 0 "codegen the unsplit pick" "$cli" codegen flash_decoding_unsplit --set "$duns" --program "$tmp/decu.json" --target sm90a -o "$tmp/decu.bundle"
if grep -q 'f16 out' "$tmp/decu.bundle/kernel.cu" && ! grep -q 'lse_out' "$tmp/decu.bundle/kernel.cu"; then ok "the unsplit kernel writes f16 O and no log-sum-exp"
else bad "unsplit kernel: $(head -5 "$tmp/decu.bundle/kernel.cu")"; fi
# the same sProgram given with the graph that was scheduled: the one-pass graph is loaded, said
expect 0 "codegen flash_decoding with the unsplit pick" "$cli" codegen flash_decoding --set "$duns" --program "$tmp/decu.json" --target sm90a -o "$tmp/decu.bundle2"
stderr_has "is an sProgram of flash_decoding_unsplit, the one-pass form of flash_decoding; that graph is used" "codegen says it uses the one-pass graph"
if cmp -s "$tmp/decu.bundle/kernel.cu" "$tmp/decu.bundle2/kernel.cu"; then ok "the same kernel either way"
else bad "the unsplit pick through flash_decoding gave another kernel"; fi
expect 1 "codegen the unsplit graph for 8 sequences" "$cli" codegen flash_decoding_unsplit --set "B=8,HKV=8,G=4,S=1024,D=128" --target sm90a -o "$tmp/decu8"
stderr_has "in 64 CTAs for 132 SMs is decoding, not prefill: use the flash_decoding example" "the unsplit graph on few CTAs points to the split kernels"
expect 0 "codegen the unsplit graph for 16 sequences (128 CTAs: more than half the SMs)" "$cli" codegen flash_decoding_unsplit --set "B=16,HKV=8,G=4,S=1024,D=128" --target sm90a -o "$tmp/decu16"

# The factored decay: searched when asked, every candidate in that form, written to the
# program and generated from it; refused, with the reason, for a graph without the chain
scan="B=2,S=1024,H=4"
expect 0 "schedule mamba2_chunk_scan --decay factored" "$cli" schedule mamba2_chunk_scan --set "$scan" --target sm90a --decay factored --top 3 -q -o "$tmp/scanf.json"
if [ "$(grep -cE '^ +[0-9]+ +[0-9.]+ us .* decay=factored$' "$tmp/out")" -eq 3 ] &&
   grep -q '"decay": "factored"' "$tmp/scanf.json"; then ok "every candidate listed is factored, and the program says so"
else bad "schedule --decay factored: $(head -c 900 "$tmp/out")"; fi
expect 0 "codegen the factored pick" "$cli" codegen mamba2_chunk_scan --set "$scan" --program "$tmp/scanf.json" --target sm90a -o "$tmp/scanf.bundle"
if grep -q 'pt::decay_pivot_make' "$tmp/scanf.bundle/kernel.cu"; then ok "the factored pick's kernel takes the pivot"
else bad "factored kernel: $(grep -n 'decay' "$tmp/scanf.bundle/kernel.cu" | head -3)"; fi
expect 0 "schedule mamba2_chunk_scan --decay tile" "$cli" schedule mamba2_chunk_scan --set "$scan" --top 1 -q --decay tile -o "$tmp/scant.json"
if ! grep -q '"decay"' "$tmp/scant.json"; then ok "with --decay tile the program has no decay key"
else bad "tile form program: $(grep decay "$tmp/scant.json")"; fi
# Without --decay all three forms are searched (factored measured 1.4-2.5% faster than the same
# schedule in the tile form on the H200, factored16 3% faster than factored on the H100): the
# pick is the tile pick with its decay factored16.
expect 0 "schedule mamba2_chunk_scan (all forms)" "$cli" schedule mamba2_chunk_scan --set "$scan" --top 1 -q -o "$tmp/scana.json"
if grep -q '"decay": "factored16"' "$tmp/scana.json" &&
   [ "$(grep -v '"decay"' "$tmp/scana.json" | tr -d ' \n,')" = "$(grep -v '"decay"' "$tmp/scant.json" | tr -d ' \n,')" ]; then
    ok "without --decay: the tile pick, factored16"
else bad "all forms: $(diff "$tmp/scant.json" "$tmp/scana.json" | head -5)"; fi
expect 0 "codegen the factored16 pick" "$cli" codegen mamba2_chunk_scan --set "$scan" --program "$tmp/scana.json" --target sm90a -o "$tmp/scana.bundle"
if grep -q 'pt::afrag_decay<true, elem_t, KS, true>' "$tmp/scana.bundle/kernel.cu" &&
   grep -q 'const float fct = ' "$tmp/scana.bundle/reference.cu"; then
    ok "the factored16 kernel rounds the factor, and its reference does too"
else bad "factored16 kernel: $(grep -n 'afrag_decay' "$tmp/scana.bundle/kernel.cu" | head -3)"; fi
expect 1 "schedule mamba2_chunk_state --decay factored" "$cli" schedule mamba2_chunk_state --decay factored
stderr_has 'schedule: --decay factored: decay "factored": graph mamba2_chunk_state has no exp_decay op' "a graph without the chain is refused with its reason"
expect 2 "schedule --decay rows" "$cli" schedule mamba2_chunk_scan --decay rows
stderr_has 'schedule: --decay rows: expected tile, factored, factored16 or any' "an unknown form is named"

# The prologue product a tile ahead (offset 1 on mma.y_off: the next tile's C . statesᵀ issued
# before this tile's epilogue, measured 1-1.5% faster on the H100): the persistent ChunkScan
# pick carries it, its kernel issues it into a second accumulator, and a program that cannot
# have it is refused with the rule it breaks.
scan8="B=8,S=2048"
expect 0 "schedule mamba2_chunk_scan at 8 x 2048" "$cli" schedule mamba2_chunk_scan --set "$scan8" --target sm90a --top 1 -o "$tmp/ahead.json"
if grep -q 'prologue-ahead' "$tmp/out" && grep -q '"stask": "mma.y_off.wg0", "offset": 1' "$tmp/ahead.json"; then
    ok "the persistent pick issues its prologue product a tile ahead"
else bad "prologue ahead: $(grep -n 'y_off' "$tmp/ahead.json" | head -3)"; fi
expect 0 "codegen the prologue-ahead pick" "$cli" codegen mamba2_chunk_scan --set "$scan8" --program "$tmp/ahead.json" --target sm90a -o "$tmp/ahead.bundle"
if grep -q 'float acc2\[BN / 2\]' "$tmp/ahead.bundle/kernel.cu" && grep -q 'mma_pro(acc2' "$tmp/ahead.bundle/kernel.cu"; then
    ok "its kernel issues the next tile's product into a second accumulator"
else bad "prologue-ahead kernel: $(grep -n 'mma_pro' "$tmp/ahead.bundle/kernel.cu" | head -3)"; fi
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['partition']['run']=1; json.dump(p, open(sys.argv[2],'w'))" "$tmp/ahead.json" "$tmp/ahead_run1.json"
expect 1 "validate the prologue ahead with causal tiles from an atomic" "$cli" validate mamba2_chunk_scan --set "$scan8" --program "$tmp/ahead_run1.json"
stderr_has "takes causal tiles one at a time from an atomic" "refused: the next tile is not known"
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['partition']={'persistent': False}; json.dump(p, open(sys.argv[2],'w'))" "$tmp/ahead.json" "$tmp/ahead_np.json"
expect 1 "validate the prologue ahead with one tile a CTA" "$cli" validate mamba2_chunk_scan --set "$scan8" --program "$tmp/ahead_np.json"
stderr_has "only a persistent CTA has a tile before" "refused: no tile before"

# Each warpgroup storing its own head (tiling wg_stores): the ChunkScan pick at 8 x 2048 has it,
# its kernel stores from both warpgroups, and what cannot have it is refused with the rule.
if grep -q '"wg_stores": true' "$tmp/ahead.json" &&
   python3 -c "import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if all(any(l['name'] == 'tma.wg%d' % w and l['order'] == ['store.out.wg%d' % w] for l in p['lanes']) for w in (0, 1)) else 1)" "$tmp/ahead.json"; then
    ok "the pick stores each warpgroup's head from its own lane"
else bad "wg_stores pick: $(grep -n 'store' "$tmp/ahead.json" | head -3)"; fi
if grep -q 'store.out.wg0 sits on this warpgroup' "$tmp/ahead.bundle/kernel.cu" &&
   grep -q 'store.out.wg1 sits on this warpgroup' "$tmp/ahead.bundle/kernel.cu"; then
    ok "its kernel stores from each warpgroup"
else bad "wg_stores kernel: $(grep -n 'tma_store_5d' "$tmp/ahead.bundle/kernel.cu" | head -3)"; fi
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['wg_stores']='yes'; json.dump(p, open(sys.argv[2],'w'))" "$tmp/ahead.json" "$tmp/ws_bad.json"
expect 1 "load wg_stores that is not a boolean" "$cli" validate mamba2_chunk_scan --set "$scan8" --program "$tmp/ws_bad.json"
stderr_has "\$.wg_stores: is a string; expected true or false" "the field is named"
expect 1 "partition with wg_stores and one warpgroup" "$cli" partition mamba2_chunk_scan --set "$scan8" --tile l=64,h=1,wg=1,wg_stores=1
stderr_has 'wg_stores=1 but output "out" is not split between warpgroups' "refused with the rule"
expect 1 "codegen a GEMM with wg_stores" "$cli" codegen gemm_f16 --tile m=128,n=128,wg=2,wg_stores=1 --target sm90a -o "$tmp/ws_gemm"
stderr_has "generated for Mamba2's ChunkState and ChunkScan only" "the generator says where it applies"

echo "$fails failed"
[ "$fails" -eq 0 ]
