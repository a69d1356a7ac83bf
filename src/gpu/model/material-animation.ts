import { animatedMaterials, type MaterialAnimation } from '../../anim/material-tracks.ts';
import {
  MATERIAL_ANIM_FLOATS, MaterialAnimOffset, TEXTURE_SLOT_COUNT, UV_TRANSFORM_FLOATS, UvTransformOffset,
} from '../../gltf/extensions/khr-animation-pointer.ts';
import type { Material, Model } from '../../gltf/model.ts';
import { MATERIAL_UNIFORMS_SIZE, MaterialUniformsOffset, packMaterialUniforms } from '../layouts/material-uniforms.ts';


/** UV matrix offsets in the uniforms, in TextureSlot order. */
const UV_MATRIX_OFFSETS = [
  MaterialUniformsOffset.BASE_COLOR_UV_TRANSFORM, MaterialUniformsOffset.METALLIC_ROUGHNESS_UV_TRANSFORM,
  MaterialUniformsOffset.NORMAL_UV_TRANSFORM, MaterialUniformsOffset.OCCLUSION_UV_TRANSFORM, MaterialUniformsOffset.EMISSIVE_UV_TRANSFORM,
] as const;

/**
 * The uniforms of every material a clip animates (KHR_animation_pointer), in one buffer:
 * `materials[i]`'s at i × `stride` bytes (the device's uniform offset alignment), so a frame
 * rewrites them all with one writeBuffer. Other materials keep a buffer of their own.
 */
export interface AnimatedMaterialUniforms {
  readonly buffer: GPUBuffer;
  readonly stride: number;
  /** Material indices, ascending (`animatedMaterials`: the blocks of MaterialAnimation.values). */
  readonly materials: Int32Array;
}

/** The animated materials' uniforms, packed as at upload; undefined when no clip animates a material. */
export function createAnimatedMaterialUniforms(device: GPUDevice, model: Model, label: string): AnimatedMaterialUniforms | undefined {
  const materials = animatedMaterials(model);
  if (materials.length === 0) return undefined;
  const align = device.limits.minUniformBufferOffsetAlignment;
  const stride = Math.ceil(MATERIAL_UNIFORMS_SIZE / align) * align;
  const buffer = device.createBuffer({
    label: `${label} animated material uniforms`, size: stride * materials.length, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, mappedAtCreation: true,
  });
  const bytes = new Uint8Array(buffer.getMappedRange());
  materials.forEach((m, i) => bytes.set(new Uint8Array(packMaterialUniforms(model.materials[m])), i * stride));
  buffer.unmap();
  return { buffer, stride, materials: Int32Array.from(materials) };
}

/**
 * Writes KHR_animation_pointer material values (src/anim/material-tracks.ts) into the
 * animated materials' uniforms. Made per model only when a clip animates a material, so
 * other models' frames keep their writeBuffers; a frame writes only when the values changed
 * since the last write: one writeBuffer for all animated materials, from uniforms packed
 * once at creation. Material uniforms are per model, not per instance: every instance of a
 * frame draws the first instance's material values (three.js's clones share their materials likewise).
 */
export class MaterialUniformAnimator {
  private readonly staging: Float32Array;
  private written = -1;
  private source: MaterialAnimation | undefined;

  constructor(private readonly uniforms: AnimatedMaterialUniforms, materials: readonly Material[]) {
    const { stride } = uniforms;
    const animated = uniforms.materials;
    this.staging = new Float32Array(animated.length * stride / 4);
    animated.forEach((m, i) => this.staging.set(new Float32Array(packMaterialUniforms(materials[m])), i * stride / 4));
  }

  /** Uploads `animation`'s values when they changed since the last call (allocation-free); returns the bytes written. */
  write(queue: GPUQueue, animation: MaterialAnimation): number {
    if (animation === this.source && animation.version === this.written) return 0;
    this.source = animation;
    this.written = animation.version;
    const floatStride = this.uniforms.stride / 4;
    for (let i = 0; i < this.uniforms.materials.length; i++) {
      packAnimatedValues(animation.values, i * MATERIAL_ANIM_FLOATS, this.staging, i * floatStride);
    }
    queue.writeBuffer(this.uniforms.buffer, 0, this.staging.buffer, 0, this.staging.byteLength);
    return this.staging.byteLength;
  }
}

/**
 * One material's animated values (`values` at `v`, the MaterialAnimOffset layout) into its
 * uniforms (`out` at float `u`): factors as they are, emissive × its (animated) strength, and each slot's
 * UV matrix T(offset) · R(rotation) · S(scale) as `uvTransformMatrix` builds it.
 */
export function packAnimatedValues(values: Float32Array, v: number, out: Float32Array, u: number): void {
  const O = MaterialUniformsOffset;
  const emissiveStrength = values[v + MaterialAnimOffset.EMISSIVE_STRENGTH];
  for (let c = 0; c < 4; c++) out[u + O.BASE_COLOR_FACTOR / 4 + c] = values[v + MaterialAnimOffset.BASE_COLOR_FACTOR + c];
  for (let c = 0; c < 3; c++) out[u + O.EMISSIVE_FACTOR / 4 + c] = values[v + MaterialAnimOffset.EMISSIVE_FACTOR + c] * emissiveStrength;
  out[u + O.ALPHA_CUTOFF / 4] = values[v + MaterialAnimOffset.ALPHA_CUTOFF];
  for (let s = 0; s < TEXTURE_SLOT_COUNT; s++) {
    const t = v + MaterialAnimOffset.UV_TRANSFORM + s * UV_TRANSFORM_FLOATS;
    const rotation = values[t + UvTransformOffset.ROTATION];
    const sx = values[t + UvTransformOffset.SCALE], sy = values[t + UvTransformOffset.SCALE + 1];
    const cos = Math.cos(rotation), sin = Math.sin(rotation);
    const m = u + UV_MATRIX_OFFSETS[s] / 4;
    out[m] = cos * sx;
    out[m + 1] = 0 - sin * sx;
    out[m + 2] = sin * sy;
    out[m + 3] = cos * sy;
    out[m + 4] = values[t + UvTransformOffset.OFFSET];
    out[m + 5] = values[t + UvTransformOffset.OFFSET + 1];
  }
}
