"""ab_time.py OUTDIR — (env PLACEMENTS, default 2; DEADLINE_S) for each line "name predicted_us"
of OUTDIR/list.txt, load OUTDIR/old/NAME and OUTDIR/new/NAME (bundles of the same sProgram from
two builds of the generator, built with `make lib`) into one process, give both the same random
inputs, check that their outputs agree element by element, then time both with
pt_bench.time_interleaved (the harness's method: CUDA graphs of batched launches over rotated
input copies, old and new alternating round by round, on fresh buffer placements). One JSON line
per configuration."""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

TOL = 1e-2  # both sides compute the same function in the same order of tiles; f16/bf16 output


def inputs_of(b, rotate):
    """rotate sets of random inputs for bundle b, uniform in [-1, 1) in each input's dtype."""
    sets = []
    for _ in range(rotate):
        x = {}
        for t in b.tensors:
            if t["role"] == "input" and t["view_of"] < 0:
                x[t["name"]] = torch.rand(t["shape"], device="cuda",
                                          dtype=pt_bench.DTYPES[t["dtype"]]) * 2 - 1
        sets.append(x)
    return sets


def main():
    out = sys.argv[1]
    places = int(os.environ.get("PLACEMENTS", "2"))
    start, deadline = time.time(), float(os.environ.get("DEADLINE_S", "0") or 0)
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    for line in open(os.path.join(out, "list.txt")):
        name, pred = line.split()[:2]
        rec = {"name": name}
        if deadline > 0 and time.time() - start > deadline:
            rec["error"] = "not run: DEADLINE_S reached"
            print(json.dumps(rec), flush=True)
            continue
        try:
            b = {s: pt_bench.Bundle(os.path.join(out, s, name)) for s in ("old", "new")}
            in_bytes = sum(torch.Size(t["shape"]).numel() * 2 for t in b["new"].tensors
                           if t["role"] == "input" and t["view_of"] < 0)
            rotate = pt_bench.rotation(in_bytes)
            kept = []

            def make(p):
                ins = inputs_of(b["new"], rotate)
                subjects = {}
                for side, bb in b.items():
                    outs = bb.outputs()
                    slots = [bb.slots(x, outs) for x in ins]
                    kept.append((ins, outs, slots))
                    subjects[side] = (lambda k, bb=bb, slots=slots: bb.launch(slots[k]))
                return subjects

            subjects = make(0)
            (_, o_old, _), (_, o_new, _) = kept[0], kept[1]
            for o in (o_old, o_new):
                for v in o.values():
                    v.fill_(float("nan"))
            subjects["old"](0)
            subjects["new"](0)
            torch.cuda.synchronize()
            bad = 0
            for k in o_new:
                n_bad, _ = pt_bench.close_enough(o_new[k], o_old[k], TOL, TOL)
                bad += n_bad
            rec["mismatches_new_vs_old"] = bad
            if bad:
                raise RuntimeError(f"outputs of old and new differ: {bad} elements")
            iters, batch = pt_bench.iters_for(float(pred) / 1000.0)  # predicted us -> ms
            rec["times"] = pt_bench.time_interleaved(lambda p: subjects if p == 0 else make(p),
                                                     rotate, iters, batch, placements=places)
            del kept, subjects
        except Exception as e:  # one bad configuration must not end the run
            rec["error"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
