"""state_time.py ANCHORS_DIR BUNDLE... — Mamba2 ChunkState bundles (examples/mamba2_chunk_state.json
built with `make lib`) against mamba_ssm's Triton kernel `_chunk_state_fwd` (the unchanged copy in
ANCHORS_DIR, ../shared/anchors/mamba2-triton), timed by pt_bench.time_interleaved in one process:
CUDA graphs of batched launches over rotated input copies, the subjects alternating round by round.

Inputs as bench.py makes them: x, B ~ N(0, 1) in bf16, dt ~ U(0, 0.1), dA_cumsum a cumulative sum
of -U(0, 0.01); our graph takes dA_last = dA_cumsum[..., -1] as its own input (made once per input
copy, untimed). Before timing, every element of our states is checked against an f32 einsum of the
same function and against mamba_ssm's own output on the same inputs (so both compute the same
thing). Also timed in the same run: a device-to-device copy of 2 GB, the HBM bandwidth the
memory floor of ChunkState (bytes it must move / that bandwidth) is measured against.
One JSON line per bundle. Env PLACEMENTS (1)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pt_bench  # noqa: E402


def copy_bandwidth():
    """GB/s of device copies of 256 MB to 2 GB (read + write counted), timed as the subjects
    are after a second of load; the best size is the floor's bandwidth."""
    best = 0.0
    for n in (1 << 27, 1 << 28, 1 << 30):
        src = torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_()
        dst = torch.empty_like(src)
        t = pt_bench.time_interleaved({"copy": lambda k: dst.copy_(src)}, 1, iters=100, batch=10,
                                      warmup_ms=1000.0)
        best = max(best, 2 * n * 2 / (t["copy"]["median_ms"] * 1e-3) / 1e9)
        del src, dst
    return best


def main():
    sys.path.insert(0, sys.argv[1])
    from mamba_ssm.ops.triton.ssd_chunk_state import _chunk_state_fwd
    print(json.dumps({"info": pt_bench.gpu_info()}), flush=True)
    bw = copy_bandwidth()
    print(json.dumps({"copy_GBps": bw}), flush=True)
    places = int(os.environ.get("PLACEMENTS", "1"))
    for d in sys.argv[2:]:
        rec = {"bundle": os.path.basename(d.rstrip("/"))}
        try:
            b = pt_bench.Bundle(d)
            t = {x["name"]: x for x in b.tensors}
            B, C, L, H, P = t["x"]["shape"]
            N = t["Bm"]["shape"][3]
            S = C * L
            rec.update({"B": B, "S": S, "H": H, "P": P, "N": N, "L": L,
                        "flops": 2.0 * B * C * H * P * N * L})
            moved = B * S * H * P * 2 + B * S * N * 2 + 2 * B * H * S * 4 + B * C * H * P * N * 4
            rec["bytes"] = moved
            rotate = pt_bench.rotation(moved)
            kept = []

            def make(p):
                ins = []
                for _ in range(rotate):
                    x = torch.randn(B, S, H, P, device="cuda", dtype=torch.bfloat16)
                    Bm = torch.randn(B, S, 1, N, device="cuda", dtype=torch.bfloat16)
                    dt = torch.rand(B, H, C, L, device="cuda") * 0.1
                    dA = -(torch.rand(B, H, C, L, device="cuda")).cumsum(-1) * 0.01
                    ins.append({"x": x, "Bm": Bm, "dt": dt, "dA_cs": dA,
                                "dA_last": dA[..., -1].contiguous()})
                outs = b.outputs()
                slots = [b.slots(x, outs) for x in ins]
                subj = {"ours": lambda k: b.launch(slots[k]),
                        "mamba_ssm": lambda k: _chunk_state_fwd(ins[k]["Bm"], ins[k]["x"], ins[k]["dt"],
                                                                ins[k]["dA_cs"], states_in_fp32=True)}
                kept.append((ins, outs, slots, subj))
                return subj

            subjects = make(0)
            ins, outs, slots, _ = kept[0]
            b.launch(slots[0])
            theirs = subjects["mamba_ssm"](0)
            torch.cuda.synchronize()
            i0 = ins[0]
            w = torch.exp(i0["dA_last"][..., None] - i0["dA_cs"]) * i0["dt"]          # b h c l
            xs = i0["x"].float().view(B, C, L, H, P) * w.permute(0, 2, 3, 1)[..., None]
            ref = torch.einsum("bclhp,bcln->bchpn", xs, i0["Bm"].float().view(B, C, L, N))
            scale = ref.abs().max().item()
            bad, rel = pt_bench.close_enough(outs["states"], ref, 0.01 * scale, 0.02)
            bad_t, rel_t = pt_bench.close_enough(outs["states"], theirs.float(), 0.01 * scale, 0.02)
            rec["check"] = {"mismatches": bad, "rel_err": rel, "elements": ref.numel(),
                            "vs_mamba_ssm": {"mismatches": bad_t, "rel_err": rel_t}}
            if bad or bad_t:
                rec["error"] = f"{bad} elements differ from the f32 reference, {bad_t} from mamba_ssm's"
                print(json.dumps(rec), flush=True)
                continue
            rec["times"] = pt_bench.time_interleaved(
                (lambda p: subjects if p == 0 else make(p)), rotate, placements=places)
            ours = rec["times"]["ours"]["median_ms"]
            rec["speedup_vs_mamba_ssm"] = rec["times"]["mamba_ssm"]["median_ms"] / ours
            rec["hbm_floor_ms"] = moved / (bw * 1e9) * 1e3
            rec["of_floor"] = rec["hbm_floor_ms"] / ours
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
