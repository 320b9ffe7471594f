#!/usr/bin/env python3
"""picks.py [--hw H] [--data DIR] [--cli CLI] [--set FA|GEMM] [--top N] — where a hardware
model's own picks land among the sPrograms already timed.

For every configuration of a measured dataset (default bench/measured-2026-12-02-s12), runs
`schedule --target sm90a --measure N --candidates` with the model (nothing is built), matches
each of its N candidates to the dataset's timed sPrograms of that configuration (same JSON apart
from the "hw" name) and prints per configuration the pick's measured time against the fastest
timed sProgram, or "untimed". Ends with the geomean of pick / best over the configurations whose
pick was timed, and the untimed candidates as a list (to time them with bench/pick/sets)."""
import argparse, concurrent.futures as cf, json, os, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "bench", "common"))
from pt_report import geomean  # noqa: E402
from same_program import canon  # noqa: E402
ap = argparse.ArgumentParser()
ap.add_argument("--hw")
ap.add_argument("--data", default=os.path.join(root, "bench", "measured-2026-12-02-s12"))
ap.add_argument("--cli", default=os.path.join(root, "build", "cli", "pipethreader-cli"))
ap.add_argument("--set", default="FA", choices=["FA", "GEMM"])
ap.add_argument("--top", type=int, default=3)
a = ap.parse_args()


rows = [json.loads(l) for l in open(os.path.join(a.data, "measured.jsonl"))]
rows = [r for r in rows if r["name"].startswith("fa-") == (a.set == "FA")]
cfgs = {}
for r in rows:
    key = (r["graph"], r["set"])
    prog = canon(os.path.join(a.data, "programs", r["name"] + ".json"))
    # a program timed in several runs keeps its latest time
    old = cfgs.setdefault(key, {}).get(prog)
    if old is None or r["round"] >= old["round"]:
        cfgs[key][prog] = r
tmp = tempfile.mkdtemp(prefix="pt-picks-")


def schedule(key):
    g, s = key
    d = os.path.join(tmp, (g + "-" + s).replace(",", "_").replace("=", ""))
    cmd = [a.cli, "schedule", g, "--set", s, "--target", "sm90a", "--measure", str(a.top),
           "--candidates", d, "-q"]
    if a.hw:
        cmd[2:2] = ["--hw", a.hw]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        return key, None, out.stderr.strip().splitlines()[-1:]
    cands = []
    for line in out.stdout.splitlines():
        f = line.split(None, 2)
        if len(f) == 3 and f[0].isdigit():
            cands.append((int(f[0]), float(f[1]) / 1e3, f[2], os.path.join(d, "cand-%s.json" % f[0])))
    return key, cands, None


with cf.ThreadPoolExecutor(2) as ex:
    results = list(ex.map(schedule, sorted(cfgs)))
ratios, untimed = [], []
for key, cands, err in results:
    timed = cfgs[key]
    best = min(r["measured_us"] for r in timed.values())
    name = min(timed.values(), key=lambda r: r["name"])["name"].rsplit("-auto", 1)[0]
    if cands is None:
        print(f"{name}: schedule failed: {err}")
        continue
    marks = []
    for rank, pred, desc, path in cands:
        r = timed.get(canon(path))
        marks.append(f"#{rank} {pred:.1f}p " + (f"{r['measured_us']:.1f}m" if r else "untimed"))
        if not r:
            untimed.append((name, key, rank, desc))
    pick = timed.get(canon(cands[0][3]))
    if pick:
        ratios.append(pick["measured_us"] / best)
        print(f"{name:22s} pick/best {pick['measured_us'] / best:.3f}  best {best:.1f}  " + " | ".join(marks))
    else:
        print(f"{name:22s} pick untimed       best {best:.1f}  " + " | ".join(marks) + f"  ({cands[0][2]})")
if ratios:
    print(f"{a.set}: pick timed in {len(ratios)} of {len(results)}; pick / best geomean {geomean(ratios):.4f}; "
          f"pick fastest in {sum(x == 1 for x in ratios)}")
print(f"untimed candidates: {len(untimed)}")
