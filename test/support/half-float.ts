/**
 * binary16 for tests: decoding independently of src/gpu/environment/equirect.ts's toHalf, and
 * reading the texels of a 16-bit float texture back from the device.
 */

/** binary16 bits → number. */
export function fromHalf(h: number): number {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Texels of one level and layer of a 16-bit float texture with `channels` channels, as numbers, row by row. */
export async function readHalfTexels(gpu: GPUDevice, texture: GPUTexture, level: number, layer: number, channels: number): Promise<Float32Array> {
  const w = Math.max(1, texture.width >> level), h = Math.max(1, texture.height >> level);
  const bytesPerRow = Math.ceil((w * channels * 2) / 256) * 256;
  const buffer = gpu.createBuffer({ label: 'test half readback', size: bytesPerRow * h, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = gpu.createCommandEncoder({ label: 'test half readback' });
  encoder.copyTextureToBuffer({ texture, mipLevel: level, origin: [0, 0, layer] }, { buffer, bytesPerRow }, [w, h]);
  gpu.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const raw = new Uint16Array(buffer.getMappedRange());
  const out = new Float32Array(w * h * channels);
  for (let y = 0; y < h; y++) for (let i = 0; i < w * channels; i++) out[y * w * channels + i] = fromHalf(raw[(y * bytesPerRow) / 2 + i]);
  buffer.destroy();
  return out;
}
