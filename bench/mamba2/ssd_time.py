"""ssd_time.py ANCHORS_DIR BUNDLE... — Mamba2 ChunkState and ChunkScan bundles (examples/
mamba2_chunk_state.json, mamba2_chunk_scan.json, built with `make lib`) against mamba_ssm's Triton
kernels `_chunk_state_fwd` / `_chunk_scan_fwd` (the unchanged copies in ANCHORS_DIR,
../shared/anchors/mamba2-triton), timed by pt_bench.time_interleaved in one process: CUDA graphs
of batched launches over rotated input copies, the subjects alternating round by round.

Graphs with ngroups > 1 (examples/mamba2_*_grouped.json, x[b, c, l, g, hg, p]) are compared with
mamba_ssm called with ngroups = G (B, C and CB with a group axis). Inputs as bench.py makes them:
x, B, C, CB, states ~ N(0, 1) in bf16, dt ~ U(0, 0.1), dA_cumsum a
cumulative sum of -U(0, 0.01); ChunkState's graph takes dA_last = dA_cumsum[..., -1] as its own
input (made once per input copy, untimed). Before timing, every element of our output is
checked against an f32 torch computation of the same function (the matmuls' 16-bit operands
rounded as the graph declares them) and against mamba_ssm's own output on the same inputs (so
both compute the same thing). Also timed in the same run: a device-to-device copy, the HBM
bandwidth the memory floor (bytes the kernel must move / that bandwidth) is measured against.
One JSON line per bundle (the kernel is told by the bundle's tensors). Env PLACEMENTS (1)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402

BF = torch.bfloat16


def copy_bandwidth():
    """GB/s of device copies of 256 MB to 2 GB (read + write counted), timed as the subjects
    are after a second of load; the best size is the floor's bandwidth."""
    best = 0.0
    for n in (1 << 27, 1 << 28, 1 << 30):
        src = torch.empty(n, dtype=BF, device="cuda").normal_()
        dst = torch.empty_like(src)
        t = pt_bench.time_interleaved({"copy": lambda k: dst.copy_(src)}, 1, iters=100, batch=10,
                                      warmup_ms=1000.0)
        best = max(best, 2 * n * 2 / (t["copy"]["median_ms"] * 1e-3) / 1e9)
        del src, dst
    return best


def dt_dA(B, H, C, L):
    dt = torch.rand(B, H, C, L, device="cuda") * 0.1
    dA = -(torch.rand(B, H, C, L, device="cuda")).cumsum(-1) * 0.01
    return dt, dA


def heads(x):
    """(B, C, L, G, H, P, S) of x[b, c, l, h, p] (ngroups 1) or x[b, c, l, g, hg, p] (H = G·HG);
    where S is not a whole number of chunks, tensors.json gives x as stored, [b, S, ...], with its
    "pieces" (the count C and length L of the chunks, the last shorter)."""
    shape = list(x["shape"])
    if "pieces" in x:
        pc = x["pieces"]
        shape[1:2] = [pc["count"], pc["length"]]
    S = x["pieces"]["of"] if "pieces" in x else shape[1] * shape[2]
    if len(shape) == 6:
        B, C, L, G, HG, P = shape
        return B, C, L, G, G * HG, P, S
    B, C, L, H, P = shape
    return B, C, L, 1, H, P, S


def whole_chunks(t, C, L):
    """t[b, S, ...] with zero rows after the sequence's end, to C·L rows."""
    if t.shape[1] == C * L:
        return t
    pad = torch.zeros((t.shape[0], C * L - t.shape[1]) + tuple(t.shape[2:]), device=t.device, dtype=t.dtype)
    return torch.cat([t, pad], dim=1)


class ChunkState:
    """states[b, c, h] = (x · exp(dA_last - dA_cs) · dt)ᵀ · B over the chunk."""
    out = "states"

    def __init__(self, t):
        self.B, self.C, self.L, self.G, self.H, self.P, self.S = heads(t["x"])
        self.N = t["Bm"]["shape"][-1]

    def shape(self):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        S = self.S
        return {"B": B, "S": S, "H": H, "P": P, "N": N, "L": L, "flops": 2.0 * B * C * H * P * N * L,
                "G": self.G,
                "bytes": B * S * H * P * 2 + B * S * self.G * N * 2 + 2 * B * H * S * 4 + B * C * H * P * N * 4}

    def inputs(self):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        dt, dA = dt_dA(B, H, C, L)
        return {"x": torch.randn(B, self.S, H, P, device="cuda", dtype=BF),
                "Bm": torch.randn(B, self.S, self.G, N, device="cuda", dtype=BF),
                "dt": dt, "dA_cs": dA, "dA_last": dA[..., -1].contiguous()}

    def theirs(self, i, ssd):
        return ssd._chunk_state_fwd(i["Bm"], i["x"], i["dt"], i["dA_cs"], states_in_fp32=True)

    def reference(self, i):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        w = torch.exp(i["dA_last"][..., None] - i["dA_cs"]) * i["dt"]          # b h c l
        xs = whole_chunks(i["x"], C, L).float().view(B, C, L, H, P) * w.permute(0, 2, 3, 1)[..., None]
        xs = xs.to(BF).float()  # the graph's xs is bf16, as the kernel's A operand
        Bh = whole_chunks(i["Bm"], C, L).float().repeat_interleave(H // self.G, dim=2).view(B, C, L, H, N)  # head h: group h // HG
        return torch.einsum("bclhp,bclhn->bchpn", xs, Bh)


class ChunkScan:
    """out = (C · statesᵀ) · exp(dA) + Σ_{s ≤ l} CB[l, s] · exp(dA[l] - dA[s]) · dt[s] · x[s]."""
    out = "out"

    def __init__(self, t):
        self.B, self.C, self.L, self.G, self.H, self.P, self.S = heads(t["x"])
        self.N = t["C"]["shape"][-1]

    def shape(self):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        S = self.S
        G = self.G
        return {"B": B, "S": S, "H": H, "P": P, "N": N, "L": L, "G": G,
                "flops": 1.0 * B * C * H * (2 * L * P * N + L * L * P),
                "bytes": 2 * B * S * H * P * 2 + B * S * G * N * 2 + B * C * G * L * L * 2
                + 2 * B * H * S * 4 + B * C * H * P * N * 2}

    def inputs(self):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        dt, dA = dt_dA(B, H, C, L)
        return {"x": torch.randn(B, self.S, H, P, device="cuda", dtype=BF),
                "C": torch.randn(B, self.S, self.G, N, device="cuda", dtype=BF),
                "CB": torch.randn(B, C, self.G, L, L, device="cuda", dtype=BF),
                "states": torch.randn(B, C, H, P, N, device="cuda", dtype=BF),
                "dt": dt, "dA_l": dA}

    def theirs(self, i, ssd):
        return ssd._chunk_scan_fwd(i["CB"], i["x"], i["dt"], i["dA_l"], i["C"], i["states"])[0]

    def reference(self, i):
        B, C, L, H, P, N = self.B, self.C, self.L, self.H, self.P, self.N
        out = torch.empty(B, C, L, H, P, device="cuda")
        causal = torch.ones(L, L, device="cuda", dtype=torch.bool).tril()
        HG = H // self.G  # head h reads group h // HG's C and CB
        for b in range(B):  # one batch index at a time: the decay tile is H·C·L·L floats
            dA, dt = i["dA_l"][b], i["dt"][b]                                  # h c l
            Ch = whole_chunks(i["C"][b:b + 1], C, L)[0].float().repeat_interleave(HG, dim=1).view(C, L, H, N)
            y = torch.einsum("clhn,chpn->clhp", Ch, i["states"][b].float())
            y = y * torch.exp(dA).permute(1, 2, 0)[..., None]
            decay = torch.exp(dA[..., :, None] - dA[..., None, :]) * causal      # h c l s
            cbh = i["CB"][b].float().repeat_interleave(HG, dim=1).permute(1, 0, 2, 3)  # h c l s
            pdt = cbh * decay * dt[..., None, :]
            pdt = pdt.to(BF).float()  # the graph's Pdt is bf16, as the kernel's A operand
            y += torch.einsum("hcls,cshp->clhp", pdt, whole_chunks(i["x"][b:b + 1], C, L)[0].float().view(C, L, H, P))
            out[b] = y
        return out.view(B, C * L, H, P)[:, :self.S]


def main():
    sys.path.insert(0, sys.argv[1])
    import importlib
    mods = {"states": importlib.import_module("mamba_ssm.ops.triton.ssd_chunk_state"),
            "out": importlib.import_module("mamba_ssm.ops.triton.ssd_chunk_scan")}
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    bw = copy_bandwidth()
    print(json.dumps({"copy_GBps": bw}), flush=True)
    places = int(os.environ.get("PLACEMENTS", "1"))
    for d in sys.argv[2:]:
        rec = {"bundle": os.path.basename(d.rstrip("/"))}
        try:
            b = pt_bench.Bundle(d)
            t = {x["name"]: x for x in b.tensors}
            k = ChunkScan(t) if "CB" in t else ChunkState(t)
            ssd = mods[k.out]
            rec.update({"kernel": type(k).__name__, **k.shape()})
            rotate = pt_bench.rotation(rec["bytes"])
            kept = []

            def make(p):
                ins = [k.inputs() for _ in range(rotate)]
                outs = b.outputs()
                slots = [b.slots(x, outs) for x in ins]
                subj = {"ours": lambda j: b.launch(slots[j]),
                        "mamba_ssm": lambda j: k.theirs(ins[j], ssd)}
                kept.append((ins, outs, slots, subj))
                return subj

            subjects = make(0)
            ins, outs, slots, _ = kept[0]
            b.launch(slots[0])
            theirs = subjects["mamba_ssm"](0)
            torch.cuda.synchronize()
            ref = k.reference(ins[0])
            ours = outs[k.out].float().reshape(ref.shape)
            scale = ref.abs().max().item()
            bad, rel = pt_bench.close_enough(ours, ref, 0.01 * scale, 0.02)
            bad_t, rel_t = pt_bench.close_enough(ours, theirs.float().reshape(ref.shape), 0.01 * scale, 0.02)
            rec["check"] = {"mismatches": bad, "rel_err": rel, "elements": ref.numel(),
                            "vs_mamba_ssm": {"mismatches": bad_t, "rel_err": rel_t}}
            del ref
            if bad or bad_t:
                rec["error"] = f"{bad} elements differ from the f32 reference, {bad_t} from mamba_ssm's"
                print(json.dumps(rec), flush=True)
                continue
            rec["times"] = pt_bench.time_interleaved(
                (lambda p: subjects if p == 0 else make(p)), rotate, placements=places)
            mine = rec["times"]["ours"]["median_ms"]
            rec["speedup_vs_mamba_ssm"] = rec["times"]["mamba_ssm"]["median_ms"] / mine
            rec["hbm_floor_ms"] = rec["bytes"] / (bw * 1e9) * 1e3
            rec["of_floor"] = rec["hbm_floor_ms"] / mine
            rec["tflops"] = rec["flops"] / (mine * 1e-3) / 1e12
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
