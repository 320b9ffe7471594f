"""report.py RESULTS TORCH CONFIGS — Markdown table of FlashAttention TFLOP/s: the automatic
scheduler's pick by the model alone (candidate rank 1, "auto1"), its pick after measuring its
candidates (the fastest "autoN", what `schedule --measure` keeps), the best of everything run
(candidates and hand-written variants), torch cuDNN and flash SDPA, with ratios against cuDNN
and geomeans. FLOPs = 4·B·H·S²·D, halved when causal."""
import json
import math
import sys


def main():
    res, torch_ms = {}, {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        res.setdefault(r["config"], []).append(r)
    for line in open(sys.argv[2]):
        r = json.loads(line)
        if "ms" in r:
            torch_ms[(r["config"], r["backend"])] = r["ms"]
    print("| config | auto (model) | auto (measured) | measured pick | best | best of | cuDNN | flash "
          "| model/cuDNN | measured/cuDNN | best/cuDNN |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {"model": [], "measured": [], "best": [], "flash": []}
    for line in open(sys.argv[3]):
        name, B, H, S, D, causal = line.split()
        flops = 4 * int(B) * int(H) * int(S) ** 2 * int(D) / (2 if causal == "1" else 1)
        tf = lambda ms: flops / (ms * 1e-3) / 1e12
        model = meas = best = None
        meas_name = best_name = "-"
        notes = []
        for r in res.get(name, []):
            x = r.get("result")
            v = r["variant"]
            if not x or "error" in r:
                notes.append(f"{v}: {r.get('error', 'no result')}")
                continue
            if x.get("correct") is False:
                notes.append(f"{v}: WRONG")
                continue
            t = tf(x["time_ms_median"])
            if v == "auto1":
                model = t
            if v.startswith("auto") and (meas is None or t > meas):
                meas, meas_name = t, v
            if best is None or t > best:
                best, best_name = t, v
        cu = torch_ms.get((name, "cudnn"))
        fl = torch_ms.get((name, "flash"))
        cu_t = tf(cu) if cu else None
        fl_t = tf(fl) if fl else None
        f = lambda v: f"{v:.0f}" if v else "-"
        q = lambda a, b: f"{a / b:.2f}" if a and b else "-"
        for k, v in (("model", model), ("measured", meas), ("best", best), ("flash", fl_t)):
            if v and cu_t:
                ratios[k].append(v / cu_t)
        print(f"| {name} | {f(model)} | {f(meas)} | {meas_name} | {f(best)} | {best_name} | {f(cu_t)} "
              f"| {f(fl_t)} | {q(model, cu_t)} | {q(meas, cu_t)} | {q(best, cu_t)} |")
        for n in notes:
            print(f"|  | {n} | | | | | | | | | |")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    print("\ngeomean vs cuDNN: " + ", ".join(f"{k} {g(v):.3f}x ({len(v)} configs)"
                                          for k, v in ratios.items()))


if __name__ == "__main__":
    main()
