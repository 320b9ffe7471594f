#!/usr/bin/env python3
"""no_wg_stores.py IN.json OUT.json [LANE] — the same sProgram without the tiling's wg_stores: the
warpgroups' own stores (store.X.wgN on their TMA lanes) become the one store of the whole tile,
store.X, on LANE (default "tma", the producer's; "tma.wgN" makes that lane for warpgroup N's
role), waiting for every warpgroup's epilogue. For A/B timing of a pick against its form without
wg_stores (bench/mamba2/results-*/)."""
import json
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
lane = sys.argv[3] if len(sys.argv) > 3 else "tma"
p = json.load(open(src))
if not p.pop("wg_stores", False):
    sys.exit(f"{src}: no wg_stores to take away")
name = lambda e: e if isinstance(e, str) else e["stask"]
own = re.compile(r"^(store\.[^.]+)\.wg\d+$")
stores, epi = set(), {}
for w in p.get("waits", []):
    m = own.match(w["stask"])
    if m:
        stores.add(m.group(1))
        epi.setdefault(m.group(1), []).append(w["on"])
for ln in p["lanes"]:
    ln["order"] = [e for e in ln["order"] if not own.match(name(e))]
p["lanes"] = [ln for ln in p["lanes"] if ln["order"] or not ln["name"].startswith("tma.wg")]
target = next((ln for ln in p["lanes"] if ln["name"] == lane), None)
if target is None:
    m = re.match(r"^tma\.(wg\d+)$", lane)
    if not m:
        sys.exit(f"no lane {lane}")
    target = {"name": lane, "seu": "tma", "role": m.group(1), "order": []}
    p["lanes"].append(target)
target["order"] += sorted(stores)
p["waits"] = [w for w in p.get("waits", []) if not own.match(w["stask"])]
p["waits"] += [{"stask": s, "on": on, "distance": 0} for s in sorted(stores) for on in epi[s]]
json.dump(p, open(dst, "w"), indent=1)
