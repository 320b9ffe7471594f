#!/usr/bin/env python3
"""defer_lowbit.py BUNDLE — edits a generated low-bit GEMM (rows dequantised in registers) so
that each warp hands Wq's and the scales' stages of k block i back once the wgmma groups that
read the fragments made from them have completed (the next k block's second group, or the end
of the loop), instead of right after its reads behind a proxy fence: the deferral that
codegen/ir/pass_step.c makes for Mamba2, tried here by hand to compare the two costs. Needs
more than one group per k block and rings of at least two stages (the s41 picks: 4 groups, 4
stages)."""
import sys

path = sys.argv[1] + "/kernel.cu"
k = open(path).read()
fenced = ("                    pt::fence_proxy_async();  // the loads have returned before the stages go back\n"
          "                    __syncwarp();\n"
          "                    if (lane == 0) {\n"
          "                        pt::mbar_arrive(&empty_bq[sq]);\n"
          "                        pt::mbar_arrive(&empty_bs[ss]);\n"
          "                    }\n")
back = ("__syncwarp();\n"
        "{0}if (lane == 0) {{\n"
        "{0}    pt::mbar_arrive(&empty_bq[(cnt_bq - 1) % STAGES_BQ]);\n"
        "{0}    pt::mbar_arrive(&empty_bs[(cnt_bs - 1) % STAGES_BS]);\n"
        "{0}}}\n")
late = "                if (g == 1 && i > 0) {  // the previous k block's groups are all done\n"
end = "        pt::wgmma_wait<0>();\n        if (lead && n_iter > 0) {\n"
for s in (fenced, late, end):
    if k.count(s) != 1:
        sys.exit("defer_lowbit.py: %s: expected one %r" % (path, s[:60]))
k = k.replace(fenced, "")
k = k.replace(late, late + "                    " + back.format("                    "))
k = k.replace(end, "        pt::wgmma_wait<0>();\n        if (n_iter > 0) {\n            "
              + back.format("            ") + "        }\n        if (lead && n_iter > 0) {\n")
open(path, "w").write(k)
