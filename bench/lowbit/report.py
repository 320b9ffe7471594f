"""report.py RESULTS.jsonl — the Markdown table of bench/lowbit/run's JSON lines: per shape, our
kernel's median, cuBLAS on the dequantised weights and torch's int4 GEMM (same run,
interleaved), and the ratios (baseline time / ours: > 1 means ours is faster)."""
import json
import math
import sys


def main():
    rows, info = [], None
    for line in open(sys.argv[1]):
        d = json.loads(line)
        if "info" in d:
            info = d["info"]
            continue
        rows.append(d)
    if info:
        print(f"device: {info.get('gpu')}, torch {info.get('torch')}, nvidia-smi: {info.get('nvidia_smi')}\n")
    print("| bundle | M | N | K | ours µs | GB/s (weights) | cuBLAS bf16 µs | ×cuBLAS | torch int4 µs | ×torch int4 | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    for d in rows:
        if "times" not in d:
            print(f"| {d.get('bundle')} | | | | | | | | | | {d.get('error', '?')[:80]} |")
            continue
        t = d["times"]
        o = t["ours"]["median_ms"] * 1e3
        cb = t["cublas"]["median_ms"] * 1e3
        t4 = t.get("torch_int4", {}).get("median_ms")
        wbytes = d["N"] * d["K"] / 2 + d["N"] * d["K"] / d["G"] * 2
        key = (d["weights"], "M=1..16" if d["M"] <= 16 else f"M={d['M']}")
        ratios.setdefault(key, []).append(cb / o)
        c = d.get("check", {})
        if t4:
            # a torch result that is not the same product is marked: its time is not comparable
            c4 = d.get("torch_int4_check", {})
            wrong = " (computes another product)" if c4.get("rel_err", 0) > 3e-2 else ""
            vs_int4 = f"{t4 * 1e3:.1f}{wrong} | {t4 * 1e3 / o:.2f}"
        else:  # fp4, f16 activations, or a torch without the op (its error is in the JSON)
            vs_int4 = "- | -"
        print(f"| {d['bundle']} | {d['M']} | {d['N']} | {d['K']} | {o:.1f} | {wbytes / o / 1e3:.0f} | "
              f"{cb:.1f} | {cb / o:.2f} | {vs_int4} | {c.get('mismatches', '?')} of "
              f"{c.get('elements', '?')} off |")
    print()
    for k, v in sorted(ratios.items()):
        g = math.exp(sum(math.log(x) for x in v) / len(v))
        print(f"- {k[0]} {k[1]}: geomean cuBLAS/ours {g:.2f} over {len(v)} shapes")


if __name__ == "__main__":
    main()
