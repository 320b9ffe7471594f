#!/usr/bin/env python3
"""report.py OUTDIR — issue 18's whole-set numbers from one bench/pick/sets run: for the GEMM
Llama-3 set (OUTDIR/gemm: bench/gemm/run with AUTO_N) and the FA3 grid (OUTDIR/fa: bench/fa/run
with AUTO_N), every configuration's candidates timed interleaved in one process:
  - the model's pick (rank 1) against the fastest measured candidate: measured(pick) /
    measured(best), per configuration and as a geomean per set (the goal is <= 1.03);
  - predicted against measured kernel time, predicted / measured - 1, for the picks and for
    every candidate: mean |error|, mean, max |error|, rows beyond 20% (the goal: mean <= 10%,
    none beyond 20%);
  - the pick against the set's baseline timed in the same process (torch.matmul, cuDNN);
  - with bench/fa/run's ALSO_HW, another model's pick (rank 1000, not one of the candidates)
    against this model's pick: it is left out of "best", which is the best of the model's own
    candidates, and shown as "other / pick".
Writes OUTDIR/measured/measured.jsonl with programs/NAME.json beside it (every timed
candidate), the layout tools/model-score reads. Prints Markdown."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from pt_report import geomean, load  # noqa: E402


OTHER_RANK = 1000  # bench/fa/run's ALSO_HW: another model's pick, not one of the candidates


def list_lines(d):
    """The split lines of d/list.txt (the bench script's bundle list) that carry RANK CONFIG."""
    path = os.path.join(d, "list.txt")
    return [f for f in (line.split() for line in open(path)) if len(f) >= 9] \
        if os.path.exists(path) else []


def gemm_rows(d):
    """[{set, config, graph, params, cands: {rank: (name, pred_us, meas_us, placements)}, base}]"""
    lines = {f[0]: f for f in list_lines(d)}
    out = []
    for r in load(os.path.join(d, "torch.jsonl")):
        if "config" not in r:
            continue
        row = {"set": "GEMM", "config": r["config"], "error": r.get("error"), "cands": {},
               "base": None}
        f = lines.get(r["name"])
        if f:
            row["graph"], row["params"] = f"gemm_{f[1]}", f"M={f[3]},N={f[4]},K={f[5]}"
        for key, c in (r.get("candidates") or {}).items():
            rank = int(key[4:])
            subj = r.get("ours" if rank == 1 else key)
            if subj and "error" not in c:
                row["cands"][rank] = (c["name"], c["predicted_us"], subj["median_ms"] * 1e3,
                                      [x * 1e3 for x in subj.get("placement_medians_ms", [])])
        if "torch" in r:
            row["base"] = ("torch.matmul", r["torch"]["median_ms"] * 1e3)
        out.append(row)
    return out


def fa_rows(d):
    sets = {f[1]: f"B={f[2]},H={f[3]},S={f[4]},D={f[5]},CAUSAL={f[6]}" for f in list_lines(d)}
    out = []
    for r in load(os.path.join(d, "times.jsonl")):
        if "config" not in r:
            continue
        t = r.get("times", {})
        row = {"set": "FA", "config": r["config"], "error": r.get("error"), "cands": {},
               "graph": "flash_attention", "params": sets.get(r["config"]), "base": None}
        for key, c in (r.get("candidates") or {}).items():
            if key in t and "error" not in c:
                row["cands"][int(key[4:])] = (c["name"], c["predicted_ns"] / 1e3,
                                              t[key]["median_ms"] * 1e3,
                                              [x * 1e3 for x in t[key].get("placement_medians_ms", [])])
        if "cudnn" in t:
            row["base"] = ("cuDNN", t["cudnn"]["median_ms"] * 1e3)
        out.append(row)
    return out


def stats(errs):
    if not errs:
        return "—"
    a = [abs(e) for e in errs]
    return (f"mean \\|err\\| {100 * sum(a) / len(a):.1f}%, mean {100 * sum(errs) / len(errs):+.1f}%, "
            f"max {100 * max(a):.1f}%, beyond 20%: {sum(x > 0.2 for x in a)} of {len(a)}")


def main():
    out = sys.argv[1]
    rows = gemm_rows(os.path.join(out, "gemm")) + fa_rows(os.path.join(out, "fa"))
    mdir = os.path.join(out, "measured")
    os.makedirs(os.path.join(mdir, "programs"), exist_ok=True)
    with open(os.path.join(mdir, "measured.jsonl"), "w") as mj:
        for row in rows:
            sub = "gemm" if row["set"] == "GEMM" else "fa"
            for rank, (name, pred, meas, places) in sorted(row["cands"].items()):
                dname = name if row["set"] == "GEMM" else f"fa-{name}"
                src = os.path.join(out, sub, name, "program.json")
                if not row.get("params") or not os.path.exists(src):
                    continue
                shutil.copy(src, os.path.join(mdir, "programs", dname + ".json"))
                mj.write(json.dumps({"name": dname, "graph": row["graph"], "set": row["params"],
                                     "rank": rank, "measured_us": round(meas, 3),
                                     "measured_placements_us": [round(x, 3) for x in places],
                                     "predicted_us": round(pred, 1)}) + "\n")
    for setname in ("GEMM", "FA"):
        rs = [r for r in rows if r["set"] == setname]
        if not rs:
            continue
        print(f"\n### {setname}: {len(rs)} configurations\n")
        print("| configuration | candidates timed | pick pred µs | pick meas µs | error | best (rank) µs "
              "| pick / best | baseline µs | baseline / pick | notes |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        ratios, pick_err, all_err, base_ratio, same, other = [], [], [], [], 0, []
        for r in rs:
            c = {k: v for k, v in r["cands"].items() if k < OTHER_RANK}
            o = r["cands"].get(OTHER_RANK)
            if 1 not in c:
                print(f"| {r['config']} | {len(c)} | | not run | | | | | | {r.get('error') or 'pick not timed'} |")
                continue
            best = min(c, key=lambda k: c[k][2])
            ratio = c[1][2] / c[best][2]
            ratios.append(ratio)
            same += best == 1
            e = c[1][1] / c[1][2] - 1
            pick_err.append(e)
            all_err += [p / m - 1 for _, p, m, _ in c.values()]
            b = r["base"]
            br = b[1] / c[1][2] if b else None
            if br:
                base_ratio.append(br)
            pl = c[1][3]
            notes = []
            if len(pl) > 1 and max(pl) / min(pl) > 1.03:
                notes.append(f"pick varies {100 * (max(pl) / min(pl) - 1):.0f}% over placements")
            if o:
                other.append(o[2] / c[1][2])
                notes.append(f"other model's pick {o[2]:.1f} µs, {o[2] / c[1][2]:.3f} of the pick")
            if r.get("error"):
                notes.append(r["error"])
            print(f"| {r['config']} | {len(c)} | {c[1][1]:.1f} | {c[1][2]:.1f} | {100 * e:+.1f}% | "
                  f"{c[best][2]:.1f} ({best}) | {ratio:.3f} | {b[1] if b else 0:.1f} | "
                  f"{br or 0:.3f} | {'; '.join(notes)} |")
        g = geomean(ratios)
        print(f"\n{setname}: pick / best geomean {g:.4f} over {len(ratios)} configurations "
              f"(pick is the fastest in {same}); worst {max(ratios):.3f}" if ratios else "")
        print(f"{setname}: predicted vs measured, picks: {stats(pick_err)}")
        print(f"{setname}: predicted vs measured, every candidate: {stats(all_err)}")
        if base_ratio:
            print(f"{setname}: baseline / pick geomean {geomean(base_ratio):.3f}")
        if other:
            print(f"{setname}: the other model's pick / this model's pick, geomean {geomean(other):.4f} "
                  f"over the {len(other)} configurations where it is not one of the candidates")


if __name__ == "__main__":
    main()
