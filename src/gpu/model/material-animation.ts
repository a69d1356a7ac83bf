import { animatedMaterials, type MaterialAnimation } from '../../anim/material-tracks.ts';
import { MATERIAL_ANIM_FLOATS } from '../../gltf/extensions/khr-animation-pointer.ts';
import type { Material, Model } from '../../gltf/model.ts';
import { MATERIAL_UPLOADERS } from './material-uploaders.ts';
import type { MaterialPathName } from '../pipelines/material-path.ts';

/**
 * The uniforms of every material whose values change per frame (KHR_animation_pointer
 * tracks, VRM expression binds, MToon UV animation), in one buffer: `materials[i]`'s at
 * i × `stride` bytes (the largest uniform struct of their paths, rounded up to the device's
 * uniform offset alignment), so a frame rewrites them all with one writeBuffer. Other
 * materials keep a buffer of their own.
 */
export interface AnimatedMaterialUniforms {
  readonly buffer: GPUBuffer;
  readonly stride: number;
  /** Material indices, ascending (`animatedMaterials`: the blocks of MaterialAnimation.values). */
  readonly materials: Int32Array;
  /** The material path each is drawn with (its uniforms' layout). */
  readonly paths: readonly MaterialPathName[];
}

/**
 * The animated materials' uniforms, packed as at upload (each by its path, `pathOf`);
 * undefined when no material's values change per frame.
 */
export function createAnimatedMaterialUniforms(
  device: GPUDevice, model: Model, label: string, pathOf: (m: Material) => MaterialPathName,
): AnimatedMaterialUniforms | undefined {
  const materials = animatedMaterials(model);
  if (materials.length === 0) return undefined;
  const paths = materials.map((m) => pathOf(model.materials[m]));
  const align = device.limits.minUniformBufferOffsetAlignment;
  const size = Math.max(...paths.map((p) => MATERIAL_UPLOADERS[p].uniformsSize));
  const stride = Math.ceil(size / align) * align;
  const buffer = device.createBuffer({
    label: `${label} animated material uniforms`, size: stride * materials.length, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, mappedAtCreation: true,
  });
  const bytes = new Uint8Array(buffer.getMappedRange());
  materials.forEach((m, i) => bytes.set(new Uint8Array(MATERIAL_UPLOADERS[paths[i]].pack(model.materials[m])), i * stride));
  buffer.unmap();
  return { buffer, stride, materials: Int32Array.from(materials), paths };
}

/** Writes one material's animated values into its uniforms (MaterialUploader.packAnimated). */
type PackAnimated = (values: Float32Array, v: number, out: Float32Array, u: number) => void;

/**
 * Writes animated material values (src/anim/material-tracks.ts) into the animated materials'
 * uniforms. Made per model only when some material's values change per frame, so other
 * models' frames keep their writeBuffers; a frame writes only when the values changed since
 * the last write: one writeBuffer for all animated materials, from uniforms packed once at
 * creation. Material uniforms are per model, not per instance: every instance of a frame
 * draws the first instance's material values (three.js's clones share their materials likewise).
 */
export class MaterialUniformAnimator {
  private readonly staging: Float32Array;
  private readonly packers: readonly PackAnimated[];
  private written = -1;
  private source: MaterialAnimation | undefined;

  constructor(private readonly uniforms: AnimatedMaterialUniforms, materials: readonly Material[]) {
    const { stride } = uniforms;
    const animated = uniforms.materials;
    this.staging = new Float32Array(animated.length * stride / 4);
    this.packers = uniforms.paths.map((p) => MATERIAL_UPLOADERS[p].packAnimated);
    animated.forEach((m, i) => this.staging.set(new Float32Array(MATERIAL_UPLOADERS[uniforms.paths[i]].pack(materials[m])), i * stride / 4));
  }

  /** Uploads `animation`'s values when they changed since the last call (allocation-free); returns the bytes written. */
  write(queue: GPUQueue, animation: MaterialAnimation): number {
    if (animation === this.source && animation.version === this.written) return 0;
    this.source = animation;
    this.written = animation.version;
    const floatStride = this.uniforms.stride / 4;
    for (let i = 0; i < this.packers.length; i++) {
      this.packers[i](animation.values, i * MATERIAL_ANIM_FLOATS, this.staging, i * floatStride);
    }
    queue.writeBuffer(this.uniforms.buffer, 0, this.staging.buffer, 0, this.staging.byteLength);
    return this.staging.byteLength;
  }
}
