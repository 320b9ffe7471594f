# ssd-exp-make.py BUNDLE NAME (session 35): .dev/exp/NAME-{v0,nostore,noconv,neither}, copies of a
# ChunkState bundle with the states' TMA store and/or the convert removed (bench/next/ssd-exp-round.sh).
import os, re, shutil, sys
src = sys.argv[1]; name = sys.argv[2]
k = open(os.path.join(src, "kernel.cu")).read()
def conv_off(s):
    return re.sub(r"pt::store_rows_sw128<out_t, BN, C_CHUNK>\(acc, smem \+ OFF_C, WGS \* BM \* 128,\s*\n\s*[^;]*;", "/* convert removed */", s)
def store_off(s):
    return re.sub(r"pt::tma_store_5d\(&tm_c[^;]*;", "/* store removed */", s)
vars_ = {"v0": k, "nostore": store_off(k), "noconv": conv_off(k), "neither": store_off(conv_off(k))}
for v, text in vars_.items():
    d = f".dev/exp/{name}-{v}"
    shutil.copytree(src, d)
    open(os.path.join(d, "kernel.cu"), "w").write(text)
    assert v == "v0" or text != k, v
