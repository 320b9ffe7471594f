"""lowbit_time.py BUNDLE... — low-bit weight-only GEMM bundles (gemm_w4a16 / gemm_wfp4a16, built
with `make lib`) against the bf16/f16 GEMM that cuBLAS runs for torch.matmul on the dequantised
weights, and (int4, bf16 activations) torch's int4 GEMM `_weight_int4pack_mm` with the same
weights: all timed by pt_bench.time_interleaved in one process (the harness's method: CUDA
graphs of batched launches over rotated input copies, subjects alternating round by round).

Before timing, the kernel's output is checked on every element against the f32 product of the
dequantised weights (dequantise-then-multiply, as the bundle's reference), and torch's int4
result against the same product. Weights are random nibbles, scales uniform in [0.005, 0.02].
One JSON line per bundle. Env PLACEMENTS (1)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

FP4 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0,
                    -4.0, -6.0])


def frag_order(N, K, device):
    """For the "fragments" packing (src/packing.h): the nibble index of each element (n, k), as
    an [N, K] tensor, so that element (n, k) is nibble order[n, k] of the packed bytes."""
    n = torch.arange(N, device=device).view(-1, 1)
    k = torch.arange(K, device=device).view(1, -1)
    rr, kk = n % 16, k % 64
    kc = kk % 32
    kt = kc % 16
    lane = 4 * (rr % 8) + (kt % 8) // 2
    word = 2 * (kk // 32) + rr // 8
    nib = 2 * (kc // 16) + kt // 8 + 4 * (kt % 2)
    byte = ((n // 16) * 16 + lane % 16) * (K // 2) + (k // 64) * 32 + 16 * (lane // 16) + 4 * word + nib // 2
    return byte * 2 + nib % 2


def unpack(wq, fmt, packing="rows"):
    """Packed [N, K/2] uint8 -> [N, K] f32 values (rows: even element in the low nibble;
    fragments: src/packing.h)."""
    lo, hi = (wq & 0xF).long(), (wq >> 4).long()
    nib = torch.stack([lo, hi], dim=-1).reshape(wq.shape[0], -1)
    if packing == "fragments":
        N, K = nib.shape
        nib = nib.reshape(-1)[frag_order(N, K, nib.device)]
    if fmt == "int4":
        return torch.where(nib >= 8, nib - 16, nib).float()
    return FP4.to(wq.device)[nib]


def torch_int4(A, wq_signed_nib, scales, group):
    """torch's int4 GEMM on the same weights: its packing of unsigned nibbles u = n + 8 with
    (u - 8) * scale + zero, zero = 0. Returns (fn(A) -> C, error or None)."""
    try:
        N, K = wq_signed_nib.shape
        u = (wq_signed_nib + 8).to(torch.int32)
        # torch's packing keeps the even element in the high nibble (gpt-fast's
        # `w[:, ::2] << 4 | w[:, 1::2]`); the low-nibble order computed a different product
        packed_u8 = ((u[:, 0::2] << 4) | u[:, 1::2]).to(torch.uint8)
        try:
            w = torch.ops.aten._convert_weight_to_int4pack(packed_u8.contiguous(), 8)
        except Exception:
            w = torch.ops.aten._convert_weight_to_int4pack(u.contiguous(), 8)
        sz = torch.stack([scales.t().contiguous(), torch.zeros_like(scales.t())], dim=-1)
        sz = sz.to(torch.bfloat16).contiguous()

        def fn(a):
            return torch.ops.aten._weight_int4pack_mm(a, w, group, sz)
        fn(A)
        return fn, None
    except Exception as e:  # a torch without this op (or its packing) is reported, not faked
        return None, f"{type(e).__name__}: {str(e)[:200]}"


def main():
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    places = int(os.environ.get("PLACEMENTS", "1"))
    for d in sys.argv[1:]:
        rec = {"bundle": os.path.basename(d.rstrip("/"))}
        try:
            b = pt_bench.Bundle(d)
            t = {x["name"]: x for x in b.tensors}
            M, K = t["A"]["shape"]
            N = t["C"]["shape"][1]
            fmt = "int4" if t["Wq"]["dtype"] == "int4" else "fp4"
            packing = t["Wq"].get("packing", "rows")
            dt = pt_bench.DTYPES[t["A"]["dtype"]]
            # the group length (a row of scales may be padded to 16 bytes past K / G)
            G = t["Wq"].get("group") or K // t["Ws"]["shape"][1]
            KG = t["Ws"]["shape"][1]
            rec.update({"M": M, "N": N, "K": K, "G": G, "weights": fmt, "packing": packing,
                        "act": t["A"]["dtype"],
                        "flops": 2.0 * M * N * K})
            in_bytes = M * K * 2 + N * K // 2 + N * KG * 2
            rotate = pt_bench.rotation(in_bytes)
            kept = []

            def make(p):
                ins = []
                for _ in range(rotate):
                    A = (torch.rand(M, K, device="cuda") * 2 - 1).to(dt)
                    wq = torch.randint(0, 256, (N, K // 2), device="cuda", dtype=torch.uint8)
                    ws = (torch.rand(N, KG, device="cuda") * 0.015 + 0.005).to(dt)
                    ins.append({"A": A, "Wq": wq, "Ws": ws})
                outs = b.outputs()
                slots = [b.slots(x, outs) for x in ins]
                # the dequantised weights each baseline multiplies (rounded as the reference)
                Wd = [(unpack(x["Wq"], fmt, packing) *
                       x["Ws"][:, :K // G].float().repeat_interleave(G, dim=1)).to(dt)
                      for x in ins]
                Ct = torch.empty(M, N, device="cuda", dtype=dt)
                subj = {"ours": lambda k: b.launch(slots[k]),
                        "cublas": lambda k: torch.matmul(ins[k]["A"], Wd[k].t(), out=Ct)}
                if fmt == "int4" and dt == torch.bfloat16:
                    nibs = [unpack(x["Wq"], "int4", packing).to(torch.int32) for x in ins]
                    fns = [torch_int4(x["A"], n, x["Ws"][:, :K // G], G) for x, n in zip(ins, nibs)]
                    if fns[0][0] is not None:
                        subj["torch_int4"] = lambda k: fns[k][0](ins[k]["A"])
                    else:
                        rec["torch_int4"] = fns[0][1]
                kept.append((ins, outs, slots, Wd, Ct, subj))
                return subj

            subjects = make(0)
            ins, outs, slots, Wd, Ct, _ = kept[0]
            b.launch(slots[0])
            torch.cuda.synchronize()
            ref = ins[0]["A"].float() @ Wd[0].float().t()
            tol = 1e-2 if dt == torch.float16 else 3e-2
            bad, rel = pt_bench.close_enough(outs["C"], ref, tol * max(1.0, ref.abs().max().item()) * 0.05, tol)
            rec["check"] = {"mismatches": bad, "rel_err": rel, "elements": M * N}
            if "torch_int4" in subjects:
                c4 = subjects["torch_int4"](0)
                torch.cuda.synchronize()
                b4, r4 = pt_bench.close_enough(c4, ref, 0.05 * max(1.0, ref.abs().max().item()) * 0.05, 3e-2)
                rec["torch_int4_check"] = {"mismatches": b4, "rel_err": r4}
            if bad:
                rec["error"] = f"{bad} of {M * N} elements differ from the f32 reference"
                print(json.dumps(rec), flush=True)
                continue
            rec["times"] = pt_bench.time_interleaved(
                (lambda p: subjects if p == 0 else make(p)), rotate, placements=places)
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
