"""report.py OUTDIR — the Markdown A/B table of bench/ab/run: per configuration the old and the
new generator's kernel time (medians over all samples of both placements), new/old, the range of
the per-placement ratios, and whether the new kernel passed its f32 reference check."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from pt_report import fmt, geomean, head_line, load, placement_ratios  # noqa: E402


def main():
    out = sys.argv[1]
    times = load(os.path.join(out, "times.jsonl"))
    checks = {r.get("name"): r.get("result", {}) for r in load(os.path.join(out, "checks.jsonl"))}
    print(head_line(times))
    print("| configuration | old µs | new µs | new/old time | per placement | checked | notes |")
    print("|---|---|---|---|---|---|---|")
    ratios, outside = [], 0
    for r in times:
        if "name" not in r:
            continue
        name, t = r["name"], r.get("times", {})
        ch = checks.get(name)
        checked = ("f32 ref" if ch and ch.get("correct") is True else
                   "WRONG" if ch and ch.get("correct") is False else "—") + ", old = new"
        if "error" in r or "old" not in t or "new" not in t:
            print(f"| {name} | | | not run | | {checked if 'mismatches_new_vs_old' in r else '—'} | {r.get('error', '?')} |")
            continue
        o, n = t["old"]["median_ms"] * 1e3, t["new"]["median_ms"] * 1e3
        q = n / o
        pr = placement_ratios(t["old"], t["new"])  # new time / old time, per placement
        rng = f"{min(pr):.3f}–{max(pr):.3f}" if pr else "—"
        notes = "outside ±2%" if abs(q - 1) > 0.02 else ""
        outside += abs(q - 1) > 0.02
        ratios.append(q)
        print(f"| {name} | {o:.1f} | {n:.1f} | {q:.3f} | {rng} | {checked} | {notes} |")
    print(f"\n{len(ratios)} configurations timed; geomean new/old time {fmt(geomean(ratios))}; "
          f"{outside} outside ±2%.")


if __name__ == "__main__":
    main()
