"""decode_time.py PARTIAL COMBINE [PARTIAL COMBINE ...] — FlashDecoding: our two generated kernels
(a flash_decoding bundle: split-KV partial outputs and their log-sum-exps; a flash_decoding_combine
bundle of the same shape: the combine; both built with `make lib`) against torch's
scaled_dot_product_attention on the same decode step, in one process. Torch gets the query as
[B, HKV*G, 1, D] and K/V as [B, HKV, S, D] with enable_gqa (query head h*G + g reads K/V head h,
the graph's grouping); every backend that accepts the shape is timed (flash, memory-efficient,
cuDNN, math), and the fastest is the baseline. Our output (the combine's O) is checked element
by element against the first backend that ran; then everything is timed with
pt_bench.time_interleaved (the harness's method: CUDA graphs of batched launches over rotated
inputs, subjects alternating round by round) on PLACEMENTS (env, 2) sets of tensors. "ours" is
the partial kernel and the combine launched back to back (one subject, so their sum is what is
timed); "ours_partial" and "ours_combine" are each alone. Achieved bandwidth: bytes of K and V
read (2·B·HKV·S·D·2) over the median time. One JSON line per pair. A torch backend more than
SCREEN (env, 2.0) times slower than the fastest in a short screen is not timed (its screen time
is recorded as "screened_out_us"): it cannot be the baseline.
With TWINS=1 the arguments are triples PARTIAL COMBINE TWIN: TWIN is another combine bundle of
the same shape (an A/B twin, e.g. the same kernel launched without programmatic dependent
launch); its output is checked too and "ours_twin" (the partial, then the twin) is timed in the
same rounds.
A COMBINE argument of "-" makes PARTIAL a flash_decoding_unsplit bundle (the scheduler's pick where
one kernel with no pieces is predicted faster than any split count and its combine): "ours" is
that kernel alone, checked and timed the same way.
With CHECK_ONLY=1 each pair (and twin) is checked and nothing is timed: the launch order is
the timed one (the partial, then the combine as its programmatic dependent), so this is the
check tests/gpu/decode-chain-test.sh runs."""
import json
import os
import sys
import traceback

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

TOL = 2e-2  # f16 output; the partials pass through f16 P and f32 accumulation
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}


def shapes(part):
    t = {x["name"]: x for x in part.tensors}
    B, HKV, G, D = t["Q"]["shape"]
    if "pieces" in t["K"]:  # pieces that need not divide S: K is stored [b, h, S, d]
        return B, HKV, G, t["K"]["shape"][2], D, t["K"]["pieces"]["count"]
    if len(t["K"]["shape"]) == 4:  # the unsplit graph: K is [b, h, n, d]
        return B, HKV, G, t["K"]["shape"][2], D, 1
    _, _, splits, n, _ = t["K"]["shape"]
    return B, HKV, G, splits * n, D, splits


def inputs(B, HKV, G, S, D):
    q = torch.randn((B, HKV, G, D), device="cuda", dtype=torch.float16)
    k = torch.randn((B, HKV, S, D), device="cuda", dtype=torch.float16)
    v = torch.randn((B, HKV, S, D), device="cuda", dtype=torch.float16)
    return {"Q": q, "K": k, "V": v, "q": q.view(B, HKV * G, 1, D)}


def torch_sdpa(name, x, scale):
    with sdpa_kernel([BACKENDS[name]]):
        return F.scaled_dot_product_attention(x["q"], x["K"], x["V"], scale=scale, enable_gqa=True)


def one(ppath, cpath, tpath=None):
    unsplit = cpath == "-"
    if unsplit and tpath:
        raise ValueError("a twin is a second combine: it has no meaning for an unsplit bundle")
    part = pt_bench.Bundle(ppath)
    comb = None if unsplit else pt_bench.Bundle(cpath)
    twin = pt_bench.Bundle(tpath) if tpath else None
    B, HKV, G, S, D, splits = shapes(part)
    op = next(o for o in part.table["ops"] if o["op"] == "online_softmax")
    scale = op["scale"]
    kv_bytes = 2 * B * HKV * S * D * 2
    rec = {"partial": ppath, "combine": cpath, "twin": tpath, "B": B, "HKV": HKV, "G": G, "S": S, "D": D,
           "splits": splits, "unsplit": unsplit, "kv_bytes": kv_bytes}
    rotate = pt_bench.rotation(kv_bytes + B * HKV * G * splits * (D + 1) * 4)
    ins = [inputs(B, HKV, G, S, D) for _ in range(rotate)]
    # which torch backends take this shape (and the reference: the first that does)
    ok, ref = [], None
    for name in BACKENDS:
        try:
            r = torch_sdpa(name, ins[0], scale)
            torch.cuda.synchronize()
            ok.append(name)
            ref = r if ref is None else ref
        except Exception as e:  # a backend that refuses the shape is left out, said why
            rec.setdefault("backend_errors", {})[name] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    if ref is None:
        rec["error"] = "no torch SDPA backend ran this shape"
        return rec
    rec["reference_backend"] = ok[0]

    def ours_launch(pslots, cslots):
        part.launch(pslots)
        if comb:
            comb.launch(cslots)

    mid = part.outputs()
    out = comb.outputs() if comb else mid
    pslots0 = part.slots(ins[0], mid)
    cslots0 = comb.slots(mid, out) if comb else None
    ours_launch(pslots0, cslots0)
    torch.cuda.synchronize()
    bad, rel = pt_bench.close_enough(out["O"].view(ref.shape), ref, TOL, TOL)
    rec.update({"mismatches": bad, "elements": ref.numel(), "rel_err_vs_torch": rel})
    if bad:
        rec["error"] = f"output differs from torch's {ok[0]}: {bad} mismatches"
        return rec
    if twin:
        tout = twin.outputs()
        part.launch(pslots0)
        twin.launch(twin.slots(mid, tout))
        torch.cuda.synchronize()
        tbad, _ = pt_bench.close_enough(tout["O"].view(ref.shape), ref, TOL, TOL)
        rec["twin_mismatches"] = tbad
        if tbad:
            rec["error"] = f"the twin's output differs from torch's {ok[0]}: {tbad} mismatches"
            return rec
    if os.environ.get("CHECK_ONLY") == "1":
        return rec
    # A backend more than SCREEN (env, 2.0) times slower than the fastest in a short screen
    # (a few launches each, CUDA events) is left out of the interleaved timing: it cannot be the
    # best backend, and the math backend at batch 16 and up took minutes a row. Its screen time
    # is kept in the record.
    screen = {}
    for name in ok:
        torch_sdpa(name, ins[0], scale)
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(3):
            torch_sdpa(name, ins[0], scale)
        t1.record()
        torch.cuda.synchronize()
        screen[name] = t0.elapsed_time(t1) / 3
    fastest = min(screen.values())
    limit = float(os.environ.get("SCREEN", "2.0"))
    dropped = {n: round(v * 1e3, 2) for n, v in screen.items() if v > limit * fastest}
    if dropped:
        rec["screened_out_us"] = dropped
        ok = [n for n in ok if n not in dropped]
    kept = []

    def make(p):
        x_in = ins if p == 0 else [inputs(B, HKV, G, S, D) for _ in range(rotate)]
        mids = [part.outputs() for _ in range(rotate)]
        ps = [part.slots(x_in[k], mids[k]) for k in range(rotate)]
        kept.append((x_in, mids, ps))
        subjects = {"ours": lambda k: part.launch(ps[k])}  # the unsplit kernel alone
        if comb:
            outs = [comb.outputs() for _ in range(rotate)]
            cs = [comb.slots(mids[k], outs[k]) for k in range(rotate)]
            kept.append((outs, cs))
            subjects = {"ours": lambda k: ours_launch(ps[k], cs[k]),
                        "ours_partial": lambda k: part.launch(ps[k]),
                        "ours_combine": lambda k: comb.launch(cs[k])}
        if twin:
            touts = [twin.outputs() for _ in range(rotate)]
            ts = [twin.slots(mids[k], touts[k]) for k in range(rotate)]
            kept.append((touts, ts))

            def ours_twin(k):
                part.launch(ps[k])
                twin.launch(ts[k])
            subjects["ours_twin"] = ours_twin
        for name in ok:
            subjects["torch_" + name] = (lambda nm: lambda k: torch_sdpa(nm, x_in[k], scale))(name)
        return subjects

    iters, batch = pt_bench.iters_for(max(kv_bytes / 3.0e9, 0.005))  # ms at about 3 TB/s
    times = pt_bench.time_interleaved(make, rotate, iters, batch,
                                      placements=int(os.environ.get("PLACEMENTS", "2")))
    rec["times"] = times
    rec["tb_per_s"] = {n: kv_bytes / (t["median_ms"] * 1e-3) / 1e12 for n, t in times.items()}
    best = min((n for n in times if n.startswith("torch_")), key=lambda n: times[n]["median_ms"])
    rec["torch_best"] = best
    rec["speedup_vs_torch_best"] = times[best]["median_ms"] / times["ours"]["median_ms"]
    return rec


def main():
    args = sys.argv[1:]
    k = 3 if os.environ.get("TWINS") == "1" else 2
    if not args or len(args) % k:
        sys.exit("usage: decode_time.py PARTIAL_BUNDLE COMBINE_BUNDLE|- [PARTIAL COMBINE ...]\n"
                 "       TWINS=1 decode_time.py PARTIAL COMBINE TWIN [PARTIAL COMBINE TWIN ...]")
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    for i in range(0, len(args), k):
        try:
            rec = one(args[i], args[i + 1], args[i + 2] if k == 3 else None)
        except Exception as e:  # one bad pair must not end the run
            traceback.print_exc()
            rec = {"partial": args[i], "combine": args[i + 1],
                   "error": str(e).splitlines()[0][:300] if str(e) else type(e).__name__}
        print(json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
