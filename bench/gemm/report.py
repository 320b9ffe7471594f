"""report.py OUTDIR — the Markdown table of bench/gemm/run from OUTDIR/harness.jsonl (the bundle
harness: kernel vs cuBLASLt) and OUTDIR/torch.jsonl (one process: kernel vs torch.matmul).
Speed ratios are baseline time / kernel time: above 1 the generated kernel is faster."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from pt_report import fmt, geomean, head_line, load, placement_ratios  # noqa: E402


def main():
    out = sys.argv[1]
    harness = load(os.path.join(out, "harness.jsonl"))
    torch_rows = load(os.path.join(out, "torch.jsonl"))
    tor = {r["name"]: r for r in torch_rows if "name" in r}
    print(head_line(torch_rows))
    print("| dtype | shape | M×N×K | ours TFLOP/s | cuBLASLt TFLOP/s | ours/cuBLASLt | "
          "ours (py) TFLOP/s | torch TFLOP/s | ours/torch | ratio range | checked | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    groups = {}
    # with SKIP_HARNESS=1 a configuration's pick has only a torch row: list it from timed.txt
    # (name dtype shape M N K predicted rank ...) with the cuBLASLt columns empty
    seen = {r.get("name") for r in harness}
    timed = os.path.join(out, "timed.txt")
    if os.path.exists(timed):
        for line in open(timed):
            f = line.split()
            rank = f[7] if len(f) > 7 else "1"  # AUTO_N's other candidates: bench/pick/report.py
            if len(f) >= 6 and rank == "1" and f[0] not in seen and f[0] in tor:
                harness.append({"name": f[0], "dtype": f[1], "shape": f[2], "M": int(f[3]),
                                "N": int(f[4]), "K": int(f[5]), "result": {"torch_only": True}})
                seen.add(f[0])
    for r in harness:
        name = r.get("name", "?")
        if "result" not in r or "error" in r.get("result", {}):
            why = r.get("error") or r.get("result", {}).get("error", "?")
            print(f"| {name.split('-')[0]} | {name} | | not run | | | | | | | | {why} |")
            continue
        res, dt = r["result"], r["dtype"]
        mnk = f"{r['M']}×{r['N']}×{r['K']}"
        bl = res.get("baseline") or {}
        ours_tf = res.get("tflops")
        lt_tf = bl.get("tflops")
        ratio_lt = bl.get("speedup")
        t = tor.get(name, {})
        py_ours = py_torch = ratio_t = None
        if "ours" in t and "torch" in t:
            fl = t["flops"]
            py_ours = fl / (t["ours"]["median_ms"] * 1e-3) / 1e12
            py_torch = fl / (t["torch"]["median_ms"] * 1e-3) / 1e12
            ratio_t = t["torch"]["median_ms"] / t["ours"]["median_ms"]
        ratios = placement_ratios(res, bl) + placement_ratios(t.get("ours"), t.get("torch"))
        spread = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else "—"
        notes = []
        if res.get("correct") is not True:
            notes.append(f"WRONG: {res.get('mismatches')} mismatches")
        if bl.get("correct") is False:
            notes.append("cuBLASLt result wrong")
        if bl.get("why_none"):
            notes.append(bl["why_none"])
        if t.get("error"):
            notes.append("torch: " + t["error"])
        if t.get("mismatches"):
            notes.append(f"py check: {t['mismatches']} mismatches")
        if py_ours and ours_tf and abs(py_ours / ours_tf - 1) > 0.03:
            notes.append(f"ours differs {100 * (py_ours / ours_tf - 1):+.1f}% between drivers")
        for drv, subj in (("C", res), ("py", t.get("ours") or {})):
            pm = subj.get("placement_medians_ms") or []
            if len(pm) > 1 and max(pm) / min(pm) > 1.03:
                notes.append(f"ours varies {100 * (max(pm) / min(pm) - 1):.0f}% over placements ({drv})")
        if res.get("torch_only"):  # checked by the torch pass only
            notes = [n for n in notes if not n.startswith("WRONG")] + ["torch pass only"]
            checked = "yes" if t.get("mismatches") == 0 else "NO"
        else:
            checked = "yes" if res.get("correct") is True and (bl.get("correct") is not False) else "NO"
        print(f"| {dt} | {r['shape']} | {mnk} | {fmt(ours_tf, '{:.1f}')} | {fmt(lt_tf, '{:.1f}')} | "
              f"{fmt(ratio_lt)} | {fmt(py_ours, '{:.1f}')} | {fmt(py_torch, '{:.1f}')} | {fmt(ratio_t)} | "
              f"{spread} | {checked} | {'; '.join(notes)} |")
        key = (dt, "M≤64" if r["M"] <= 64 else "M 128–1024" if r["M"] <= 1024 else "M≥4096")
        for k in (key, (dt, "all"), ("all", "all")):
            g = groups.setdefault(k, {"lt": [], "t": [], "min": []})
            g["lt"].append(ratio_lt)
            g["t"].append(ratio_t)
            g["min"].append(min(x for x in (ratio_lt, ratio_t) if x) if (ratio_lt or ratio_t) else None)
    print("\n| group | rows | geomean ours/cuBLASLt | geomean ours/torch | geomean vs the faster baseline |")
    print("|---|---|---|---|---|")
    for k in sorted(groups):
        g = groups[k]
        print(f"| {k[0]} {k[1]} | {len(g['lt'])} | {fmt(geomean(g['lt']))} | {fmt(geomean(g['t']))} | "
              f"{fmt(geomean(g['min']))} |")


if __name__ == "__main__":
    main()
