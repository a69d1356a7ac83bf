/** WebGPU requires bytesPerRow of texture→buffer copies to be a multiple of this. */
export const COPY_BYTES_PER_ROW_ALIGNMENT = 256;

const BGRA_FORMATS: ReadonlySet<GPUTextureFormat> = new Set(['bgra8unorm', 'bgra8unorm-srgb']);
const RGBA_FORMATS: ReadonlySet<GPUTextureFormat> = new Set(['rgba8unorm', 'rgba8unorm-srgb']);

/**
 * Reads one mip level (default 0) of an 8-bit RGBA/BGRA texture back as tightly packed RGBA bytes, top row
 * first (BGRA is swizzled). The texture needs COPY_SRC usage. For tests, screenshots and
 * frame capture; not for the per-frame path.
 */
export async function readTexturePixels(device: GPUDevice, texture: GPUTexture, mipLevel = 0): Promise<Uint8Array> {
  const bgra = BGRA_FORMATS.has(texture.format);
  if (!bgra && !RGBA_FORMATS.has(texture.format)) throw new Error(`readTexturePixels: ${texture.format} is not an 8-bit RGBA/BGRA format`);
  const width = Math.max(1, texture.width >> mipLevel);
  const height = Math.max(1, texture.height >> mipLevel);
  const rowBytes = width * 4;
  const paddedRow = Math.ceil(rowBytes / COPY_BYTES_PER_ROW_ALIGNMENT) * COPY_BYTES_PER_ROW_ALIGNMENT;
  const buffer = device.createBuffer({
    label: `${texture.label} readback`,
    size: paddedRow * height,
    usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
  });
  const encoder = device.createCommandEncoder({ label: `${texture.label} readback` });
  encoder.copyTextureToBuffer({ texture, mipLevel }, { buffer, bytesPerRow: paddedRow, rowsPerImage: height }, [width, height]);
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const mapped = new Uint8Array(buffer.getMappedRange());
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) out.set(mapped.subarray(y * paddedRow, y * paddedRow + rowBytes), y * rowBytes);
  buffer.unmap();
  buffer.destroy();
  if (bgra) {
    for (let i = 0; i < out.length; i += 4) {
      const b = out[i];
      out[i] = out[i + 2];
      out[i + 2] = b;
    }
  }
  return out;
}

/** An offscreen colour target the Renderer can draw into and `readTexturePixels` can read. */
export function createOffscreenTarget(device: GPUDevice, width: number, height: number, format: GPUTextureFormat, label = 'offscreen target'): GPUTexture {
  return device.createTexture({
    label,
    size: [width, height],
    format,
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | GPUTextureUsage.TEXTURE_BINDING,
  });
}
