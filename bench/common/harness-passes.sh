#!/usr/bin/env bash
# bench/common/harness-passes.sh PASSES BUNDLE... — times built bundles with their own harness
# (--no-check, 2 placements), PASSES passes over the list so that drift reaches each alike; one
# line per bundle and pass: "NAME repP T us" (or the harness's output where it gave no time).
# Bundles without a built harness are left out. Used by the device rounds in bench/next.
set -u
passes=$1; shift
for rep in $(seq 1 "$passes"); do
    for v in "$@"; do
        [ -x "$v/harness" ] || continue
        t=$(cd "$v" && timeout 60 ./harness --no-check --json-only --placements 2 2>/dev/null | tail -1)
        echo "$(basename "$v") rep$rep $(echo "$t" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print("%.2f us" % (r["time_ms_median"]*1e3))' 2>/dev/null || echo "$t" | cut -c1-200)"
    done
done
