#!/usr/bin/env python3
"""png_check.py — check that a PNG decodes and is not blank (standard library only).

usage: png_check.py FILE.png [MIN_W MIN_H]
Decodes 8-bit RGB/RGBA (non-interlaced) PNGs: chunks, CRCs, zlib, scanline filters. Exit 0 and
print "WxH, N distinct colours, variance V" when the image has pixel variance > 0 and at least
MIN_W x MIN_H pixels; exit 1 with the reason otherwise."""
import struct
import sys
import zlib


def fail(msg):
    print(f"png_check: {sys.argv[1]}: {msg}")
    sys.exit(1)


def main():
    if len(sys.argv) not in (2, 4):
        print(__doc__)
        sys.exit(2)
    min_w, min_h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) == 4 else (1, 1)
    try:
        data = open(sys.argv[1], "rb").read()
    except OSError as e:
        fail(str(e))
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG (bad signature)")
    pos, idat, hdr = 8, b"", None
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            fail("truncated chunk")
        if zlib.crc32(ctype + body) & 0xffffffff != struct.unpack(">I", crc)[0]:
            fail(f"bad CRC in {ctype!r}")
        if ctype == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if not hdr:
        fail("no IHDR")
    w, h, depth, colour, _, _, interlace = hdr
    if depth != 8 or colour not in (2, 6) or interlace:
        fail(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        fail("image data has the wrong size")
    prev = bytearray(stride)
    pixels = bytearray()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
            elif f != 0:
                fail(f"bad filter type {f}")
        pixels += line
        prev = line
    lum = [pixels[i] * 3 + pixels[i + 1] * 6 + pixels[i + 2] for i in range(0, len(pixels), bpp)]
    mean = sum(lum) / len(lum)
    var = sum((v - mean) ** 2 for v in lum[::7]) / len(lum[::7])
    colours = len({bytes(pixels[i:i + 3]) for i in range(0, len(pixels), bpp * 13)})
    if w < min_w or h < min_h:
        fail(f"{w}x{h} is smaller than {min_w}x{min_h}")
    if var <= 0:
        fail(f"{w}x{h} is blank (one colour)")
    print(f"{w}x{h}, {colours} distinct colours (sampled), variance {var:.0f}")


main()
