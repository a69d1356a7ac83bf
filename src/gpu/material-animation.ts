import type { MaterialAnimation } from '../anim/material-tracks.ts';
import {
  MATERIAL_ANIM_FLOATS, MaterialAnimOffset, TEXTURE_SLOT_COUNT, UV_TRANSFORM_FLOATS, UvTransformOffset,
} from '../gltf/extensions/khr-animation-pointer.ts';
import type { Material } from '../gltf/model.ts';
import type { GpuMaterial } from './gpu-model.ts';
import { MATERIAL_UNIFORMS_SIZE, MaterialUniformsOffset, packMaterialUniforms } from './material-uniforms.ts';

const MATERIAL_UNIFORMS_FLOATS = MATERIAL_UNIFORMS_SIZE / 4;

/** UV matrix offsets in the uniforms, in TextureSlot order. */
const UV_MATRIX_OFFSETS = [
  MaterialUniformsOffset.BASE_COLOR_UV_TRANSFORM, MaterialUniformsOffset.METALLIC_ROUGHNESS_UV_TRANSFORM,
  MaterialUniformsOffset.NORMAL_UV_TRANSFORM, MaterialUniformsOffset.OCCLUSION_UV_TRANSFORM, MaterialUniformsOffset.EMISSIVE_UV_TRANSFORM,
] as const;

/**
 * Writes KHR_animation_pointer material values (src/anim/material-tracks.ts) into the
 * uniform buffers of the animated materials (made with COPY_DST for this by gpu-model.ts).
 * Made per model only when a clip animates a material, so other models' frames keep their
 * writeBuffers; a frame writes only when the values changed since the last write, one
 * writeBuffer per animated material, from uniforms packed once at creation.
 * Material uniforms are per model, not per instance: every instance of a frame draws the
 * first instance's material values (three.js's clones share their materials likewise).
 */
export class MaterialUniformAnimator {
  private readonly staging: Float32Array;
  private readonly buffers: GPUBuffer[];
  private readonly strengths: Float32Array;
  private written = -1;
  private source: MaterialAnimation | undefined;

  constructor(materials: readonly Material[], gpuMaterials: readonly GpuMaterial[], animated: Int32Array) {
    const floats = MATERIAL_UNIFORMS_FLOATS;
    this.staging = new Float32Array(animated.length * floats);
    this.strengths = new Float32Array(animated.length);
    this.buffers = [];
    animated.forEach((m, i) => {
      this.staging.set(new Float32Array(packMaterialUniforms(materials[m])), i * floats);
      this.strengths[i] = materials[m].emissiveStrength ?? 1;
      this.buffers.push(gpuMaterials[m].uniformBuffer);
    });
  }

  /** Uploads `animation`'s values when they changed since the last call (allocation-free). */
  write(queue: GPUQueue, animation: MaterialAnimation): void {
    if (animation === this.source && animation.version === this.written) return;
    this.source = animation;
    this.written = animation.version;
    const values = animation.values;
    const staging = this.staging;
    for (let i = 0; i < this.buffers.length; i++) {
      const v = i * MATERIAL_ANIM_FLOATS;
      const u = i * MATERIAL_UNIFORMS_FLOATS;
      packAnimatedValues(values, v, this.strengths[i], staging, u);
      queue.writeBuffer(this.buffers[i], 0, staging.buffer, u * 4, MATERIAL_UNIFORMS_FLOATS * 4);
    }
  }
}

/**
 * One material's animated values (`values` at `v`, the MaterialAnimOffset layout) into its
 * uniforms (`out` at float `u`): factors as they are, emissive × strength, and each slot's
 * UV matrix T(offset) · R(rotation) · S(scale) as `uvTransformMatrix` builds it.
 */
export function packAnimatedValues(values: Float32Array, v: number, emissiveStrength: number, out: Float32Array, u: number): void {
  const O = MaterialUniformsOffset;
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
