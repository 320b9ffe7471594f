"""torch_gemm.py OUTDIR LIST — (env DEADLINE_S: rows after it are reported as not run) for each GEMM bundle of LIST (lines "name dtype shape M N K
predicted_us", built with `make lib`), time the generated kernel and torch.matmul (cuBLAS as
PyTorch calls it, written into a preallocated output) on the same torch tensors in one process,
with pt_bench.time_interleaved (the harness's method, alternating round by round), after
checking every element of the kernel's output against an f32 product. Env PLACEMENTS (3): the
timing is repeated on that many fresh sets of tensors (see pt_bench.time_interleaved). One JSON
line per configuration.

Lines with two more columns, "RANK CONFIG" (bench/gemm/run with AUTO_N > 1), are the scheduler's
candidates of one configuration: all of them (each checked first; a wrong one is not timed) and
torch.matmul are timed interleaved in one process. The record is named after rank 1 (the
model's pick, "ours"); the others time as "autoRANK", and "candidates" lists every rank with its
bundle, predicted time and check."""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

TOL = {"f16": 1e-2, "bf16": 3e-2}


def configurations(listing):
    """[(config, [(rank, name, dtype, predicted_us)])] in list order; a line without RANK CONFIG
    is a configuration of its own, rank 1."""
    configs = {}
    for line in open(listing):
        f = line.split()
        if not f:
            continue
        name, dt, pred = f[0], f[1], float(f[6])
        rank, cfg = (int(f[7]), f[8]) if len(f) >= 9 else (1, name)
        configs.setdefault(cfg, []).append((rank, name, dt, pred))
    return [(c, sorted(v)) for c, v in configs.items()]


def main():
    out_dir, listing = sys.argv[1], sys.argv[2]
    start, deadline = time.time(), float(os.environ.get("DEADLINE_S", "0") or 0)
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    for cfg, cands in configurations(listing):
        pick = next((n for r, n, _, _ in cands if r == 1), cands[0][1])
        rec = {"name": pick, "config": cfg}
        if len(cands) > 1 or cands[0][0] != 1:
            rec["candidates"] = {f"auto{r}": {"name": n, "predicted_us": p} for r, n, _, p in cands}
        if deadline > 0 and time.time() - start > deadline:
            rec["error"] = "not run: DEADLINE_S reached"
            print(json.dumps(rec), flush=True)
            continue
        try:
            dt = cands[0][2]
            bundles = {}
            for r, n, _, p in cands:
                d = os.path.join(out_dir, n)
                if os.path.exists(os.path.join(d, "BUILD_FAILED")):
                    rec.setdefault("candidates", {}).setdefault(f"auto{r}", {})["error"] = "build failed"
                    continue
                bundles["ours" if r == 1 else f"auto{r}"] = (pt_bench.Bundle(d), p)
            if not bundles:
                raise RuntimeError("build failed")
            b0 = next(iter(bundles.values()))[0]
            ta, tb = b0.tensors[b0.index("A")], b0.tensors[b0.index("B")]
            dtype = pt_bench.DTYPES[ta["dtype"]]
            b_kn = tb["axes"] == ["k", "n"]
            in_bytes = sum(torch.Size(t["shape"]).numel() * 2 for t in (ta, tb))
            rotate = pt_bench.rotation(in_bytes)
            places = int(os.environ.get("PLACEMENTS", "3"))
            kept = []  # every placement's tensors stay allocated until the row is done

            def make(p, which):
                ins = [{"A": torch.rand(ta["shape"], device="cuda", dtype=dtype) * 2 - 1,
                        "B": torch.rand(tb["shape"], device="cuda", dtype=dtype) * 2 - 1}
                       for _ in range(rotate)]
                subjects, outs_of = {}, {}
                for sname in which:
                    b = bundles[sname][0]
                    outs = b.outputs()
                    slots = [b.slots(x, outs) for x in ins]
                    outs_of[sname] = outs
                    kept.append((outs, slots))
                    subjects[sname] = (lambda k, b=b, slots=slots: b.launch(slots[k]))
                Ct = torch.empty_like(next(iter(outs_of.values()))["C"])
                kept.append((ins, Ct))

                def theirs(k):
                    x = ins[k]
                    torch.matmul(x["A"], x["B"] if b_kn else x["B"].t(), out=Ct)
                subjects["torch"] = theirs
                return subjects, ins, outs_of

            subjects, ins, outs_of = make(0, list(bundles))
            ref = ins[0]["A"].float() @ (ins[0]["B"].float() if b_kn else ins[0]["B"].float().t())
            for sname in list(bundles):
                C = outs_of[sname]["C"]
                C.fill_(float("nan"))
                subjects[sname](0)
                torch.cuda.synchronize()
                bad, rel = pt_bench.close_enough(C, ref, TOL[dt], TOL[dt])
                info = {"mismatches": bad, "elements": C.numel(), "rel_err": rel}
                if sname == "ours":
                    rec.update(info)
                if "candidates" in rec:
                    rank = 1 if sname == "ours" else int(sname[4:])
                    rec["candidates"][f"auto{rank}"].update(info)
                if bad:
                    del subjects[sname], bundles[sname]
                    if sname == "ours":
                        rec["error"] = f"kernel output wrong: {bad} mismatches"
            del ref, ins, outs_of
            if "error" in rec:
                raise RuntimeError(rec["error"])
            est = min(p for _, p in bundles.values())
            iters, batch = pt_bench.iters_for(est / 1000.0)
            names = list(bundles)
            t = pt_bench.time_interleaved(
                lambda p: subjects if p == 0 else make(p, names)[0], rotate, iters, batch,
                placements=places)
            rec.update(t)
            rec["flops"] = b0.flops
            del kept, subjects
        except Exception as e:  # one bad configuration must not end the run
            rec["error"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
