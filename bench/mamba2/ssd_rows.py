"""ssd_rows.py RESULTS.jsonl — one line per bundle of ssd_time.py's output (ours, mamba_ssm, the
ratio, the part of the HBM floor, mismatches against f32 torch / mamba_ssm), for round logs."""
import json
import sys

for line in open(sys.argv[1]):
    r = json.loads(line)
    if "copy_GBps" in r:
        print("copy", round(r["copy_GBps"]), "GB/s")
    if "bundle" not in r:
        continue
    if "times" not in r:
        print(r["bundle"], r.get("error"))
        continue
    t = r["times"]
    print(f'{r["bundle"]:28s} ours {t["ours"]["median_ms"] * 1e3:8.1f} us  '
          f'mamba_ssm {t["mamba_ssm"]["median_ms"] * 1e3:8.1f} us  x{r["speedup_vs_mamba_ssm"]:.3f}  '
          f'of floor {r["of_floor"]:.3f}  check {r["check"]["mismatches"]}/'
          f'{r["check"]["vs_mamba_ssm"]["mismatches"]}')
