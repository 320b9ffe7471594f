"""report.py OUTDIR — the Markdown table of bench/fa/run from OUTDIR/times.jsonl (fa_time.py),
OUTDIR/checks.jsonl (the harness's f32 reference checks) and OUTDIR/errors.jsonl. TFLOP/s with
FLOPs = 4·B·H·S²·D, halved when causal; ratios are baseline time / kernel time (above 1 the
generated kernel is faster). "model" is the scheduler's rank-1 candidate, "measured" the fastest
of the timed candidates (what `schedule --measure N` keeps)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from pt_report import fmt, geomean, head_line, load, placement_ratios  # noqa: E402


def main():
    out = sys.argv[1]
    times = load(os.path.join(out, "times.jsonl"))
    checks = {r.get("name"): r.get("result", {}) for r in load(os.path.join(out, "checks.jsonl"))}
    errors = load(os.path.join(out, "errors.jsonl"))
    print(head_line(times))
    print("| config (d, causal, S) | B×H | model TFLOP/s | measured TFLOP/s | cuDNN | flash | "
          "model/cuDNN | measured/cuDNN | model/flash | model/cuDNN per placement | checked | notes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    groups = {}
    for r in times:
        if "config" not in r:
            continue
        cfg, notes = r["config"], []
        if "error" in r:
            print(f"| {cfg} | | not run | | | | | | | | | {r['error']} |")
            continue
        t, fl = r.get("times", {}), r["flops"]
        tf = lambda n: fl / (t[n]["median_ms"] * 1e-3) / 1e12 if n in t else None
        cands = {k: v for k, v in t.items() if k.startswith("auto")}
        model = "auto1" if "auto1" in t else None
        meas = min(cands, key=lambda k: cands[k]["median_ms"]) if cands else None
        ratio = lambda n, base: t[base]["median_ms"] / t[n]["median_ms"] if n in t and base in t else None
        for k, v in r.get("candidates", {}).items():
            if "error" in v:
                notes.append(f"{k}: {v['error']}")
            ch = checks.get(v.get("name"))
            if ch and ch.get("correct") is not True:
                notes.append(f"{k}: f32 reference check {ch.get('correct')} {ch.get('error', '')}")
        checked_ref = all(checks.get(v.get("name"), {}).get("correct") is True
                          for v in r.get("candidates", {}).values()) and any(
            v.get("name") in checks for v in r.get("candidates", {}).values())
        checked = "every element vs cuDNN" + (" and f32 ref" if checked_ref else "")
        if not cands:
            checked = "NO"
        pr = placement_ratios(t.get(model), t.get("cudnn")) if model else []
        spread = f"{min(pr):.3f}–{max(pr):.3f}" if pr else "—"
        pm = (t.get(model) or {}).get("placement_medians_ms") or [] if model else []
        if len(pm) > 1 and max(pm) / min(pm) > 1.03:
            notes.append(f"model pick varies {100 * (max(pm) / min(pm) - 1):.0f}% over placements")
        if meas and meas != model:
            notes.append(f"measured pick {meas}")
        print(f"| d{r['D']} {'causal' if r['causal'] else 'full'} {r['S']} | {r['B']}×{r['H']} | "
              f"{fmt(tf(model), '{:.0f}') if model else '—'} | {fmt(tf(meas), '{:.0f}') if meas else '—'} | "
              f"{fmt(tf('cudnn'), '{:.0f}')} | {fmt(tf('flash'), '{:.0f}')} | "
              f"{fmt(ratio(model, 'cudnn')) if model else '—'} | {fmt(ratio(meas, 'cudnn')) if meas else '—'} | "
              f"{fmt(ratio(model, 'flash')) if model else '—'} | {spread} | "
              f"{checked} | {'; '.join(notes)} |")
        for k in (f"d{r['D']} {'causal' if r['causal'] else 'full'}", "all"):
            g = groups.setdefault(k, {"model": [], "meas": [], "flash": []})
            g["model"].append(ratio(model, "cudnn") if model else None)
            g["meas"].append(ratio(meas, "cudnn") if meas else None)
            g["flash"].append(ratio(model, "flash") if model else None)
    for e in errors:
        print(f"| {e.get('config', '?')} | | not run | | | | | | | | | {e.get('error')} |")
    print("\n| group | configs | geomean model/cuDNN | geomean measured/cuDNN | geomean model/flash |")
    print("|---|---|---|---|---|")
    for k in sorted(groups):
        g = groups[k]
        print(f"| {k} | {len(g['model'])} | {fmt(geomean(g['model']))} | {fmt(geomean(g['meas']))} | "
              f"{fmt(geomean(g['flash']))} |")


if __name__ == "__main__":
    main()
