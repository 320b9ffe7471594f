"""torch_gemm.py OUTDIR LIST — (env DEADLINE_S: rows after it are reported as not run) for each GEMM bundle of LIST (lines "name dtype shape M N K
predicted_us", built with `make lib`), time the generated kernel and torch.matmul (cuBLAS as
PyTorch calls it, written into a preallocated output) on the same torch tensors in one process,
with pt_bench.time_interleaved (the harness's method, alternating round by round), after
checking every element of the kernel's output against an f32 product. Env PLACEMENTS (3): the
timing is repeated on that many fresh sets of tensors (see pt_bench.time_interleaved). One JSON
line per bundle."""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

TOL = {"f16": 1e-2, "bf16": 3e-2}


def main():
    out_dir, listing = sys.argv[1], sys.argv[2]
    start, deadline = time.time(), float(os.environ.get("DEADLINE_S", "0") or 0)
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    for line in open(listing):
        name, dt, shape, M, N, K, pred = line.split()
        d = os.path.join(out_dir, name)
        rec = {"name": name}
        if deadline > 0 and time.time() - start > deadline:
            rec["error"] = "not run: DEADLINE_S reached"
            print(json.dumps(rec), flush=True)
            continue
        try:
            if os.path.exists(os.path.join(d, "BUILD_FAILED")):
                raise RuntimeError("build failed")
            b = pt_bench.Bundle(d)
            ta, tb = b.tensors[b.index("A")], b.tensors[b.index("B")]
            dtype = pt_bench.DTYPES[ta["dtype"]]
            b_kn = tb["axes"] == ["k", "n"]
            in_bytes = sum(torch.Size(t["shape"]).numel() * 2 for t in (ta, tb))
            rotate = pt_bench.rotation(in_bytes)
            places = int(os.environ.get("PLACEMENTS", "3"))
            kept = []  # every placement's tensors stay allocated until the row is done

            def make(p):
                ins = [{"A": torch.rand(ta["shape"], device="cuda", dtype=dtype) * 2 - 1,
                        "B": torch.rand(tb["shape"], device="cuda", dtype=dtype) * 2 - 1}
                       for _ in range(rotate)]
                outs = b.outputs()
                slots = [b.slots(x, outs) for x in ins]
                Ct = torch.empty_like(outs["C"])
                kept.append((ins, outs, slots, Ct))

                def ours(k):
                    b.launch(slots[k])

                def theirs(k):
                    x = ins[k]
                    torch.matmul(x["A"], x["B"] if b_kn else x["B"].t(), out=Ct)
                return {"ours": ours, "torch": theirs}

            subjects = make(0)
            ins, outs = kept[0][0], kept[0][1]
            C = outs["C"]
            C.fill_(float("nan"))
            subjects["ours"](0)
            torch.cuda.synchronize()
            ref = ins[0]["A"].float() @ (ins[0]["B"].float() if b_kn else ins[0]["B"].float().t())
            bad, rel = pt_bench.close_enough(C, ref, TOL[dt], TOL[dt])
            rec.update({"mismatches": bad, "elements": C.numel(), "rel_err": rel})
            del ref, ins, outs, C
            if bad:
                raise RuntimeError(f"kernel output wrong: {bad} mismatches")
            iters, batch = pt_bench.iters_for(float(pred) / 1000.0)
            t = pt_bench.time_interleaved(lambda p: subjects if p == 0 else make(p), rotate,
                                          iters, batch, placements=places)
            rec.update(t)
            rec["flops"] = b.flops
            del kept, subjects
        except Exception as e:  # one bad bundle must not end the run
            rec["error"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
