# Hand edit of the ChunkScan pick's bundle (h 2, wg 2 on heads, store on wg1): each consumer
# warpgroup stores its own head's rows (a TMA box of one head), so the two warpgroups no longer
# meet at every tile's end (c_full / c_empty). Usage: ownstore.py BUNDLE_DIR (edits in place)
import re, sys
d = sys.argv[1]
k = open(d + '/kernel.cu').read()
l = open(d + '/launch.c').read()
def sub(s, pat, rep, n):
    s2, c = re.subn(pat, rep, s)
    assert c == n, (pat, c)
    return s2
l = sub(l, r'box\[5\] = \{64, 64, 2, 1, 1\};(\n        r = map_tile\(&tm_c,)', r'box[5] = {64, 64, 1, 1, 1};\1', 1)
# the store's coordinates, from wg1's store
m = re.search(r'pt::tma_store_5d\(&tm_c, smem \+ OFF_C \+ a \* 16384, a \* 64, ([^,]+), ([^,]+), ([^,]+), ([^)]+)\);', k)
assert m, 'store'
l_c, h_c, c_c, b_c = m.groups()
def own(w, bar):
    return ('            if (n_tile > 0) {  // this warpgroup\'s last store read its rows\n'
            '                if (lead)\n                    pt::tma_store_wait_read();\n'
            '                pt::named_sync(%d, 128);\n            }\n' % bar)
def store(w, bar):
    return ('            pt::fence_proxy_async();  // the TMA store reads what these threads wrote\n'
            '            pt::named_sync(%d, 128);\n'
            '            if (lead) {  // this warpgroup\'s head\n'
            '                pt::tma_store_5d(&tm_c, smem + OFF_C + %d * 8192, 0, %s, %s + %d, %s, %s);\n'
            '                pt::tma_store_commit();\n            }\n' % (bar, w, l_c, h_c, w, c_c, b_c))
# wg0: its wait for the staging tile, its hand-over
k = sub(k, r'            if \(n_tile > 0\)\n                pt::mbar_wait\(c_empty, \(n_tile - 1\) & 1\);[^\n]*\n(            // add\.out\.wg0)', lambda m: own(0, 1) + m.group(1), 1)
k = sub(k, r'            pt::fence_proxy_async\(\);[^\n]*\n            pt::named_sync\(1, 128\);\n            if \(lead\)\n                pt::mbar_arrive\(c_full\);\n', store(0, 1), 1)
k = sub(k, r'(\n        pt::wgmma_wait<0>\(\);[^\n]*\n)?(#ifdef PT_TRACE\n        tracer\.end\(\);\n#endif\n    \}\n    if \(cw == 1\))',
        lambda m: '\n        if (lead)\n            pt::tma_store_wait_all();' + (m.group(1) or '\n') + m.group(2), 1)
# wg1
k = sub(k, r'            if \(n_tile > 0 && lead\) \{[^\n]*\n                pt::tma_store_wait_read\(\);\n                pt::mbar_arrive\(c_empty\);\n            \}\n            if \(n_tile > 0\)\n                pt::mbar_wait\(c_empty, \(n_tile - 1\) & 1\);[^\n]*\n', own(1, 2), 1)
k = sub(k, r'            pt::fence_proxy_async\(\);[^\n]*\n            pt::named_sync\(2, 128\);\n            if \(lead\)\n                pt::mbar_arrive\(c_full\);\n[^\n]*\n            pt::mbar_wait\(c_full, n_tile & 1\);\n            if \(lead\) \{\n(?:[^\n]*\n){6}            \}\n', store(1, 2), 1)
open(d + '/kernel.cu', 'w').write(k)
open(d + '/launch.c', 'w').write(l)
