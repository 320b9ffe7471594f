"""mismatch.py BUNDLE... — where a Mamba2 ChunkScan/ChunkState bundle's output differs from the
f32 reference (ssd_time.py's), launch after launch on the same inputs: the output is filled with
NaN before each launch (an element never written shows as NaN), and the wrong elements are
counted by batch index, chunk, head, head within the tile's head group, row and column, so a
race (different elements each launch) is told from a wrong formula (the same ones every time).
Env LAUNCHES (6), HGROUP (3: heads per tile, for the within-group count)."""
import collections
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common"))
import pt_bench  # noqa: E402
from ssd_time import ChunkScan, ChunkState  # noqa: E402


def top(counter, n=8):
    return dict(counter.most_common(n))


def main():
    launches = int(os.environ.get("LAUNCHES", "6"))
    hg = int(os.environ.get("HGROUP", "3"))
    for d in sys.argv[1:]:
        rec = {"bundle": os.path.basename(d.rstrip("/"))}
        try:
            b = pt_bench.Bundle(d)
            t = {x["name"]: x for x in b.tensors}
            k = ChunkScan(t) if "CB" in t else ChunkState(t)
            ins = k.inputs()
            outs = b.outputs()
            slots = b.slots(ins, outs)
            ref = k.reference(ins)
            scale = ref.abs().max().item()
            masks = []
            for _ in range(launches):
                outs[k.out].fill_(float("nan"))
                b.launch(slots)
                torch.cuda.synchronize()
                o = outs[k.out].float().reshape(ref.shape)
                bad = ~((o - ref).abs() <= 0.01 * scale + 0.02 * ref.abs())
                masks.append(bad)
                if len(masks) == 1:
                    first_out = o.clone()
                nan = int(torch.isnan(o).sum().item())
                rec.setdefault("per_launch", []).append({"bad": int(bad.sum().item()), "nan": nan})
            every = masks[0].clone()
            some = masks[0].clone()
            for m in masks[1:]:
                every &= m
                some |= m
            rec["in_every_launch"] = int(every.sum().item())
            rec["in_some_launch"] = int(some.sum().item())
            idx = some.nonzero()
            if len(idx):
                # ChunkScan: ref [B, S, H, P] (viewed by chunks of L); ChunkState: [B, C, H, P, N]
                if isinstance(k, ChunkScan):
                    names = ("b", "s", "h", "p")
                else:
                    names = ("b", "c", "h", "p", "n")
                cols = {n: idx[:, i].tolist() for i, n in enumerate(names)}
                cnt = {n: collections.Counter(v) for n, v in cols.items()}
                rec["by"] = {n: top(c) for n, c in cnt.items()}
                rec["distinct"] = {n: len(c) for n, c in cnt.items()}
                rec["by"]["h_in_group"] = top(collections.Counter(h % hg for h in cols["h"]))
                if isinstance(k, ChunkScan):
                    rec["by"]["chunk"] = top(collections.Counter(s // k.L for s in cols["s"]))
                    rec["by"]["l"] = top(collections.Counter(s % k.L for s in cols["s"]), 12)
                    rec["by"]["l_tile64"] = top(collections.Counter((s % k.L) // 64 for s in cols["s"]))
                    rec["by"]["l_in_tile"] = top(collections.Counter(s % 64 for s in cols["s"]), 12)
                first = masks[0].nonzero()[:12].tolist()
                rec["scale"] = scale
                rec["examples"] = [{"at": e, "ours": first_out[tuple(e)].item(), "ref": ref[tuple(e)].item()}
                                   for e in first]  # the first launch's wrong elements
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
