"""report.py RESULTS TORCH CONFIGS — Markdown table of FlashAttention TFLOP/s: PipeThreader's
automatic sProgram, its best variant (auto or hand-written), torch cuDNN and flash SDPA, with
ratios against cuDNN and geomeans. FLOPs = 4·B·H·S²·D, halved when causal."""
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
    print("| config | auto TFLOP/s | best variant | best TFLOP/s | cuDNN | flash | auto/cuDNN | best/cuDNN |")
    print("|---|---|---|---|---|---|---|---|")
    ra, rb = [], []
    for line in open(sys.argv[3]):
        name, B, H, S, D, causal = line.split()
        flops = 4 * int(B) * int(H) * int(S) ** 2 * int(D) / (2 if causal == "1" else 1)
        tf = lambda ms: flops / (ms * 1e-3) / 1e12
        auto, best, best_name, notes = None, None, "-", []
        for r in res.get(name, []):
            x = r.get("result")
            if not x or "error" in r:
                notes.append(f"{r['variant']}: {r.get('error', 'no result')}")
                continue
            if x.get("correct") is False:
                notes.append(f"{r['variant']}: WRONG")
                continue
            t = tf(x["time_ms_median"])
            if r["variant"] == "auto":
                auto = t
            if best is None or t > best:
                best, best_name = t, r["variant"]
        cu = torch_ms.get((name, "cudnn"))
        fl = torch_ms.get((name, "flash"))
        cu_t = tf(cu) if cu else None
        fl_t = tf(fl) if fl else None
        f = lambda v: f"{v:.0f}" if v else "-"
        q = lambda a, b: f"{a / b:.2f}" if a and b else "-"
        if auto and cu_t:
            ra.append(auto / cu_t)
        if best and cu_t:
            rb.append(best / cu_t)
        print(f"| {name} | {f(auto)} | {best_name} | {f(best)} | {f(cu_t)} | {f(fl_t)} | {q(auto, cu_t)} | {q(best, cu_t)} |")
        for n in notes:
            print(f"|  | {n} | | | | | | |")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    print(f"\ngeomean vs cuDNN: auto {g(ra):.3f}x ({len(ra)} configs), best variant {g(rb):.3f}x ({len(rb)} configs)")


if __name__ == "__main__":
    main()
