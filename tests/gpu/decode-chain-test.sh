#!/bin/sh
# decode-chain-test.sh CLI — meson test (suite 'gpu'), on the GPU machine: FlashDecoding's two
# kernels as a model runs them, the partial and then the combine launched as its programmatic
# dependent on one stream (codegen/sm90a/common.c sm90a_pdl_role), which the harness (one kernel
# at a time) never does; or, where the scheduler picks it (many sequences), the unsplit graph's
# one kernel. For shapes that are in no benchmark (odd batch, G, KV length and split
# count; MHA; MQA, whose one K/V head needs over 100 pieces; one split; head dim 64; split
# counts that do not divide the KV length, the last piece shorter), the scheduler's
# sProgram of each kernel is generated, built with `make lib`, and bench/fa/decode_time.py
# (CHECK_ONLY=1) runs the pair on random inputs and checks every element of O against torch's
# scaled_dot_product_attention. Skips (77) without a GPU, nvcc, make or python3 with torch.
set -u
cli=${1:?usage: decode-chain-test.sh CLI}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/require.sh"
require_gpu
require_tool make
require_torch "torch SDPA is the reference"
require_nvcc
tmp=$(mktemp -d /tmp/pt-decode-chain.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pairs=""   # decode_time.py's arguments: PARTIAL COMBINE, or UNSPLIT -
bundles=""
want=0     # the pairs of the list
gen() { # example set program out: the sm90a bundle of the example from the sProgram (log: $log)
    "$cli" codegen "$root/examples/$1.json" --set "$2" --program "$3" --target sm90a -o "$4" >>"$log" 2>&1
}
# name  B HKV G S D: the scheduler picks SPLITS for each (SPLITS=N in the set fixes it instead)
while read -r name B HKV G S D SPL; do
    case "$name" in ''|'#'*) continue ;; esac
    want=$((want + 1))
    set_p="B=$B,HKV=$HKV,G=$G,S=$S,D=$D"
    [ "$SPL" = - ] || set_p="$set_p,SPLITS=$SPL"
    log=$tmp/$name.log
    if ! "$cli" schedule "$root/examples/flash_decoding.json" --set "$set_p" --target sm90a --budget 20 \
            -o "$tmp/$name.p.json" >"$tmp/$name.log" 2>&1; then
        echo "FAIL $name: schedule: $(tail -1 "$tmp/$name.log")"; exit 1
    fi
    sp=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))
print("unsplit" if p["graph"] == "flash_decoding_unsplit" else p["params"]["SPLITS"])' "$tmp/$name.p.json")
    if [ "$sp" = unsplit ]; then
        gen flash_decoding_unsplit "$set_p" "$tmp/$name.p.json" "$tmp/$name.unsplit" ||
            { echo "FAIL $name: generation: $(tail -1 "$log")"; exit 1; }
        echo "$name: B $B, HKV $HKV, G $G, KV $S, D $D, unsplit"
        pairs="$pairs $tmp/$name.unsplit -"
        bundles="$bundles $tmp/$name.unsplit"
        continue
    fi
    set_c="B=$B,HKV=$HKV,G=$G,SPLITS=$sp,D=$D"
    "$cli" schedule "$root/examples/flash_decoding_combine.json" --set "$set_c" --target sm90a --budget 20 \
        -o "$tmp/$name.c.json" >>"$log" 2>&1 &&
    gen flash_decoding "$set_p" "$tmp/$name.p.json" "$tmp/$name.partial" &&
    gen flash_decoding_combine "$set_c" "$tmp/$name.c.json" "$tmp/$name.combine" ||
        { echo "FAIL $name: generation: $(tail -1 "$log")"; exit 1; }
    echo "$name: B $B, HKV $HKV, G $G, KV $S, D $D, SPLITS $sp"
    pairs="$pairs $tmp/$name.partial $tmp/$name.combine"
    bundles="$bundles $tmp/$name.partial $tmp/$name.combine"
done <<'LIST'
b3_g8_kv1000          3  2  8  1000   128  -
b5_mha_kv777_sp1      5  16 1  777    128  1
b1_g4_kv33333         1  8  4  33333  128  -
b2_g6_kv5005_d64_sp7  2  4  6  5005   64   7
b64_g4_kv2048         64 8  4  2048   128  -
b37_g4_kv3001         37 8  4  3001   128  -
b1_g4_kv16001_sp16    1  8  4  16001  128  16
b2_g8_kv4099_sp8      2  2  8  4099   64   8
b1_mqa_g32_kv65536    1  1  32 65536  128  -
b1_mqa_g8_kv70001     1  1  8  70001  128  -
LIST
for b in $bundles; do
    make -s -C "$b" all lib >"$b.build.log" 2>&1 || { echo "FAIL: $b did not build"; tail -5 "$b.build.log"; exit 1; }
done
# shellcheck disable=SC2086  # the pairs are one word each
CHECK_ONLY=1 PLACEMENTS=1 python3 "$root/bench/fa/decode_time.py" $pairs >"$tmp/check.jsonl" 2>"$tmp/check.err"
python3 - "$tmp/check.jsonl" "$want" <<'PY'
import json, os, sys
bad = n = 0
want = int(sys.argv[2])
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "partial" not in r:
        continue
    n += 1
    name = os.path.basename(r["partial"])
    if r.get("error") or r.get("mismatches") != 0:
        bad += 1
        print(f"FAIL {name}: {r.get('error') or str(r.get('mismatches')) + ' mismatches'}")
    else:
        print(f"ok   {name}: {r['elements']} elements of O within tolerance of torch ({r['reference_backend']})")
print(f"decode chain: {n} pairs, {n - bad} correct")
if n != want:
    print(f"FAIL: {want} pairs listed, {n} checked (see decode_time.py's errors)")
sys.exit(1 if bad or n != want else 0)
PY
