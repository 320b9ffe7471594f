#!/bin/sh
# make-variant.sh CLI OUTDIR NAME GRAPH SET TILE EDITS — write the sm90a bundle of one variant of
# tests/codegen/variants.txt into OUTDIR/NAME (default sProgram with EDITS applied; SET, TILE
# and EDITS may be -).
set -eu
cli=$1 out=$2 name=$3 graph=$4 set=$5 tile=$6 edits=$7
dir=$out/$name
mkdir -p "$dir"
setarg="" tilearg=""
[ "$set" != "-" ] && setarg="--set=$set"
[ "$tile" != "-" ] && tilearg="--tile=$tile"
# shellcheck disable=SC2086
"$cli" program "$graph" $setarg $tilearg -o "$dir/program.json"
if [ "$edits" != "-" ]; then
    python3 - "$dir/program.json" "$edits" <<'PY'
import ast, json, sys
path, edits = sys.argv[1], ast.literal_eval(sys.argv[2])
p = json.load(open(path))
for k, v in edits.items():
    if isinstance(v, dict) and isinstance(p.get(k), dict):
        p[k].update(v)
    else:
        p[k] = v
json.dump(p, open(path, "w"), indent=1)
PY
fi
# shellcheck disable=SC2086
"$cli" codegen "$graph" $setarg --program "$dir/program.json" --target sm90a -o "$dir"
