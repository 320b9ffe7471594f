#!/usr/bin/env python3
"""tile_gaps.py TRACE [TRACE ...] — where a persistent attention kernel's time goes between and
within its tiles, from a profile's measured spans (`pipethreader-cli profile ... -o TRACE`, plain
or .xz). For each sampled CTA the tiles are taken in the order it ran them; per tile: its key
blocks (iterations), its compute span (first mma.S start to last normalize end) and the gap
before it (the previous tile's last normalize end to this tile's first mma.S start: the next
tile's Q and first K/V still loading). Prints the mean gap and, per iteration count, the mean
compute span. Times are the instrumented build's (its overhead is in the profile's text)."""
import collections
import json
import lzma
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def tiles_of(cta, names):
    """{tile: [(stask name, iteration, start, end)]} in the order the CTA started them."""
    by = collections.defaultdict(list)
    for s, _lane, t, i, a, b in cta["spans"]:
        by[t].append((names[s], i, a, b))
    return [by[t] for t in sorted(by, key=lambda t: min(x[2] for x in by[t]))]


def main():
    for path in sys.argv[1:]:
        d = load(path)
        names = d["stasks"]
        gaps, spans = [], collections.defaultdict(list)
        for cta in d["measured"]["ctas"]:
            prev_end = None
            for tile in tiles_of(cta, names):
                s = [x for x in tile if x[0].startswith("mma.S")]
                n = [x for x in tile if x[0].startswith("normalize")]
                if not s or not n:
                    continue  # a tile cut by the sample's iteration window
                first, last = min(x[2] for x in s), max(x[3] for x in n)
                if prev_end is not None:
                    gaps.append(first - prev_end)
                spans[max(x[1] for x in tile) + 1].append(last - first)
                prev_end = last
        print(f"{path}: {len(d['measured']['ctas'])} CTAs, "
              f"gap before a tile: mean {sum(gaps) / max(len(gaps), 1):.0f} ns over {len(gaps)} tiles")
        for it in sorted(spans):
            v = spans[it]
            print(f"  {it} iteration(s): {len(v)} tiles, compute span mean {sum(v) / len(v):.0f} ns, "
                  f"min {min(v):.0f}, max {max(v):.0f}")


if __name__ == "__main__":
    main()
