/**
 * The device limits that decide how a model is allocated, and what happens when a model
 * exceeds them (issue #7): never a WebGPU validation error, always either a fallback or
 * a GpuLimitError that says what was too big, by how much, and what to do.
 *
 *   palettes + draw records   beyond maxStorageBufferBindingSize / maxBufferSize: the
 *                             renderer draws the instances in chunks that fit (renderer.ts)
 *   vertex buffers            beyond maxVertexBuffers: the skinning attributes are packed
 *                             into one interleaved buffer (model/upload.ts); refused if even
 *                             that does not fit
 *   vertex/index/morph data   beyond maxBufferSize (maxStorageBufferBindingSize for the
 *                             morph deltas): refused
 *   textures                  beyond maxTextureDimension2D: downscaled on upload, aspect
 *                             kept, with a warning (textures.ts)
 *
 * `RendererOptions.limits` lowers them below the device's (a memory budget, and how the
 * tests drive every fallback on a device whose real limits are far larger).
 */

/** The limits allocation depends on. */
export interface AllocationLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxTextureDimension2D: number;
  readonly maxVertexBuffers: number;
}

/** A model (or a frame's instances) exceeds a device limit and there is no fallback. */
export class GpuLimitError extends Error {
  override readonly name = 'GpuLimitError';
}

/** The device's limits, each lowered to `overrides` where that is smaller. */
export function allocationLimits(device: GPUDevice, overrides: Partial<AllocationLimits> = {}): AllocationLimits {
  const l = device.limits;
  const pick = (name: keyof AllocationLimits): number => Math.min(l[name], overrides[name] ?? Infinity);
  return {
    maxStorageBufferBindingSize: pick('maxStorageBufferBindingSize'),
    maxBufferSize: pick('maxBufferSize'),
    maxTextureDimension2D: pick('maxTextureDimension2D'),
    maxVertexBuffers: pick('maxVertexBuffers'),
  };
}

/** Largest storage buffer one binding can use: both limits apply. */
export function maxStorageBytes(limits: AllocationLimits): number {
  return Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
}

/** Throws GpuLimitError when a buffer of `bytes` cannot be created. */
export function checkBufferSize(limits: AllocationLimits, bytes: number, what: string): void {
  if (bytes > limits.maxBufferSize) {
    throw new GpuLimitError(`${what}: ${bytes} bytes exceed the device's maxBufferSize (${limits.maxBufferSize}); split the mesh into smaller primitives`);
  }
}

/**
 * The most instances whose per-instance storage (each array's bytes per instance) fits one
 * storage binding; at least one, else GpuLimitError.
 */
export function instancesPerBinding(limits: AllocationLimits, bytesPerInstance: readonly number[], what: string): number {
  const max = maxStorageBytes(limits);
  let per = 0;
  for (const b of bytesPerInstance) per = Math.max(per, b);
  if (per === 0) return Number.MAX_SAFE_INTEGER;
  if (per > max) {
    throw new GpuLimitError(`${what}: one instance needs ${per} bytes of storage (joint palettes or draw records), more than one binding may hold on this device (maxStorageBufferBindingSize/maxBufferSize ${max})`);
  }
  return Math.floor(max / per);
}

/** The size of an image scaled down (aspect kept, each side ≥ 1) to fit `maxDimension`; itself if it fits. */
export function fitDimensions(width: number, height: number, maxDimension: number): { width: number; height: number } {
  if (width <= maxDimension && height <= maxDimension) return { width, height };
  const scale = maxDimension / Math.max(width, height);
  return {
    width: Math.max(1, Math.min(maxDimension, Math.round(width * scale))),
    height: Math.max(1, Math.min(maxDimension, Math.round(height * scale))),
  };
}
