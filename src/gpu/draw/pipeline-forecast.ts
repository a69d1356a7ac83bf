/**
 * Pipelines asked for from a file's JSON (gltf/model-shape.ts), before its buffers are read,
 * its textures decoded and its model uploaded: the lit pipelines its first frame draws with,
 * described by the functions the upload's draws are described by (vertex-layout.ts,
 * materialDrawing, surfaceDesc), so each has the key, and from the device's cache is the very
 * object, that the draws then ask for. Their compiles (the longest step before a first frame,
 * in a GPU process that compiles with a software JIT) so run while the file downloads and decodes.
 *
 * A wrong forecast costs a pipeline compiled for nothing: the draws ask for their own
 * pipelines as always. A forecast pipeline that fails is dropped quietly; a draw that needs
 * it asks again and reports the failure.
 */
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import type { AccessorFormat } from '../../gltf/accessors.ts';
import { keepsIntegerStorage } from '../../gltf/extensions/khr-mesh-quantization.ts';
import type { DrawShape, ModelShape } from '../../gltf/model-shape.ts';
import { BackgroundBuild } from '../device/background-build.ts';
import { DEFAULT_MATERIAL } from '../layouts/material-uniforms.ts';
import { materialDrawing } from '../model/material-uploaders.ts';
import { morphFlagsOf } from '../model/morph-targets.ts';
import { topologyOf } from '../model/upload.ts';
import { FLOAT_ATTRIBUTES, planVertexLayouts, type SkinSetFormat, type VertexShape } from '../model/vertex-layout.ts';
import { loadMaterialPaths, materialFeaturesOf, materialPathOf, meshPipelineKey, meshVariantDesc, type MeshPipelineDesc, type MeshPipelines } from '../pipelines/mesh.ts';
import { mipmapGenerator } from '../textures/mipmaps.ts';
import { COLOR_TEXTURE_FORMAT, DATA_TEXTURE_FORMAT } from '../textures/textures.ts';
import { videoFrameReadable } from '../textures/video-frame-pixels.ts';
import { surfaceDesc } from './draw-list.ts';

/** What a forecast needs of the Renderer that will draw the model. */
export interface ForecastContext {
  readonly device: GPUDevice;
  readonly meshPipelines: MeshPipelines;
  readonly format: GPUTextureFormat;
  readonly maxVertexBuffers: number;
  /** RenderSettings.mtoon. */
  readonly mtoon: boolean;
  /** The method the first frame skins with. */
  readonly skinning: SkinningMethod;
  /** Whether the first frame draws with shadows (the element waits for their pipelines). */
  readonly shadows: boolean;
}

/**
 * The descriptions of the lit pipelines (and MToon outlines) the first frame of a model of
 * `shape` draws with, one per key: what Renderer.setModel builds first (the vertex path of
 * `skinning` without shadows) and, with `shadows`, the shadowed ones frames then take.
 * Primitives it cannot describe (strips, whose index format needs the indices; a layout over
 * the device's limits; a material the upload would refuse) are left out.
 */
export function forecastDescs(ctx: ForecastContext, shape: ModelShape): MeshPipelineDesc[] {
  const byKey = new Map<string, MeshPipelineDesc>();
  for (const draw of shape.draws) {
    const surface = drawSurface(ctx, shape, draw);
    if (!surface) continue;
    for (const shadows of ctx.shadows ? [false, true] : [false]) {
      const lit: MeshPipelineDesc = { ...surface, skinning: ctx.skinning, shadows };
      const descs = materialPathOf(lit).outlines(materialFeaturesOf(lit)) ? [lit, meshVariantDesc(lit, 'outline')] : [lit];
      for (const d of descs) byKey.set(meshPipelineKey(d), d);
    }
  }
  return [...byKey.values()];
}

/**
 * Starts the forecast pipelines' compiles (a BackgroundBuild, so `backgroundBuildsSettled`
 * waits for them) and resolves with how many arrived.
 */
export function forecastPipelines(ctx: ForecastContext, shape: ModelShape): Promise<number> {
  const descs = forecastDescs(ctx, shape);
  return new BackgroundBuild('the pipelines forecast from the file\'s JSON', async () => {
    await loadMaterialPaths(descs.map((d) => materialPathOf(d).name));
    const requested = descs.map((d) => ctx.meshPipelines.pipeline(d).then(() => 1, () => 0));
    // Behind the mesh pipelines: the downsampling its textures will be drawn with, if any.
    void videoFrameReadable().then((readable) => {
      for (const format of mipmappedFormats(shape, readable)) mipmapGenerator(ctx.device).warm(format);
    });
    const arrived = await Promise.all(requested);
    return arrived.reduce<number>((n, a) => n + a, 0);
  }).prepare();
}

/**
 * The formats the model's images will likely be mipmapped in on the GPU (textures.ts
 * createImageTexture): colour for base colour and emissive textures, data for the others.
 * Where the browser hands images over as pixels (`decodesToPixels`: video-frame-pixels.ts), an
 * opaque power-of-two image up to CPU_MIPMAP_MAX_TEXELS gets its levels on the CPU, so only a base
 * colour with alpha (a MASK or BLEND material's), which stays a bitmap, is forecast; a larger or
 * odd-sized image is not (the JSON does not give sizes) and compiles the pipeline once decoded.
 * A KTX2 image brings its own levels, so its format warms for nothing (one small draw).
 */
export function mipmappedFormats(shape: ModelShape, decodesToPixels: boolean): GPUTextureFormat[] {
  const formats = new Set<GPUTextureFormat>();
  for (const m of shape.materials) {
    if (decodesToPixels) {
      if (m.baseColorTexture && m.alphaMode !== 'OPAQUE') formats.add(COLOR_TEXTURE_FORMAT);
      continue;
    }
    if (m.baseColorTexture || m.emissiveTexture) formats.add(COLOR_TEXTURE_FORMAT);
    if (m.metallicRoughnessTexture || m.normalTexture || m.occlusionTexture) formats.add(DATA_TEXTURE_FORMAT);
  }
  return [...formats];
}

/** `draw`'s lit description (surfaceDesc), or undefined when the JSON cannot say it. */
function drawSurface(ctx: ForecastContext, shape: ModelShape, draw: DrawShape): MeshPipelineDesc | undefined {
  const p = draw.primitive;
  const topology = topologyOf(p.mode);
  if (topology.endsWith('strip')) return undefined;
  try {
    const vertexShape = vertexShapeOfJson(p.attributes);
    const layouts = planVertexLayouts(vertexShape, ctx.maxVertexBuffers, p.path);
    const material = p.material >= 0 && p.material < shape.materials.length ? shape.materials[p.material] : DEFAULT_MATERIAL;
    const drawing = materialDrawing(material, ctx.mtoon, { device: ctx.device, animated: false, warn: () => {} }, p.path);
    const primitive = {
      ...layouts, topology, indexFormat: undefined, influences: (vertexShape.skinSets.length * 4) as 0 | 4 | 8,
      morphFlags: morphFlagsOf(p.morphs, 'NORMAL' in p.attributes, 'TANGENT' in p.attributes),
    };
    return surfaceDesc(primitive, { ...drawing, alphaMode: material.alphaMode, doubleSided: material.doubleSided }, ctx.format, draw.skinned, draw.mirrored);
  } catch {
    return undefined;
  }
}

/** The vertex shape (vertex-layout.ts) the loader's primitive of `attributes` will have. */
function vertexShapeOfJson(attributes: Readonly<Record<string, AccessorFormat>>): VertexShape {
  const stored: Record<string, AccessorFormat | undefined> = {};
  for (const a of FLOAT_ATTRIBUTES) {
    const format = attributes[a.name];
    // What the loader keeps in Primitive.quantized; the rest it reads as floats.
    if (format) stored[a.name] = keepsIntegerStorage(a.name, format.componentType) ? format : undefined;
  }
  const skinSets: SkinSetFormat[] = [];
  if (attributes.JOINTS_0 && attributes.WEIGHTS_0) {
    skinSets.push({ joints: attributes.JOINTS_0, weights: attributes.WEIGHTS_0 });
    if (attributes.JOINTS_1 && attributes.WEIGHTS_1) skinSets.push({ joints: attributes.JOINTS_1, weights: attributes.WEIGHTS_1 });
  }
  return { stored, skinSets };
}
