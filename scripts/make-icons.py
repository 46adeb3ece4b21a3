#!/usr/bin/env python3
"""Draws the toolbar icon (a lens over two linked seeds) at 16/32/48/128 px, with no image library."""
import math, struct, zlib, os

def render(size):
    ss = 4  # supersampling for smooth edges
    n = size * ss
    px = [[(0, 0, 0, 0)] * size for _ in range(size)]
    acc = [[[0.0, 0.0, 0.0, 0.0] for _ in range(size)] for _ in range(size)]
    cx, cy, r_out, r_in = 0.42 * n, 0.42 * n, 0.34 * n, 0.24 * n
    blue, light, green = (31, 111, 235), (221, 244, 255), (26, 127, 55)
    for y in range(n):
        for x in range(n):
            fx, fy = x + 0.5, y + 0.5
            d = math.hypot(fx - cx, fy - cy)
            color = None
            # handle: a thick segment from the ring toward the bottom-right corner
            t = ((fx - cx) + (fy - cy)) / 2
            off = abs((fx - cx) - (fy - cy)) / math.sqrt(2)
            if t > r_out * 0.62 and t < 0.55 * n and off < 0.07 * n:
                color = blue
            if d <= r_out:
                color = blue if d >= r_in else light
                # two seeds inside the lens, linked
                for sx, sy in ((cx - 0.09 * n, cy + 0.04 * n), (cx + 0.09 * n, cy - 0.04 * n)):
                    if math.hypot(fx - sx, fy - sy) < 0.065 * n:
                        color = green
                if d < r_in and abs((fy - cy) + 0.44 * (fx - cx)) < 0.022 * n and abs(fx - cx) < 0.09 * n:
                    color = green
            if color:
                a = acc[y // ss][x // ss]
                a[0] += color[0]; a[1] += color[1]; a[2] += color[2]; a[3] += 1
    rows = []
    for y in range(size):
        row = b'\x00'
        for x in range(size):
            r, g, b, c = acc[y][x]
            if c:
                row += bytes((int(r / c), int(g / c), int(b / c), int(255 * c / (ss * ss))))
            else:
                row += b'\x00\x00\x00\x00'
        rows.append(row)
    raw = b''.join(rows)
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', size, size, 8, 6, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')

out = os.path.join(os.path.dirname(__file__), '..', 'public', 'icon')
os.makedirs(out, exist_ok=True)
for size in (16, 32, 48, 128):
    with open(os.path.join(out, f'{size}.png'), 'wb') as f:
        f.write(render(size))
print('icons written to', os.path.normpath(out))
