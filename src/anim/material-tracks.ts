import {
  MATERIAL_ANIM_FLOATS, MaterialAnimOffset, MTOON_TEXTURE_SLOT_COUNT, TEXTURE_SLOT_COUNT, UV_TRANSFORM_FLOATS, UvTransformOffset,
} from '../gltf/extensions/khr-animation-pointer.ts';
import { DEFAULT_IOR } from '../gltf/extensions/khr-materials-ior.ts';
import type { Material, Model, TextureInfo } from '../gltf/model.ts';
import { hasMToonUvAnimation } from '../gltf/mtoon-model.ts';
import { findKey, sampleVector } from './sample.ts';

/**
 * The materials whose values change per frame, ascending: those a clip animates
 * (KHR_animation_pointer material tracks), those a VRM expression binds (colour and
 * texture-transform binds, applied by src/anim/vrm/expressions.ts) and MToon materials with
 * UV animation (their time, MaterialAnimation.uvAnimationTime).
 */
export function animatedMaterials(model: Model): number[] {
  const set = new Set<number>();
  model.materials.forEach((m, i) => { if (m.mtoon && hasMToonUvAnimation(m.mtoon)) set.add(i); });
  for (const clip of model.animations) for (const t of clip.materialTracks ?? []) set.add(t.material);
  for (const e of model.vrm?.expressions ?? []) {
    for (const b of e.materialColorBinds) set.add(b.material);
    for (const b of e.textureTransformBinds) set.add(b.material);
  }
  return [...set].sort((a, b) => a - b);
}

/** Something that rewrites animated material values after the clips are sampled (the VRM expressions). */
export interface MaterialOverlay {
  /** Writes over `values` (MATERIAL_ANIM_FLOATS per animated material, blocks in `MaterialAnimation.materials` order). */
  apply(values: Float32Array): void;
}

/** A material's texture slots in TextureSlot order. */
export function textureSlots(m: Material): readonly (TextureInfo | undefined)[] {
  return [m.baseColorTexture, m.metallicRoughnessTexture, m.normalTexture, m.occlusionTexture, m.emissiveTexture];
}

/**
 * The animated material values of one model instance: per animated material a block of
 * MATERIAL_ANIM_FLOATS floats (MaterialAnimOffset) holding the material's own values where no
 * track of the playing clip writes. `evaluate` samples the clip's material tracks (and blends
 * a crossfade's outgoing clip) without allocating; `version` counts the changes, so the
 * renderer uploads only then (src/gpu/model/material-animation.ts).
 */
export class MaterialAnimation {
  /** Animated material indices, ascending; block i of `values` belongs to `materials[i]`. */
  readonly materials: Int32Array;
  /** The values of the last `evaluate`. */
  readonly values: Float32Array;
  /** Incremented by `evaluate` whenever `values` changed. */
  version = 0;
  /**
   * What `evaluate` samples, set by the caller first (fields, not arguments: V8 boxes a double
   * passed to a call it does not inline): `clip` (-1: the materials' own values) at `time`,
   * blended during a crossfade with `fromClip` (-1: none) at `fromTime`, `clip` weighing `weight`.
   */
  clip = -1;
  time = 0;
  fromClip = -1;
  fromTime = 0;
  weight = 1;

  /** Applied over the sampled values on every `evaluate` and `publish`. */
  overlay: MaterialOverlay | undefined;
  /**
   * Seconds of MToon UV animation (VRMC_materials_mtoon scroll and rotation speeds multiply
   * it), written into every block on `evaluate`. Wall time: the player adds each frame's dt,
   * playing or paused, as three-vrm's `vrm.update(delta)` does.
   */
  uvAnimationTime = 0;
  /** Whether some material's UVs move (MToon UV animation): frames are due even while the clip is paused. */
  readonly uvAnimated: boolean;

  private readonly rest: Float32Array;
  /** The clips' values of the last `evaluate`, before the overlay. */
  private readonly sampled: Float32Array;
  private readonly next: Float32Array;
  private readonly from: Float32Array;
  /** Block index by material index, -1 when not animated. */
  private readonly blockOf: Int32Array;
  /** Per clip, the last key of each of its material tracks (search hints). */
  private readonly hints: Int32Array[];
  /** The time `sampleVector` reads. */
  private readonly at = { time: 0 };

  constructor(readonly model: Model) {
    const materials = animatedMaterials(model);
    this.materials = Int32Array.from(materials);
    this.blockOf = new Int32Array(model.materials.length).fill(-1);
    this.rest = new Float32Array(materials.length * MATERIAL_ANIM_FLOATS);
    materials.forEach((m, i) => {
      this.blockOf[m] = i;
      restValues(model.materials[m], this.rest, i * MATERIAL_ANIM_FLOATS);
    });
    this.values = this.rest.slice();
    this.sampled = this.rest.slice();
    this.next = this.rest.slice();
    this.from = this.rest.slice();
    this.hints = model.animations.map((c) => new Int32Array(c.materialTracks?.length ?? 0));
    this.uvAnimated = materials.some((m) => { const t = model.materials[m].mtoon; return t !== undefined && hasMToonUvAnimation(t); });
  }

  /** Samples what `clip` … `weight` say into `values` (a crossfade lerps, as the pose blends). Allocates nothing. */
  evaluate(): void {
    const sampled = this.sampled;
    const weight = this.weight;
    this.at.time = this.time;
    this.sample(this.clip, sampled);
    if (this.fromClip >= 0 && weight < 1) {
      const from = this.from;
      this.at.time = this.fromTime;
      this.sample(this.fromClip, from);
      for (let i = 0; i < sampled.length; i++) sampled[i] = from[i] + (sampled[i] - from[i]) * weight;
    }
    for (let o = MaterialAnimOffset.MTOON_UV_ANIMATION_TIME; o < sampled.length; o += MATERIAL_ANIM_FLOATS) sampled[o] = this.uvAnimationTime;
    this.publish();
  }

  /** `values` from the last sampled clip values and the overlay as it is now (after the overlay's inputs changed). */
  publish(): void {
    const next = this.next;
    next.set(this.sampled);
    this.overlay?.apply(next);
    const values = this.values;
    let changed = false;
    for (let i = 0; i < next.length; i++) {
      if (values[i] !== next[i]) {
        values[i] = next[i];
        changed = true;
      }
    }
    if (changed) this.version++;
  }

  /** Where material `material`'s block starts in `values`, or -1 when it is not animated. */
  blockStart(material: number): number {
    const b = material >= 0 && material < this.blockOf.length ? this.blockOf[material] : -1;
    return b < 0 ? -1 : b * MATERIAL_ANIM_FLOATS;
  }

  /** The values of one material (index into `model.materials`), or undefined when no clip animates it. */
  block(material: number): Float32Array | undefined {
    const b = material >= 0 && material < this.blockOf.length ? this.blockOf[material] : -1;
    return b < 0 ? undefined : this.values.subarray(b * MATERIAL_ANIM_FLOATS, (b + 1) * MATERIAL_ANIM_FLOATS);
  }

  /** Clip `clip` at `this.at.time` into `out`. */
  private sample(clip: number, out: Float32Array): void {
    out.set(this.rest);
    if (clip < 0) return;
    const tracks = this.model.animations[clip].materialTracks;
    if (tracks === undefined) return;
    const hints = this.hints[clip];
    const at = this.at;
    for (let i = 0; i < tracks.length; i++) {
      const t = tracks[i];
      const k = findKey(t.sampler.times, at, hints[i]);
      hints[i] = k;
      sampleVector(t.sampler, k, at, out, this.blockOf[t.material] * MATERIAL_ANIM_FLOATS + t.offset);
    }
  }
}

/** A material's own values in the MaterialAnimOffset layout. */
export function restValues(m: Material, out: Float32Array, o: number): void {
  out.set(m.baseColorFactor, o + MaterialAnimOffset.BASE_COLOR_FACTOR);
  out.set(m.emissiveFactor, o + MaterialAnimOffset.EMISSIVE_FACTOR);
  out[o + MaterialAnimOffset.ALPHA_CUTOFF] = m.alphaCutoff;
  const slots = textureSlots(m);
  for (let s = 0; s < TEXTURE_SLOT_COUNT; s++) restUvTransform(slots[s], out, o + MaterialAnimOffset.UV_TRANSFORM + s * UV_TRANSFORM_FLOATS);
  restExtensionValues(m, out, o);
  restMToonValues(m, out, o);
}

/** The material extensions' values (the extensions' defaults where a material lacks one). */
function restExtensionValues(m: Material, out: Float32Array, o: number): void {
  const O = MaterialAnimOffset;
  out[o + O.EMISSIVE_STRENGTH] = m.emissiveStrength ?? 1;
  out[o + O.CLEARCOAT_FACTOR] = m.clearcoat?.factor ?? 0;
  out[o + O.CLEARCOAT_ROUGHNESS_FACTOR] = m.clearcoat?.roughnessFactor ?? 0;
  out[o + O.SPECULAR_FACTOR] = m.specular?.factor ?? 1;
  out.set(m.specular?.colorFactor ?? [1, 1, 1], o + O.SPECULAR_COLOR_FACTOR);
  out[o + O.IOR] = m.ior ?? DEFAULT_IOR;
  out.set(m.sheen?.colorFactor ?? [0, 0, 0], o + O.SHEEN_COLOR_FACTOR);
  out[o + O.SHEEN_ROUGHNESS_FACTOR] = m.sheen?.roughnessFactor ?? 0;
  out[o + O.TRANSMISSION_FACTOR] = m.transmission?.factor ?? 0;
  out[o + O.THICKNESS_FACTOR] = m.volume?.thicknessFactor ?? 0;
  // 0 stands for infinity (no attenuation), as in the sample viewer: the values stay finite.
  const distance = m.volume?.attenuationDistance ?? Infinity;
  out[o + O.ATTENUATION_DISTANCE] = Number.isFinite(distance) ? distance : 0;
  out.set(m.volume?.attenuationColor ?? [1, 1, 1], o + O.ATTENUATION_COLOR);
  out[o + O.IRIDESCENCE_FACTOR] = m.iridescence?.factor ?? 0;
  out[o + O.IRIDESCENCE_IOR] = m.iridescence?.ior ?? 1.3;
  out[o + O.IRIDESCENCE_THICKNESS_MINIMUM] = m.iridescence?.thicknessMinimum ?? 100;
  out[o + O.IRIDESCENCE_THICKNESS_MAXIMUM] = m.iridescence?.thicknessMaximum ?? 400;
  out[o + O.ANISOTROPY_STRENGTH] = m.anisotropy?.strength ?? 0;
  out[o + O.ANISOTROPY_ROTATION] = m.anisotropy?.rotation ?? 0;
  out[o + O.DISPERSION] = m.dispersion ?? 0;
  out[o + O.DIFFUSE_TRANSMISSION_FACTOR] = m.diffuseTransmission?.factor ?? 0;
  out.set(m.diffuseTransmission?.colorFactor ?? [1, 1, 1], o + O.DIFFUSE_TRANSMISSION_COLOR_FACTOR);
}

/** A material's MToon values (nothing without MToon). */
function restMToonValues(m: Material, out: Float32Array, o: number): void {
  const t = m.mtoon;
  if (!t) return;
  out.set(t.shadeColorFactor, o + MaterialAnimOffset.MTOON_SHADE_COLOR);
  out.set(t.matcapFactor, o + MaterialAnimOffset.MTOON_MATCAP_FACTOR);
  out.set(t.parametricRimColorFactor, o + MaterialAnimOffset.MTOON_RIM_COLOR);
  out.set(t.outlineColorFactor, o + MaterialAnimOffset.MTOON_OUTLINE_COLOR);
  const mtoonSlots = mtoonTextureSlots(m);
  for (let s = 0; s < MTOON_TEXTURE_SLOT_COUNT; s++) restUvTransform(mtoonSlots[s], out, o + MaterialAnimOffset.MTOON_UV_TRANSFORM + s * UV_TRANSFORM_FLOATS);
}

/** A material's MToon texture slots in MToonTextureSlot order (all undefined without MToon). */
export function mtoonTextureSlots(m: Material): readonly (TextureInfo | undefined)[] {
  const t = m.mtoon;
  return [t?.shadeMultiplyTexture, t?.shadingShiftTexture, t?.matcapTexture, t?.rimMultiplyTexture, t?.outlineWidthMultiplyTexture, t?.uvAnimationMaskTexture];
}

/** A slot's KHR_texture_transform (the identity without one) at `at`, in the UvTransformOffset layout. */
function restUvTransform(info: TextureInfo | undefined, out: Float32Array, at: number): void {
  const t = info?.transform;
  out.set(t ? t.offset : [0, 0], at + UvTransformOffset.OFFSET);
  out[at + UvTransformOffset.ROTATION] = t ? t.rotation : 0;
  out.set(t ? t.scale : [1, 1], at + UvTransformOffset.SCALE);
}
