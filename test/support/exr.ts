/**
 * A minimal OpenEXR writer for tests: one part, scanlines, no compression, FLOAT (or HALF)
 * B, G, R channels (alphabetical, as the format requires), increasing Y. Enough to make
 * fixtures in code for the `.exr` environment decoder; `attributes` lets a test corrupt the
 * header.
 */

export interface ExrOptions {
  /** Channel pixel type: 2 FLOAT (default) or 1 HALF. */
  pixelType?: 1 | 2;
  /** Overrides the dataWindow written in the header (xMin, yMin, xMax, yMax). */
  dataWindow?: [number, number, number, number];
}

function halfBits(v: number): number {
  const f = new Float32Array([v]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = ((u >>> 23) & 0xff) - 127 + 15, mant = u & 0x7fffff;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  return sign | (exp << 10) | (mant >>> 13);
}

/** `rgb` is linear, top row first, 3 floats a pixel. */
export function writeExr(width: number, height: number, rgb: Float32Array, options: ExrOptions = {}): Uint8Array {
  const pixelType = options.pixelType ?? 2;
  const bytesPer = pixelType === 2 ? 4 : 2;
  const parts: number[] = [];
  const u8 = (...v: number[]) => parts.push(...v);
  const i32 = (v: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setInt32(0, v, true); u8(...b); };
  const f32 = (v: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); u8(...b); };
  const str = (s: string) => { for (const ch of s) u8(ch.charCodeAt(0)); u8(0); };
  const attribute = (name: string, type: string, size: number, write: () => void) => { str(name); str(type); i32(size); write(); };
  u8(0x76, 0x2f, 0x31, 0x01);
  i32(2);
  const channels = ['B', 'G', 'R'];
  attribute('channels', 'chlist', channels.length * 18 + 1, () => {
    for (const c of channels) { str(c); i32(pixelType); u8(0, 0, 0, 0); i32(1); i32(1); }
    u8(0);
  });
  attribute('compression', 'compression', 1, () => u8(0));
  const [x0, y0, x1, y1] = options.dataWindow ?? [0, 0, width - 1, height - 1];
  attribute('dataWindow', 'box2i', 16, () => { i32(x0); i32(y0); i32(x1); i32(y1); });
  attribute('displayWindow', 'box2i', 16, () => { i32(0); i32(0); i32(width - 1); i32(height - 1); });
  attribute('lineOrder', 'lineOrder', 1, () => u8(0));
  attribute('pixelAspectRatio', 'float', 4, () => f32(1));
  attribute('screenWindowCenter', 'v2f', 8, () => { f32(0); f32(0); });
  attribute('screenWindowWidth', 'float', 4, () => f32(1));
  u8(0);
  const lineBytes = width * channels.length * bytesPer;
  const tableStart = parts.length, blocksStart = tableStart + height * 8;
  for (let y = 0; y < height; y++) {
    const offset = blocksStart + y * (8 + lineBytes);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(offset), true);
    u8(...b);
  }
  for (let y = 0; y < height; y++) {
    i32(y);
    i32(lineBytes);
    for (const c of [2, 1, 0]) {
      for (let x = 0; x < width; x++) {
        const v = rgb[(y * width + x) * 3 + c];
        if (pixelType === 2) f32(v);
        else { const h = halfBits(v); u8(h & 0xff, h >>> 8); }
      }
    }
  }
  return Uint8Array.from(parts);
}
