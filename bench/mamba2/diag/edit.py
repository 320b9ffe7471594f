"""edit.py KERNEL.cu VARIANT — one change to a generated three-warpgroup ChunkScan kernel with its
warpgroups' own stores, to find which part of the store path session 47's wrong elements (all in
warpgroup 0's rows) come from (bisect.sh):
  id4     warpgroup 0's named barrier 1 becomes 4
  waitall the lead waits for its stores' writes, not only their reads, before restaging
  swap    warpgroups 0 and 2 trade staging rows (and store sources)
  eager   the lead waits for each store's reads right after committing it
  fencew  a proxy fence after the restaging barrier, before the generic writes
  sync4   a warpgroup barrier after the store is issued
  perm    warpgroups 0 and 2 trade the heads they compute (their data slots and store heads),
          keeping their staging rows
  lock    every consumer warpgroup meets the others at each tile's start (named barrier 5)
  relb    x's ring stage released by every warp after its wgmma wait, not by the lead only
  defer_x, defer_u3, defer_u5   that ring's stage (CB, dt, dA_s) released at the step's end,
          after the wgmma wait, not right after the warp read it
  defer_u4   dA_l's resident tile released after the tile's loop, not once read
  consume_u4, consume_x   before the warp's arrival that releases dA_l's tile (CB's stage), its
          lane 0 hands the values the warp read from it to a shared-memory atomic, so that the
          arrival issues only once those reads have returned (a few cycles, no throttling)
  fence_x, fence_u3, fence_u5, fence_u4   a proxy fence (fence.proxy.async.shared::cta) by every
          lane between its reads of that buffer and the warp's arrival that releases it"""
import re
import sys

path, v = sys.argv[1], sys.argv[2]
src = open(path).read()
parts = re.split(r"(?=\n    if \(cw == \d\) \{)", src)
head, roles, = parts[0], parts[1:]
def role(i):
    return roles[i]
if v == "id4":
    roles[0] = roles[0].replace("named_sync(1, 128)", "named_sync(4, 128)")
elif v == "waitall":
    roles = [r.replace("pt::tma_store_wait_read();", "pt::tma_store_wait_all();") for r in roles]
elif v == "swap":
    roles[0] = roles[0].replace("0 * 64 + warp * 16 + lane / 4, lane);", "2 * 64 + warp * 16 + lane / 4, lane);")
    roles[0] = roles[0].replace("smem + OFF_C + a * 24576", "smem + OFF_C + 16384 + a * 24576")
    roles[2] = roles[2].replace("2 * 64 + warp * 16 + lane / 4, lane);", "0 * 64 + warp * 16 + lane / 4, lane);")
    roles[2] = roles[2].replace("smem + OFF_C + 16384 + a * 24576", "smem + OFF_C + a * 24576")
elif v == "eager":
    roles = [r.replace("pt::tma_store_commit();", "pt::tma_store_commit();\n                pt::tma_store_wait_read();") for r in roles]
elif v == "fencew":
    roles = [re.sub(r"(pt::named_sync\(\d, 128\);\n            \}\n)", r"\1            pt::fence_proxy_async();\n", r) for r in roles]
elif v == "sync4":
    roles = [re.sub(r"(pt::tma_store_commit\(\);\n(?:.*\n)*?            \}\n)", lambda m: m.group(1) + "            pt::named_sync(%d, 128);\n" % (i + 1), r, count=1) for i, r in enumerate(roles)]
elif v == "perm":
    to2 = [("smem + OFF_PB + 0)", "smem + OFF_PB + 16384)"), ("(smem + OFF_U4) + 0 + warp", "(smem + OFF_U4) + 128 + warp"),
           ("(smem + OFF_U5 + s_u5 * U5_PITCH), g3", "(smem + OFF_U5 + s_u5 * U5_PITCH) + 128, g3"),
           ("(smem + OFF_U3 + s_u3 * U3_PITCH), fx", "(smem + OFF_U3 + s_u3 * U3_PITCH) + 128, fx"),
           ("mma_c(acc, v0_0, smem, s_b, 0)", "mma_c(acc, v0_0, smem, s_b, 16384)"), ("g2 * 3, g1, g0)", "g2 * 3 + 2, g1, g0)")]
    for a, b in to2:
        assert a in roles[0] and b in roles[2], (a, b)
        roles[0] = roles[0].replace(a, "@@" + b)
        roles[2] = roles[2].replace(b, a)
    roles[0] = roles[0].replace("@@", "")
elif v == "lock":
    roles = [r.replace("int g0, g1, g2, g3;\n", "pt::named_sync(5, 384);\n            int g0, g1, g2, g3;\n", 1) for r in roles]
elif v == "relb":
    head = head.replace("pt::mbar_init(&empty_b[s], WGS);", "pt::mbar_init(&empty_b[s], 4 * WGS);")
    roles = [r.replace("if (lead)\n                        pt::mbar_arrive(&empty_b", "if (lane == 0)\n                        pt::mbar_arrive(&empty_b") for r in roles]
elif v.startswith("defer_"):
    b = v[len("defer_"):]
    if b == "u4":
        old = "            __syncwarp();\n            if (lane == 0)\n                pt::mbar_arrive(u4_empty);  // this warp holds its rows in registers\n"
        new = "            u5base += n_iter_tile;\n"
        for k, r in enumerate(roles):
            assert old in r and new in r, v
            r = r.replace(old, "")
            roles[k] = r.replace(new, "            __syncwarp();\n            if (lane == 0)\n                pt::mbar_arrive(u4_empty);  // deferred\n" + new, 1)
    else:
        old = "                __syncwarp();\n                if (lane == 0)\n                    pt::mbar_arrive(&empty_%s[s_%s]);  // this warp read the stage\n" % (b, b)
        at = "            pt::wgmma_wait<0>();  // every wgmma group committed so far done\n            pt::keep_all(acc);\n"
        base = {"x": "xbase", "u3": "u3base", "u5": "u5base"}[b]
        for k, r in enumerate(roles):
            assert old in r and at in r, v
            r = r.replace(old, "")
            roles[k] = r.replace(at, at + "            __syncwarp();\n            if (lane == 0)\n                pt::mbar_arrive(&empty_%s[(%s + (uint32_t)v) %% STAGES_%s]);  // deferred\n" % (b, base, b.upper()), 1)
elif v.startswith("consume_"):
    helper = ('__device__ __forceinline__ void pt_consume(uint8_t *smem, uint32_t v)\n{\n'
              '    asm volatile("red.shared.xor.b32 [%0], %1;" ::"r"(pt::smem_addr(smem + OFF_BAR + 256)), "r"(v) : "memory");\n}\n\n')
    if "pt_consume" not in head:
        head = head.replace('extern "C" __global__', helper + 'extern "C" __global__', 1)
    b = v[len("consume_"):]
    for k, r in enumerate(roles):
        if b == "u4":
            old = "            __syncwarp();\n            if (lane == 0)\n                pt::mbar_arrive(u4_empty);"
            assert old in r, v
            roles[k] = r.replace(old, "            if (lane == 0)\n                pt_consume(smem, __float_as_uint(r_u4[0]) ^ __float_as_uint(r_u4[1]));\n" + old, 1)
        else:
            m = re.search(r"( *)pt::afrag_tile<KS, false>\(v3_0, [^\n]*\n", r)
            assert m, v
            ins = (m.group(1) + "{   uint32_t h = 0;\n" + m.group(1) + "    for (int kk = 0; kk < KS; ++kk)\n" + m.group(1) +
                   "        for (int j = 0; j < 4; ++j)\n" + m.group(1) + "            h ^= v3_0[kk][j];\n" + m.group(1) +
                   "    if (lane == 0)\n" + m.group(1) + "        pt_consume(smem, h);\n" + m.group(1) + "}\n")
            roles[k] = r[:m.end()] + ins + r[m.end():]
elif v.startswith("fence_"):
    b = v[len("fence_"):]
    if b == "u4":
        old = "            __syncwarp();\n            if (lane == 0)\n                pt::mbar_arrive(u4_empty);"
        new = "            pt::fence_proxy_async();\n" + old
    else:
        old = "                __syncwarp();\n                if (lane == 0)\n                    pt::mbar_arrive(&empty_%s[s_%s]);" % (b, b)
        new = "                pt::fence_proxy_async();\n" + old
    for k, r in enumerate(roles):
        assert old in r, v
        roles[k] = r.replace(old, new, 1)
else:
    sys.exit(f"unknown variant {v}")
out = head + "".join(roles)
if out == src:
    sys.exit(f"{path}: variant {v} changed nothing")
open(path, "w").write(out)
