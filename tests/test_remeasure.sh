#!/bin/sh
# test_remeasure.sh CLI — tools/remeasure: `gen` writes a bundle, a program and a row for each of
# the first rows of a stored dataset; `run` (with stand-in harnesses: no GPU here) keeps the
# rows whose harness is correct and times them, and names the others.
set -u
cli=$1
tmp=$(mktemp -d /tmp/pt-remeasure.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 tools/remeasure gen --cli "$cli" --data bench/measured-2026-12-03-s19/measured.jsonl \
    --out "$tmp/g" --limit 3 --jobs 2 >"$tmp/gen.txt" 2>&1 || { cat "$tmp/gen.txt"; fail "gen"; }
[ "$(wc -l <"$tmp/g/rows.jsonl")" -eq 3 ] || fail "rows.jsonl has not 3 rows"
for n in $(python3 -c 'import json,sys; [print(json.loads(l)["name"]) for l in open(sys.argv[1])]' "$tmp/g/rows.jsonl"); do
    [ -s "$tmp/g/bundles/$n/kernel.cu" ] && [ -s "$tmp/g/bundles/$n/launch.c" ] || fail "$n: no bundle"
    [ -s "$tmp/g/programs/$n.json" ] || fail "$n: no program"
done
# a row whose sProgram the generator refuses is named and left out
mkdir -p "$tmp/bad/programs"
echo '{"name": "nope", "graph": "gemm_f16", "set": "M=64,N=64,K=64"}' >"$tmp/bad/measured.jsonl"
echo '{"format": "pipethreader.sprogram"}' >"$tmp/bad/programs/nope.json"
python3 tools/remeasure gen --cli "$cli" --data "$tmp/bad/measured.jsonl" --out "$tmp/b" >"$tmp/bad.txt" 2>&1 &&
    fail "gen accepted a bad sProgram"
grep -q "nope: not generated" "$tmp/bad.txt" || { cat "$tmp/bad.txt"; fail "the bad row is not named"; }
# run, with stand-in bundles: one correct, one wrong
r=$tmp/r
mkdir -p "$r/bundles/ok" "$r/bundles/wrong"
printf '{"name": "ok", "graph": "gemm_f16", "set": "M=1"}\n{"name": "wrong", "graph": "gemm_f16", "set": "M=2"}\n' >"$r/rows.jsonl"
for x in ok wrong; do printf 'all:\n\t@true\n' >"$r/bundles/$x/Makefile"; done
printf '#!/bin/sh\necho "{\\"correct\\": true, \\"time_ms_median\\": 0.0125}"\n' >"$r/bundles/ok/harness"
printf '#!/bin/sh\necho "{\\"correct\\": false, \\"mismatches\\": 3, \\"time_ms_median\\": null}"\n' >"$r/bundles/wrong/harness"
chmod +x "$r/bundles/ok/harness" "$r/bundles/wrong/harness"
python3 tools/remeasure run --out "$r" >"$tmp/run.txt" 2>&1 && fail "run passed with a wrong row"
grep -q "wrong: wrong: 3 mismatches" "$tmp/run.txt" || { cat "$tmp/run.txt"; fail "the wrong row is not named"; }
python3 - "$r/measured.jsonl" <<'PY' || fail "measured.jsonl"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["name"] for r in rows] == ["ok"], rows
assert abs(rows[0]["measured_us"] - 12.5) < 1e-9 and rows[0]["measured_placements_us"] == [12.5, 12.5], rows
PY
echo "ok: remeasure gen and run"
