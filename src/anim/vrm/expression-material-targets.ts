/**
 * Which material values a VRM expression bind moves, as three-vrm does per material kind.
 * An MToon material (Material.mtoon): `color` the lit colour (RGB and alpha), `emissionColor`
 * the emissive factor, `shadeColor`, `matcapColor`, `rimColor` and `outlineColor` their MToon
 * factors, and a texture-transform bind the UV offset and scale of the base colour, normal,
 * emissive, shade multiply, rim multiply, outline width and UV animation mask textures. A glTF
 * material (drawn as its fallback): `color` the base colour, `emissionColor` the emissive
 * factor (not on unlit materials), a texture-transform bind the base colour, metallic-roughness,
 * normal and emissive textures (the base colour's only, unlit); the MToon colour types move nothing.
 */
import { MaterialAnimOffset, MToonTextureSlot, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../gltf/extensions/khr-animation-pointer.ts';
import type { Model } from '../../gltf/model.ts';
import type { VrmMaterialColorBind, VrmTextureTransformBind } from '../../gltf/vrm-model.ts';
import type { MaterialAnimation } from '../material-tracks.ts';

/** One float of MaterialAnimation.values and the value it has at expression weight 1. */
export interface MaterialBindTarget {
  readonly index: number;
  readonly value: number;
}

export function colorBindTargets(model: Model, materials: MaterialAnimation, bind: VrmMaterialColorBind): MaterialBindTarget[] {
  const start = materials.blockStart(bind.material);
  if (start < 0) return [];
  const material = model.materials[bind.material];
  const unlit = material.shading === 'unlit' && !material.mtoon;
  const v = bind.targetValue;
  const rgb = (offset: number): MaterialBindTarget[] => [0, 1, 2].map((c) => ({ index: start + offset + c, value: v[c] }));
  if (bind.type === 'color') {
    const o = start + MaterialAnimOffset.BASE_COLOR_FACTOR;
    return [0, 1, 2, 3].map((c) => ({ index: o + c, value: v[c] }));
  }
  if (bind.type === 'emissionColor') return unlit ? [] : rgb(MaterialAnimOffset.EMISSIVE_FACTOR);
  if (!material.mtoon) return [];
  switch (bind.type) {
    case 'shadeColor': return rgb(MaterialAnimOffset.MTOON_SHADE_COLOR);
    case 'matcapColor': return rgb(MaterialAnimOffset.MTOON_MATCAP_FACTOR);
    case 'rimColor': return rgb(MaterialAnimOffset.MTOON_RIM_COLOR);
    case 'outlineColor': return rgb(MaterialAnimOffset.MTOON_OUTLINE_COLOR);
  }
}

export function textureBindTargets(model: Model, materials: MaterialAnimation, bind: VrmTextureTransformBind): MaterialBindTarget[] {
  const start = materials.blockStart(bind.material);
  if (start < 0) return [];
  const material = model.materials[bind.material];
  const M = MToonTextureSlot;
  const offsets = material.mtoon
    ? [
      ...[TextureSlot.BASE_COLOR, TextureSlot.NORMAL, TextureSlot.EMISSIVE].map((slot) => MaterialAnimOffset.UV_TRANSFORM + slot * UV_TRANSFORM_FLOATS),
      ...[M.SHADE_MULTIPLY, M.RIM_MULTIPLY, M.OUTLINE_WIDTH_MULTIPLY, M.UV_ANIMATION_MASK].map((slot) => MaterialAnimOffset.MTOON_UV_TRANSFORM + slot * UV_TRANSFORM_FLOATS),
    ]
    : (material.shading === 'unlit' ? [TextureSlot.BASE_COLOR] : [TextureSlot.BASE_COLOR, TextureSlot.METALLIC_ROUGHNESS, TextureSlot.NORMAL, TextureSlot.EMISSIVE])
      .map((slot) => MaterialAnimOffset.UV_TRANSFORM + slot * UV_TRANSFORM_FLOATS);
  return offsets.flatMap((offset) => {
    const o = start + offset;
    return [
      { index: o + UvTransformOffset.OFFSET, value: bind.offset[0] },
      { index: o + UvTransformOffset.OFFSET + 1, value: bind.offset[1] },
      { index: o + UvTransformOffset.SCALE, value: bind.scale[0] },
      { index: o + UvTransformOffset.SCALE + 1, value: bind.scale[1] },
    ];
  });
}
