/**
 * The PBR extensions material path: glTF metallic-roughness with the KHR_materials_* extensions
 * (shaders/pbr-extensions/), for materials whose extensions change what is drawn
 * (model/pbr-extension-features.ts); every other PBR material stays on the plain PBR path and
 * pays nothing for them.
 *
 * Feature bits: the PBR path's (pbr-path.ts) in the low bits, then the PbrExtensionFeature bits
 * (`PBR_EXTENSIONS`), then which extension texture slots hold a texture. The last decide the
 * path's variant: its group 2 layout has a binding per present slot (and the sheen albedo table
 * with sheen), and a generated WGSL part declares them and defines `sample<Slot>` — a constant
 * for an absent slot — so a pipeline binds and samples only what its material has. A variant with
 * transmission also reads group 3: the opaque scene the transmission pass drew.
 */
import { perDevice } from '../device/per-device.ts';
import {
  EXTENSION_TEXTURE_COUNT, EXTENSION_TEXTURE_SLOTS, PBR_EXTENSION_FEATURE_BITS, PBR_EXTENSION_UNIFORMS_SIZE, PbrExtensionBinding, PbrExtensionFeature,
} from '../layouts/pbr-extension-uniforms.ts';
import { DeferredWgsl, type MaterialPath, type MaterialPathVariant } from './material-path.ts';
import { PBR_PATH } from './pbr-path.ts';

/** Bits below the extension features: the PBR path's own (textures and shading). */
const CORE_BITS = 7;
const EXTENSION_SHIFT = CORE_BITS;
const TEXTURE_SHIFT = CORE_BITS + PBR_EXTENSION_FEATURE_BITS;
const ALL_EXTENSION_TEXTURES = (1 << EXTENSION_TEXTURE_COUNT) - 1;
const ALL_EXTENSION_FEATURES = (1 << PBR_EXTENSION_FEATURE_BITS) - 1;

/** The path's features: the PBR path's `core`, the PbrExtensionFeature bits and the present extension texture slots (bit k: ExtensionTexture k). */
export function pbrExtensionFeatures(core: number, extensions: number, textures: number): number {
  return (core & ((1 << CORE_BITS) - 1)) | ((extensions & ALL_EXTENSION_FEATURES) << EXTENSION_SHIFT) | ((textures & ALL_EXTENSION_TEXTURES) << TEXTURE_SHIFT);
}

/** The PBR path's part of the features. */
export function coreFeatures(features: number): number {
  return features & ((1 << CORE_BITS) - 1);
}

/** The PbrExtensionFeature bits of the features. */
export function extensionFeatures(features: number): number {
  return (features >>> EXTENSION_SHIFT) & ALL_EXTENSION_FEATURES;
}

/** The present extension texture slots of the features. */
export function extensionTextures(features: number): number {
  return (features >>> TEXTURE_SHIFT) & ALL_EXTENSION_TEXTURES;
}

/** Whether a pipeline's material transmits light (samples the transmission pass's scene). */
export function transmitsLight(desc: { readonly materialPath?: string; readonly materialFeatures?: number }): boolean {
  return desc.materialPath === 'pbr-extensions' && (extensionFeatures(desc.materialFeatures ?? 0) & PbrExtensionFeature.TRANSMISSION) !== 0;
}

/** Group 3 of pipelines with transmission: the opaque scene the transmission pass drew, and its sampler. */
export const TransmissionBinding = { SCENE: 0, SAMPLER: 1 } as const;

/** The device's group 3 layout for transmission (one, so every Renderer's scene bind group fits every such pipeline). */
export const transmissionLayout = perDevice((device) => device.createBindGroupLayout({
  label: 'transmitted scene (group 3)',
  entries: [
    { binding: TransmissionBinding.SCENE, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } },
    { binding: TransmissionBinding.SAMPLER, visibility: GPUShaderStage.FRAGMENT, sampler: { type: 'filtering' } },
  ],
}));

/** Upper-camel-case of a slot name, as `sample<Name>` spells it. */
function capitalised(name: string): string {
  return name[0].toUpperCase() + name.slice(1);
}

/** The neutral sample of an absent slot: what leaves its factor as it is. */
const NEUTRAL_SAMPLE: Readonly<Record<(typeof EXTENSION_TEXTURE_SLOTS)[number]['neutral'], string>> = {
  'white': 'vec4f(1.0)',
  'flat-normal': 'vec4f(0.5, 0.5, 1.0, 1.0)',
  // The direction +tangent, (1, 0) after ×2 − 1, at full strength.
  'tangent-direction': 'vec4f(1.0, 0.5, 1.0, 1.0)',
};

/** The WGSL of a variant: its bindings, `sample<Slot>` per slot, `sheenAlbedo`, `transmittedScene`. */
export function variantPart(textures: number, sheen: boolean, transmission: boolean): string {
  const lines: string[] = ['// Generated for this variant by src/gpu/pipelines/pbr-extensions-path.ts.'];
  if (textures !== 0) lines.push(`@group(2) @binding(${PbrExtensionBinding.SAMPLER}) var extensionSampler: sampler;`);
  EXTENSION_TEXTURE_SLOTS.forEach((slot, k) => {
    const fn = `fn sample${capitalised(slot.name)}(in: VertexOutput) -> vec4f`;
    if (textures & (1 << k)) {
      lines.push(`@group(2) @binding(${PbrExtensionBinding.TEXTURE_BASE + k}) var ${slot.name}Texture: texture_2d<f32>;`);
      lines.push(`${fn} { return textureSample(${slot.name}Texture, extensionSampler, extensionUv(in, ${k}u)); }`);
    } else {
      lines.push(`${fn} { return ${NEUTRAL_SAMPLE[slot.neutral]}; }`);
    }
  });
  if (sheen) {
    lines.push(
      `@group(2) @binding(${PbrExtensionBinding.SHEEN_ALBEDO}) var sheenAlbedoTable: texture_2d<f32>;`,
      '// The sheen lobe\'s directional albedo at (n·v across, roughness down), read bilinearly.',
      'fn sheenAlbedo(nDotV: f32, roughness: f32) -> f32 {',
      '  let size = vec2f(textureDimensions(sheenAlbedoTable));',
      '  let p = clamp(vec2f(nDotV, roughness), vec2f(0.0), vec2f(1.0)) * (size - 1.0);',
      '  let i = vec2u(floor(p));',
      '  let j = min(i + 1u, vec2u(size) - 1u);',
      '  let f = p - floor(p);',
      '  let top = mix(textureLoad(sheenAlbedoTable, i, 0).r, textureLoad(sheenAlbedoTable, vec2u(j.x, i.y), 0).r, f.x);',
      '  let bottom = mix(textureLoad(sheenAlbedoTable, vec2u(i.x, j.y), 0).r, textureLoad(sheenAlbedoTable, j, 0).r, f.x);',
      '  return mix(top, bottom, f.y);',
      '}',
    );
  } else {
    lines.push('fn sheenAlbedo(nDotV: f32, roughness: f32) -> f32 { return 0.0; }');
  }
  if (transmission) {
    lines.push(
      `@group(3) @binding(${TransmissionBinding.SCENE}) var transmissionScene: texture_2d<f32>;`,
      `@group(3) @binding(${TransmissionBinding.SAMPLER}) var transmissionSampler: sampler;`,
      'fn transmittedScene(uv: vec2f, lod: f32) -> vec4f { return textureSampleLevel(transmissionScene, transmissionSampler, uv, lod); }',
      'fn transmissionSceneWidth() -> f32 { return f32(textureDimensions(transmissionScene).x); }',
    );
  } else {
    lines.push(
      'fn transmittedScene(uv: vec2f, lod: f32) -> vec4f { return vec4f(0.0); }',
      'fn transmissionSceneWidth() -> f32 { return 1.0; }',
    );
  }
  return lines.join('\n');
}

function variantOf(features: number): MaterialPathVariant {
  const textures = extensionTextures(features);
  const extensions = extensionFeatures(features);
  const sheen = (extensions & PbrExtensionFeature.SHEEN) !== 0;
  const transmission = (extensions & PbrExtensionFeature.TRANSMISSION) !== 0;
  return {
    key: `textures ${textures}${sheen ? ' sheen' : ''}${transmission ? ' transmission' : ''}`,
    parts: [variantPart(textures, sheen, transmission)],
    layoutEntries: () => variantLayoutEntries(textures, sheen),
    group3: transmission ? transmissionLayout : undefined,
  };
}

/** Group 2 entries of a variant after the path's own: the sheen table, the extension sampler and textures present. */
function variantLayoutEntries(textures: number, sheen: boolean): GPUBindGroupLayoutEntry[] {
  const FRAGMENT = GPUShaderStage.FRAGMENT;
  const entries: GPUBindGroupLayoutEntry[] = [];
  if (sheen) entries.push({ binding: PbrExtensionBinding.SHEEN_ALBEDO, visibility: FRAGMENT, texture: { sampleType: 'unfilterable-float' } });
  if (textures !== 0) entries.push({ binding: PbrExtensionBinding.SAMPLER, visibility: FRAGMENT, sampler: { type: 'filtering' } });
  for (let k = 0; k < EXTENSION_TEXTURE_COUNT; k++) {
    if (textures & (1 << k)) entries.push({ binding: PbrExtensionBinding.TEXTURE_BASE + k, visibility: FRAGMENT, texture: { sampleType: 'float' } });
  }
  return entries;
}

export const PBR_EXTENSIONS_PATH: MaterialPath = {
  name: 'pbr-extensions',
  files: PBR_PATH.files,
  deferredFiles: new DeferredWgsl('pbr-extensions', () => import('./pbr-extensions-wgsl.ts').then((m) => m.PBR_EXTENSIONS_WGSL)),
  layoutEntries(): GPUBindGroupLayoutEntry[] {
    return [
      ...PBR_PATH.layoutEntries(),
      { binding: PbrExtensionBinding.UNIFORMS, visibility: GPUShaderStage.FRAGMENT, buffer: { type: 'uniform', minBindingSize: PBR_EXTENSION_UNIFORMS_SIZE } },
    ];
  },
  constants(features: number) {
    const core = PBR_PATH.constants(coreFeatures(features));
    const extensions = extensionFeatures(features);
    // Thickness is in mesh units: the fragment stage needs the draw's scale (mesh.wgsl PACK_MODEL_SCALE).
    const packScale = (extensions & PbrExtensionFeature.VOLUME) !== 0;
    return {
      vertex: { ...core.vertex, ...(packScale ? { PACK_MODEL_SCALE: 1 } : {}) },
      fragment: { ...core.fragment, PBR_EXTENSIONS: extensions },
    };
  },
  allFeatures: pbrExtensionFeatures(PBR_PATH.allFeatures, 0, 0),
  fragmentEntry: 'fsExtended',
  leanFragmentEntry: 'fsExtendedLean',
  outlines: () => false,
  variant: variantOf,
};
