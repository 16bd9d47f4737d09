import { inflateSync } from 'node:zlib';
import { expect } from 'vitest';

// A small PNG reader (8-bit RGB / RGBA, non-interlaced): enough to check a share image's pixels.

export interface Png {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number, number];
}

export function decodePng(buf: Buffer): Png {
  expect([...buf.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect(data[8]).toBe(8);
      colorType = data[9]!;
      expect(data[12]).toBe(0);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  expect(bpp).toBeGreaterThan(0);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[y * stride + x - bpp]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp]! : 0;
      const p = a + b - c;
      const pr = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const v = line[x]!;
      out[y * stride + x] = (filter === 0 ? v : filter === 1 ? v + a : filter === 2 ? v + b : filter === 3 ? v + ((a + b) >> 1) : v + pr) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const i = y * stride + x * bpp;
      return [out[i]!, out[i + 1]!, out[i + 2]!, bpp === 4 ? out[i + 3]! : 255];
    },
  };
}

/** A box of an image in its own pixels. */
export interface PngRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

const luminance = ([r, g, b]: [number, number, number, number]) => 0.299 * r + 0.587 * g + 0.114 * b;

/**
 * How many steps between neighbouring pixels of `region` (across and down) exceed `fraction` of the
 * region's luminance range. A canvas drawn at half the image's scale and stretched into it has none
 * above about half: smoothing spreads each of its edges over two or more of the image's pixels. A
 * canvas drawn at the image's scale has many (the stems of its labels, its axis and grid lines).
 */
export function sharpSteps(png: Png, region: PngRegion, fraction: number): number {
  const lum: number[][] = [];
  for (let y = region.top; y < region.top + region.height; y++) {
    const row: number[] = [];
    for (let x = region.left; x < region.left + region.width; x++) row.push(luminance(png.pixel(x, y)));
    lum.push(row);
  }
  let [min, max] = [Infinity, -Infinity];
  for (const row of lum) for (const v of row) [min, max] = [Math.min(min, v), Math.max(max, v)];
  const range = max - min;
  let steps = 0;
  for (let y = 0; y < lum.length; y++)
    for (let x = 0; x < lum[y]!.length; x++) {
      const here = lum[y]![x]!;
      if (x + 1 < lum[y]!.length && Math.abs(lum[y]![x + 1]! - here) > fraction * range) steps++;
      if (y + 1 < lum.length && Math.abs(lum[y + 1]![x]! - here) > fraction * range) steps++;
    }
  return steps;
}
