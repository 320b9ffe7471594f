"""decode_summary.py JSONL — one line per decode_time.py result: the combine bundle (its last
two path parts), mismatches (and the twin's), every subject's median in µs, the faster of
torch's backends, and with a twin the pair's old / new ratio."""
import json
import sys

for line in open(sys.argv[1]):
    r = json.loads(line)
    if "info" in r:
        print(r["info"])
        continue
    name = "/".join((r.get("combine") or r.get("partial") or "?").rstrip("/").split("/")[-2:])
    if "error" in r:
        print(name, "ERROR", r["error"])
        continue
    t = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    mism = f'{r["mismatches"]}' + (f'/{r["twin_mismatches"]}' if "twin_mismatches" in r else "")
    times = ", ".join(f"{k} {v:.2f}" for k, v in sorted(t.items()))
    ratio = f' (old/new {t["ours_twin"] / t["ours"]:.3f})' if "ours_twin" in t else ""
    print(f'{name:28s} G {r["G"]} splits {r["splits"]}: mismatches {mism}; µs: {times}{ratio};'
          f' best torch {r["torch_best"]}')
