"""mkalt.py DIR own|alt — round 143 hand variants of a generated ChunkScan bundle:
own: each consumer warpgroup stages its own 64 rows in its own 8 KB and stores them itself
     (no cross-warpgroup epilogue barrier); alt: that, and the warpgroups swap row halves on
     every other tile of the CTA, so the causal trip counts alternate between them."""
import re, sys
d, mode = sys.argv[1], sys.argv[2]
k = open(d + "/kernel.cu").read()
def sub(old, new, count=1):
    global k
    assert k.count(old) >= count, (old, k.count(old))
    k = k.replace(old, new)
# each warpgroup's epilogue
for w in (0, 1):
    rowexpr = f"{w} * 64" if mode == "own" else f"({w} ^ (n_tile & 1)) * 64"
    if w == 0:
        old_head = ("            if (n_tile > 0)\n"
                    "                pt::mbar_wait(c_empty, (n_tile - 1) & 1);  // Wait: the staging tile is free\n"
                    "            // add.out.wg0")
    else:
        old_head = ("            if (n_tile > 0 && lead) {  // the last store read the staging tile\n"
                    "                pt::tma_store_wait_read();\n"
                    "                pt::mbar_arrive(c_empty);\n"
                    "            }\n"
                    "            if (n_tile > 0)\n"
                    "                pt::mbar_wait(c_empty, (n_tile - 1) & 1);  // Wait: the staging tile is free\n"
                    "            // add.out.wg1")
    new_head = (f"            if (n_tile > 0) {{  // this warpgroup's last store read its staging rows\n"
                f"                if (lead)\n"
                f"                    pt::tma_store_wait_read();\n"
                f"                pt::named_sync({1 + w}, 128);\n"
                f"            }}\n"
                f"            // add.out.wg{w}")
    sub(old_head, new_head)
    sub(f"pt::store_rows_sw128<out_t, BN, C_CHUNK>(acc, smem + OFF_C, BM * 128,\n"
        f"                                                    {w} * 64 + warp * 16 + lane / 4, lane);",
        f"pt::store_rows_sw128<out_t, BN, C_CHUNK>(acc, smem + OFF_C + {w} * 8192, 64 * 128,\n"
        f"                                                    warp * 16 + lane / 4, lane);")
    tail_old = (f"            pt::named_sync({1 + w}, 128);\n"
                f"            if (lead)\n"
                f"                pt::mbar_arrive(c_full);\n")
    tail_new = (f"            pt::named_sync({1 + w}, 128);\n"
                f"            if (lead) {{\n"
                f"                pt::tma_store_5d(&tm_c, smem + OFF_C + {w} * 8192, 0, g2, g3 * 128 + {rowexpr}, g1, g0);\n"
                f"                pt::tma_store_commit();\n"
                f"            }}\n")
    sub(tail_old, tail_new)
# wg1's old shared store
old_store = k[k.index("            // store.out sits on this warpgroup's lane"):k.index("                PT_REC(23, 5, n_tile, 0, 1);\n            }\n") + len("                PT_REC(23, 5, n_tile, 0, 1);\n            }\n")]
k = k.replace(old_store, "")
# wg0 waits for its stores at the end too
sub("        if (lead)\n            pt::tma_store_wait_all();\n", "        if (lead)\n            pt::tma_store_wait_all();\n")
i0 = k.index("    if (cw == 0) {")
i1 = k.index("    if (cw == 1) {")
seg = k[i0:i1]
seg = seg.replace("#ifdef PT_TRACE\n        tracer.end();\n#endif\n    }\n", "        if (lead)\n            pt::tma_store_wait_all();\n#ifdef PT_TRACE\n        tracer.end();\n#endif\n    }\n", 1)
k = k[:i0] + seg + k[i1:]
if mode == "alt":
    sub("wg_iters(g3, 0);", "wg_iters(g3, 0 ^ (n_tile & 1));")
    sub("wg_iters(g3, 1);", "wg_iters(g3, 1 ^ (n_tile & 1));")
    for w in (0, 1):
        k = k.replace(f"+ {w} * 64 + warp * 16 + lane / 4;", f"+ ({w} ^ (n_tile & 1)) * 64 + warp * 16 + lane / 4;")
        k = k.replace(f"smem + OFF_PA + {w} * 64 * 128", f"smem + OFF_PA + ({w} ^ (n_tile & 1)) * 64 * 128")
        k = k.replace(f"g3 * BM + {w} * 64 + warp * 16, i * BK", f"g3 * BM + ({w} ^ (n_tile & 1)) * 64 + warp * 16, i * BK")
        k = k.replace(f"{w} * 64 + warp * 16, X_ATOM", f"({w} ^ (n_tile & 1)) * 64 + warp * 16, X_ATOM")
open(d + "/kernel.cu", "w").write(k)
l = open(d + "/launch.c").read()
assert l.count("const cuuint32_t box[5] = {64, 1, 128, 1, 1};") == 1
l = l.replace("const cuuint32_t box[5] = {64, 1, 128, 1, 1};", "const cuuint32_t box[5] = {64, 1, 64, 1, 1};")
open(d + "/launch.c", "w").write(l)
print(d, mode, "ok", k.count("n_tile & 1)) * 64"))
