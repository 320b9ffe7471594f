"""fa_time.py OUTDIR LIST — for each FlashAttention configuration of LIST (lines "name config B
H S D causal rank predicted_ns", bundles built with `make lib`), launch every candidate kernel
(libkernel.so) and torch's cuDNN and flash SDPA backends on the same torch tensors in one
process; check every output element of each candidate against cuDNN's output (same scale, same
mask); then time them all with pt_bench.time_interleaved (the harness's method: CUDA graphs of
batched launches over rotated input copies, subjects alternating round by round), on PLACEMENTS
(env, 3) fresh sets of tensors. One JSON line per configuration."""
import json
import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
TOL = 1e-2  # f16 output; the harness's check uses the same for f16 graphs


def main():
    out_dir, listing = sys.argv[1], sys.argv[2]
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    configs = {}
    for line in open(listing):
        name, cfg, B, H, S, D, c, rank, pred = line.split()
        configs.setdefault(cfg, {"B": int(B), "H": int(H), "S": int(S), "D": int(D),
                                 "causal": c == "1", "cands": []})
        configs[cfg]["cands"].append((name, int(rank), float(pred)))
    start, deadline = time.time(), float(os.environ.get("DEADLINE_S", "0") or 0)
    for cfg, c in configs.items():
        rec = {"config": cfg, **{k: c[k] for k in ("B", "H", "S", "D", "causal")}, "candidates": {}}
        if deadline > 0 and time.time() - start > deadline:
            rec["error"] = "not run: DEADLINE_S reached"
            print(json.dumps(rec), flush=True)
            continue
        try:
            shape = (c["B"], c["H"], c["S"], c["D"])
            rotate = pt_bench.rotation(3 * torch.Size(shape).numel() * 2)
            ins = [{n: torch.randn(shape, device="cuda", dtype=torch.float16) for n in "QKV"}
                   for _ in range(rotate)]
            flops, scale, est, ref, bundles = None, None, 1e9, {}, {}
            for name, rank, pred in c["cands"]:
                d = os.path.join(out_dir, name)
                info = rec["candidates"].setdefault(f"auto{rank}", {"name": name, "predicted_ns": pred})
                if os.path.exists(os.path.join(d, "BUILD_FAILED")):
                    info["error"] = "build failed"
                    continue
                b = pt_bench.Bundle(d)
                flops = b.flops
                scale = next(o["scale"] for o in b.table["ops"] if o["op"] == "online_softmax")
                outs = b.outputs()
                slots = [b.slots(x, outs) for x in ins]
                outs["O"].fill_(float("nan"))
                b.launch(slots[0])
                torch.cuda.synchronize()
                if "cudnn" not in ref:
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        ref["cudnn"] = F.scaled_dot_product_attention(
                            ins[0]["Q"], ins[0]["K"], ins[0]["V"], is_causal=c["causal"], scale=scale)
                bad, rel = pt_bench.close_enough(outs["O"], ref["cudnn"], TOL, TOL)
                info.update({"mismatches": bad, "elements": outs["O"].numel(), "rel_err_vs_cudnn": rel})
                if bad:
                    info["error"] = f"output differs from cuDNN's: {bad} mismatches"
                    continue
                bundles[f"auto{rank}"] = b
                est = min(est, pred * 1e-6)
            del ref
            kept = []  # every placement's tensors stay allocated until the configuration is done

            def make(p):
                x_in = ins if p == 0 else [
                    {n: torch.randn(shape, device="cuda", dtype=torch.float16) for n in "QKV"}
                    for _ in range(rotate)]
                subjects = {}
                for bname, backend in BACKENDS.items():
                    def run(k, backend=backend):
                        x = x_in[k]
                        with sdpa_kernel([backend]):
                            return F.scaled_dot_product_attention(
                                x["Q"], x["K"], x["V"], is_causal=c["causal"], scale=scale)
                    subjects[bname] = run
                for sname, b in bundles.items():
                    outs = b.outputs()
                    slots = [b.slots(x, outs) for x in x_in]
                    # the slot arrays hold raw pointers: keep the tensors they point at alive
                    kept.append((x_in, outs, slots))
                    subjects[sname] = (lambda k, b=b, slots=slots: b.launch(slots[k]))
                return subjects
            if est == 1e9:
                est = 1.0
            iters, batch = pt_bench.iters_for(est)
            rec["flops"] = flops or 4 * c["B"] * c["H"] * c["S"] ** 2 * c["D"] / (2 if c["causal"] else 1)
            rec["times"] = pt_bench.time_interleaved(
                make, rotate, iters, batch, placements=int(os.environ.get("PLACEMENTS", "3")))
            del kept
        except Exception as e:  # one bad configuration must not end the run
            traceback.print_exc()
            rec["error"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
