"""gqa_time.py BUNDLE... — grouped-query attention (the flash_attention_gqa example's bundles, built
with `make lib`) against torch's attention on the same tensors in one process: the flash SDPA
backend with enable_gqa, and cuDNN's SDPA on K and V expanded to every query head beforehand (the
expansion is not timed). Every output element of ours is checked against cuDNN's; then all are
timed with pt_bench.time_interleaved (the harness's method: CUDA graphs of batched launches over
rotated inputs, subjects alternating round by round), on PLACEMENTS (env, 2) sets of tensors.
One JSON line per bundle."""
import json
import os
import sys
import traceback

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

TOL = 2e-2  # bf16 output


def shapes(b):
    t = {x["name"]: x["shape"] for x in b.tensors}
    B, HKV, G, S, D = t["Q"]
    return B, HKV, G, S, D


def inputs(B, HKV, G, S, D):
    q = torch.randn((B, HKV, G, S, D), device="cuda", dtype=torch.bfloat16)
    k = torch.randn((B, HKV, S, D), device="cuda", dtype=torch.bfloat16)
    v = torch.randn((B, HKV, S, D), device="cuda", dtype=torch.bfloat16)
    # torch's heads: query head h*G + g uses K/V head h, as enable_gqa groups them
    return {"Q": q, "K": k, "V": v, "q": q.view(B, HKV * G, S, D),
            "ke": k.repeat_interleave(G, dim=1), "ve": v.repeat_interleave(G, dim=1)}


def one(path):
    b = pt_bench.Bundle(path)
    B, HKV, G, S, D = shapes(b)
    op = next(o for o in b.table["ops"] if o["op"] == "online_softmax")
    scale, causal = op["scale"], bool(op.get("causal", False))
    rec = {"bundle": path, "B": B, "HKV": HKV, "G": G, "S": S, "D": D, "causal": causal,
           "flops": b.flops}
    rotate = pt_bench.rotation(5 * B * HKV * G * S * D * 2)
    ins = [inputs(B, HKV, G, S, D) for _ in range(rotate)]
    outs = b.outputs()
    b.launch(b.slots(ins[0], outs))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        ref = F.scaled_dot_product_attention(ins[0]["q"], ins[0]["ke"], ins[0]["ve"],
                                             is_causal=causal, scale=scale)
    torch.cuda.synchronize()
    bad, rel = pt_bench.close_enough(outs["O"].view(ref.shape), ref, TOL, TOL)
    rec.update({"mismatches": bad, "elements": ref.numel(), "rel_err_vs_cudnn": rel})
    if bad:
        rec["error"] = f"output differs from cuDNN's: {bad} mismatches"
        return rec
    kept = []

    def make(p):
        x_in = ins if p == 0 else [inputs(B, HKV, G, S, D) for _ in range(rotate)]
        o = b.outputs()
        slots = [b.slots(x, o) for x in x_in]
        kept.append((x_in, o, slots))

        def flash(k):
            x = x_in[k]
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                return F.scaled_dot_product_attention(x["q"], x["K"], x["V"], is_causal=causal,
                                                      scale=scale, enable_gqa=True)

        def cudnn(k):
            x = x_in[k]
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return F.scaled_dot_product_attention(x["q"], x["ke"], x["ve"], is_causal=causal,
                                                      scale=scale)
        return {"ours": lambda k: b.launch(slots[k]), "flash_gqa": flash, "cudnn_expanded": cudnn}

    iters, batch = pt_bench.iters_for(1e-4)
    rec["times"] = pt_bench.time_interleaved(make, rotate, iters, batch,
                                             placements=int(os.environ.get("PLACEMENTS", "2")))
    return rec


def main():
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    for path in sys.argv[1:]:
        try:
            rec = one(path)
        except Exception as e:  # one bad bundle must not end the run
            traceback.print_exc()
            rec = {"bundle": path, "error": str(e).splitlines()[0][:300] if str(e) else type(e).__name__}
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
