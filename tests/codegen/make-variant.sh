#!/bin/sh
# make-variant.sh CLI OUTDIR NAME GRAPH SET TILE EDITS — write the sm90a bundle of one variant of
# tests/codegen/variants.txt into OUTDIR/NAME (default sProgram with EDITS applied; SET, TILE
# and EDITS may be -). EDITS keys are merged into the sProgram JSON, except "offset"
# ({sTask: iteration offset}), "lane_order" ({lane: [sTask or [sTask, offset], ...]}),
# "store_role" (a consumer role's name: the stores move to a new TMA lane of that role) and
# "add_waits" ([[sTask, on, distance], ...]). PT_VARIANT_TARGET / PT_VARIANT_HW choose another
# target and hardware model (tests/codegen/variants-gfx942.txt: gfx942 on MI300X).
set -eu
target=${PT_VARIANT_TARGET:-sm90a}
hwarg=""
[ -n "${PT_VARIANT_HW:-}" ] && hwarg="--hw=$PT_VARIANT_HW"
cli=$1 out=$2 name=$3 graph=$4 set=$5 tile=$6 edits=$7
# a graph file of the tree (tests/codegen/graphs/...) is named from the repository root
case $graph in
*.json) [ "${graph#/}" = "$graph" ] && graph=$(cd "$(dirname "$0")/../.." && pwd)/$graph ;;
esac
dir=$out/$name
mkdir -p "$dir"
setarg="" tilearg=""
[ "$set" != "-" ] && setarg="--set=$set"
[ "$tile" != "-" ] && tilearg="--tile=$tile"
# shellcheck disable=SC2086
"$cli" program "$graph" $hwarg $setarg $tilearg -o "$dir/program.json"
if [ "$edits" != "-" ]; then
    python3 - "$dir/program.json" "$edits" <<'PY'
import ast, json, sys
path, edits = sys.argv[1], ast.literal_eval(sys.argv[2])
p = json.load(open(path))
for k, v in edits.items():
    if k == "offset":  # {"sTask id": iteration offset} on whichever lane holds it
        for lane in p["lanes"]:
            for i, e in enumerate(lane["order"]):
                name = e if isinstance(e, str) else e["stask"]
                if name in v:
                    lane["order"][i] = {"stask": name, "offset": v[name]}
    elif k == "lane_order":  # {"lane": ["sTask" or ["sTask", offset], ...]}: the lane's new order
        for lane in p["lanes"]:
            if lane["name"] in v:
                lane["order"] = [e if isinstance(e, str) else {"stask": e[0], "offset": e[1]}
                                 for e in v[lane["name"]]]
    elif k == "store_role":  # "wgN": the stores move to a new TMA lane of that warpgroup's role
        stores = [e for lane in p["lanes"] for e in lane["order"]
                  if (e if isinstance(e, str) else e["stask"]).startswith("store.")]
        for lane in p["lanes"]:
            lane["order"] = [e for e in lane["order"] if e not in stores]
        p["lanes"].append({"name": "tma." + v, "seu": "tma", "role": v, "order": stores})
    elif k == "add_waits":  # [["sTask", "on", distance], ...]
        p["waits"] += [{"stask": a, "on": b, "distance": d} for a, b, d in v]
    elif isinstance(v, dict) and isinstance(p.get(k), dict):
        p[k].update(v)
    else:
        p[k] = v
json.dump(p, open(path, "w"), indent=1)
PY
fi
# shellcheck disable=SC2086
"$cli" codegen "$graph" $hwarg $setarg --program "$dir/program.json" --target "$target" -o "$dir"
