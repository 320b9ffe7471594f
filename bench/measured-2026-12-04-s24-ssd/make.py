#!/usr/bin/env python3
"""make.py — assemble this dataset from session 24's Mamba2 rounds (bench/mamba2/results-2026-12-04-s24).

Run from the repository root after regenerating rounds 147, 150 and 151's bundles locally
(`sh bench/mamba2/results-2026-12-04-s24/scripts/mk-r147.sh` etc. write .dev/rN/b/NAME/program.json);
the other programs are the ones stored with the rounds. Rows whose kernel the generator no longer
makes (round 148's dynamic hand-out of causal runs, reverted) or whose program was not kept
(round 148's newpick) are left out. One row per (bundle, round); measured_us is the bundle's
median over its buffer placements, timed interleaved with mamba_ssm by ssd_time.py.
"""
import json
import os
import shutil

RES = "bench/mamba2/results-2026-12-04-s24"
OUT = "bench/measured-2026-12-04-s24-ssd"


def program_of(rnd, bundle):
    name, _, shape = bundle.rpartition("_")
    if rnd == 152:
        if bundle.startswith("pick_"):
            return f"{RES}/r152/pick-{bundle[5:]}.json"
        return f"{RES}/programs/r152-{bundle}.json"
    if name == "pick":
        return f"{RES}/r145/pick-{shape}.json"
    if name in ("l128c", "newpick") and rnd == 149:
        return f"{RES}/r149/{name}-{shape}.json"
    if name.endswith("dyn") or name == "newpick":
        return None
    if name == "h2st4b":
        name = "h2st4"
    for r in (rnd, 147):
        p = f".dev/r{r}/b/{name}_{shape}/program.json"
        if os.path.exists(p):
            return p
    raise SystemExit(f"no program for round {rnd} {bundle}")


os.makedirs(f"{OUT}/programs", exist_ok=True)
rows = []
for rnd in (147, 148, 149, 150, 151, 152):
    for line in open(f"{RES}/r{rnd}/vs_mamba.jsonl"):
        d = json.loads(line)
        if "bundle" not in d:
            continue
        prog = program_of(rnd, d["bundle"])
        if prog is None:
            continue
        graph = ("examples/mamba2_chunk_scan" if d["kernel"] == "ChunkScan"
                 else "examples/mamba2_chunk_state")
        s = f"B={d['B']},S={d['S']}"
        if "grouped" in d["bundle"]:
            graph += "_grouped"
            s += ",G=8,HG=8"
        name = f"ssd-{d['bundle']}-r{rnd}"
        shutil.copy(prog, f"{OUT}/programs/{name}.json")
        t = d["times"]["ours"]
        rows.append({"name": name, "graph": graph + ".json", "set": s,
                     "measured_us": round(t["median_ms"] * 1000, 2),
                     "measured_placements_us": [round(x * 1000, 2) for x in t["placement_medians_ms"]],
                     "round": rnd, "vs_mamba_ssm": round(d["speedup_vs_mamba_ssm"], 4)})
with open(f"{OUT}/measured.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
print(len(rows), "rows")
