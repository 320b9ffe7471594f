"""fence1.py BUNDLE — a hand edit of a ChunkState bundle generated with the fenced release
(PT_EXPERIMENT_NO_DEFER=1): the three per-ring fence + arrive blocks of a consumer's loop step
(dA_cs, dt, x: every reader at offset 0) merged into one fence and three arrivals after the last
read (mul.xs), just before the step's wgmma."""
import re, sys
p = sys.argv[1] + "/kernel.cu"
s = open(p).read()
blk = re.compile(r"\n *pt::fence_proxy_async\(\);  // the loads have returned before the stage goes back\n"
                 r" *__syncwarp\(\);\n *if \(lane == 0\)\n *pt::mbar_arrive\(&empty_(\w+)\[s_\w+\]\);  // this warp read the stage")
n = len(blk.findall(s))
assert n == 6, n
s = blk.sub("", s)
def merged(m):
    ind = m.group(1)
    return (f"{ind}pt::fence_proxy_async();  // the step's ring loads have returned (merged release)\n"
            f"{ind}__syncwarp();\n{ind}if (lane == 0) {{\n"
            + "".join(f"{ind}    pt::mbar_arrive(&empty_{r}[({b}base + (uint32_t)(v + 0)) % STAGES_{R}]);\n"
                      for r, b, R in (("u3", "u3", "U3"), ("u2", "u2", "U2"), ("x", "x", "X")))
            + f"{ind}}}\n" + m.group(0))
s, k = re.subn(r"( *)\{   const int i = v \+ 0;  // mma\.states\.wg\d\n", merged, s)
assert k == 2, k
open(p, "w").write(s)
