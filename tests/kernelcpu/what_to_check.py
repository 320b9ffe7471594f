"""what_to_check.py TENSORS_JSON MAX_MACS PROGRAM_JSON SET SHRUNK — for tests/kernelcpu/test_kernels.sh:
the checker of one generated bundle and its arguments ("CHECKER ARGS...", or "harness": the
bundle's own harness.c with its reference kernels), "shrink SET" (the
same sProgram at a shape of a few tiles, where the bundle's product is over MAX_MACS and SHRUNK
is empty), or "- why not run"."""
import json, sys
j = json.load(open(sys.argv[1]))
tile = json.load(open(sys.argv[3])).get("tile", {})
params = dict(kv.split("=") for kv in sys.argv[4].split(",")) if sys.argv[4] != "-" else {}
# a shape already cut to a few tiles may take up to 2^29 (or four times the limit): it is the
# least that covers the sProgram's paths
limit = max(int(sys.argv[2]) * 4, 1 << 29) if sys.argv[5] else int(sys.argv[2])


def too_big(macs, shrink):
    """over the limit: a smaller shape of the same sProgram (once), else not run"""
    if sys.argv[5] or not shrink:
        print("- %d multiply-adds" % macs)
    else:
        params.update({k: str(v) for k, v in shrink.items()})
        print("shrink " + ",".join("%s=%s" % kv for kv in params.items()))


def fewer(v, t, whole):
    """v cut to `whole` tiles of t and its remainder (the edge tile stays an edge tile)"""
    return min(v, whole * t + v % t) if t else v
t, ops = j["tensors"], [o["op"] for o in j["ops"]]
partition = json.load(open(sys.argv[3])).get("partition", {})
if partition.get("split_k_reduce") == "cluster":
    print("- a thread-block cluster (not emulated)")
    sys.exit(0)
idx = {x["name"]: i for i, x in enumerate(t)}
if j["graph"].startswith("flash_decoding_combine"):
    y, x, o = t[idx["Opart"]], t[idx["LSE"]], t[idx["O"]]
    bh = 1
    for e in o["shape"][:-2]:
        bh *= e
    print("combine_check", bh, y["shape"][-3], o["shape"][-2], o["shape"][-1], o["dtype"], len(t),
          idx["Opart"], idx["LSE"], idx["O"])
elif ops == ["matmul"] and [x["role"] for x in t] == ["input", "input", "output"] and \
        all(len(x["shape"]) == 2 and x["dtype"] in ("f16", "bf16") for x in t):
    a, b, c = t
    size = dict(zip(a["axes"], a["shape"]))
    size.update(zip(b["axes"], b["shape"]))
    size.update(zip(c["axes"], c["shape"]))
    m, n = c["axes"]
    k = [ax for ax in a["axes"] if ax not in c["axes"]][0]
    if size[m] * size[n] * size[k] > limit:
        too_big(size[m] * size[n] * size[k],
                {"M": fewer(size[m], tile.get(m, 0), 2), "N": fewer(size[n], tile.get(n, 0), 2),
                 "K": fewer(size[k], tile.get(k, 0), 8)} if j["graph"].startswith("gemm_") else None)
    else:
        print("gemm_check", size[m], size[n], size[k], "mk" if a["axes"] == [m, k] else "km",
              "kn" if b["axes"] == [k, n] else "nk", c["dtype"], len(t), 0, 1, 2)
elif ops == ["matmul", "online_softmax", "matmul"] and all(n in idx for n in ("Q", "K", "V", "Opart", "LSE")):
    # FlashDecoding's partial: Q [.., g, d], K and V [.., s, n, d] stored as the whole sequence
    q, k, o = t[idx["Q"]], t[idx["K"]], t[idx["Opart"]]
    bh = 1
    for e in q["shape"][:-2]:
        bh *= e
    G, D = q["shape"][-2], q["shape"][-1]
    pieces = o["shape"][-3]
    # K's shape: [.., s, n, d], or [.., S, d] where the pieces are ragged (stored as the sequence)
    ragged = len(k["shape"]) < len(k["axes"])
    n = -(-k["shape"][-2] // pieces) if ragged else k["shape"][-2]
    S = k["shape"][-2] if ragged else pieces * n
    macs = bh * G * S * D * 2
    if macs > limit:
        # 64 keys a piece, the last 13 fewer where the pieces were ragged
        too_big(macs, {"B": 1, "S": pieces * 64 - (13 if ragged else 0)})
    else:
        print("decode_check", bh, G, S, pieces, D, repr(j["ops"][1]["scale"]), q["dtype"], len(t),
              idx["Q"], idx["K"], idx["V"], idx["Opart"], idx["LSE"])
elif ops == ["matmul", "online_softmax", "matmul"] and all(n in idx for n in ("Q", "K", "V", "O")):
    q, k, v, o = (t[idx[n]] for n in ("Q", "K", "V", "O"))
    qb, kb = q["axes"][:-2], k["axes"][:-2]
    bq = bk = 1
    for e in q["shape"][:-2]:
        bq *= e
    for e in k["shape"][:-2]:
        bk *= e
    M, N, D = q["shape"][-2], k["shape"][-2], q["shape"][-1]
    causal = bool(j["ops"][1]["causal"])
    macs = bq * M * N * D * 2
    if qb[:len(kb)] != kb or v["shape"] != k["shape"] or o["shape"] != q["shape"]:
        print("- K / V batch axes not a leading part of Q's")
    elif causal and M != N:
        print("- causal with M != N")
    elif macs > limit:
        # a few heads: several tiles for each of the 4 CTAs of a persistent grid (runs of 3-5)
        heads = {"HKV": 2} if "HKV" in params or j["graph"].endswith("gqa") else {"H": 4}
        too_big(macs, dict(B=1, S=max(fewer(M, tile.get("m", 0), 2), 1), **heads))
    else:
        print("attn_check", bq, bq // bk, M, N, D, repr(j["ops"][1]["scale"]), int(causal), o["dtype"],
              len(t), idx["Q"], idx["K"], idx["V"], idx["O"])
elif j["graph"].startswith(("mamba2_chunk_", "gemm_w4a16", "gemm_wfp4a16")):
    # the bundle's own harness (harness.c --check-only) with its reference kernels, every
    # output element within the harness's tolerance
    if j["graph"].startswith("mamba2_chunk_"):
        x = t[idx["x"]]
        elems = 1
        for e in x["shape"]:
            elems *= e
        n = [s for x_ in t if x_["name"] in ("Bm", "C") for s in x_["shape"][-1:]][0]
        length = x["shape"][2]
        macs = elems * (n + (length // 2 if "scan" in j["graph"] else 0))
        seq = int(params.get("S", 8192))
        shrink = {"B": 1, "S": min(seq, 2 * length + seq % length)}
        if "HG" in params or j["graph"].endswith("_grouped"):
            shrink.update(G=min(int(params.get("G", 8)), 2), HG=min(int(params.get("HG", 8)), 2 * tile.get("hg", 1)))
        else:
            shrink["H"] = min(int(params.get("H", 64)), 2 * tile.get("h", 1))
    else:
        a, c = t[idx["A"]], t[idx["C"]]
        m, k = a["shape"]
        nn = c["shape"][1]
        macs = m * nn * k
        group = int(params.get("G", 128))
        kk = fewer(k, tile.get("k", 0), 8)
        shrink = {"M": fewer(m, tile.get("m", 0), 2), "N": fewer(nn, tile.get("n", 0), 2),
                  "K": min(k, -(-kk // group) * group)}
    if macs > limit:
        too_big(macs, shrink)
    else:
        print("harness")
else:
    print("- not a kind this runner checks")
