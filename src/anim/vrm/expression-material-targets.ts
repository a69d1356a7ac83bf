/**
 * Which material values a VRM expression bind moves, for the material path a material is
 * drawn with. Today every VRM material is drawn as its glTF fallback, so, as three-vrm does
 * for three.js's glTF materials: `color` moves the base colour (RGB and alpha), `emissionColor`
 * the emissive factor (not on unlit materials), and a texture-transform bind the UV offset and
 * scale of the base colour, metallic-roughness, normal and emissive textures (the base colour's
 * only, unlit). The MToon colour types (`shadeColor`, `matcapColor`, `rimColor`,
 * `outlineColor`) have no value on these materials and move nothing; the MToon material path
 * adds its own values to the animated-material layout and answers them here.
 */
import { MaterialAnimOffset, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset } from '../../gltf/extensions/khr-animation-pointer.ts';
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
  const unlit = model.materials[bind.material].shading === 'unlit';
  const v = bind.targetValue;
  if (bind.type === 'color') {
    const o = start + MaterialAnimOffset.BASE_COLOR_FACTOR;
    return [0, 1, 2, 3].map((c) => ({ index: o + c, value: v[c] }));
  }
  if (bind.type === 'emissionColor' && !unlit) {
    const o = start + MaterialAnimOffset.EMISSIVE_FACTOR;
    return [0, 1, 2].map((c) => ({ index: o + c, value: v[c] }));
  }
  return [];
}

export function textureBindTargets(model: Model, materials: MaterialAnimation, bind: VrmTextureTransformBind): MaterialBindTarget[] {
  const start = materials.blockStart(bind.material);
  if (start < 0) return [];
  const slots = model.materials[bind.material].shading === 'unlit'
    ? [TextureSlot.BASE_COLOR]
    : [TextureSlot.BASE_COLOR, TextureSlot.METALLIC_ROUGHNESS, TextureSlot.NORMAL, TextureSlot.EMISSIVE];
  return slots.flatMap((slot) => {
    const o = start + MaterialAnimOffset.UV_TRANSFORM + slot * UV_TRANSFORM_FLOATS;
    return [
      { index: o + UvTransformOffset.OFFSET, value: bind.offset[0] },
      { index: o + UvTransformOffset.OFFSET + 1, value: bind.offset[1] },
      { index: o + UvTransformOffset.SCALE, value: bind.scale[0] },
      { index: o + UvTransformOffset.SCALE + 1, value: bind.scale[1] },
    ];
  });
}
