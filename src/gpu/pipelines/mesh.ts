import centerOfRotationWgsl from '../../../shaders/center-of-rotation.wgsl?raw';
import drawRecordWgsl from '../../../shaders/draw-record.wgsl?raw';
import environmentLightingWgsl from '../../../shaders/environment-lighting.wgsl?raw';
import sh9Wgsl from '../../../shaders/sh9.wgsl?raw';
import groundWgsl from '../../../shaders/ground.wgsl?raw';
import meshWgsl from '../../../shaders/mesh.wgsl?raw';
import meshDebugWgsl from '../../../shaders/mesh-debug.wgsl?raw';
import morphWgsl from '../../../shaders/morph.wgsl?raw';
import pbrWgsl from '../../../shaders/pbr.wgsl?raw';
import skinningWgsl from '../../../shaders/skinning.wgsl?raw';
import { usesDqPalette, type SkinningMethod } from '../../anim/skinning-method.ts';
import { DEPTH_FORMAT, FrameBinding, MSAA_SAMPLE_COUNT, SkinBinding } from '../layouts/bindings.ts';
import { OVERLAY_DEPTH_PULL } from '../layouts/debug.ts';
import { FRAME_UNIFORMS_SIZE } from '../layouts/frame-uniforms.ts';
import { DRAW_RECORD_SIZE } from '../layouts/draw-record.ts';
import { environmentLayoutEntries } from '../environment/environment.ts';
import { perDevice } from '../device/per-device.ts';
import { pipelineShader, type WgslFile } from '../layouts/pipeline-shaders.ts';
import type { MaterialPath, MaterialPathName } from './material-path.ts';
import { MTOON_PATH } from './mtoon-path.ts';
import { PBR_PATH } from './pbr-path.ts';
import { PBR_EXTENSIONS_PATH } from './pbr-extensions-path.ts';

/**
 * The WGSL every mesh pipeline is made of before its material path's files (in the order of
 * layouts/pipeline-shaders.ts): the shared skinning functions, the PBR lighting pieces, the draw
 * record, centres of rotation, morph targets, the mesh stages, the ground disc's and the debug
 * variants' stages (frame draws and debug pipelines compile the same module), SH9 and the
 * environment lighting.
 */
export const MESH_WGSL: Readonly<Record<WgslFile, string>> = {
  'skinning.wgsl': skinningWgsl, 'pbr.wgsl': pbrWgsl, 'draw-record.wgsl': drawRecordWgsl, 'center-of-rotation.wgsl': centerOfRotationWgsl,
  'morph.wgsl': morphWgsl, 'mesh.wgsl': meshWgsl, 'ground.wgsl': groundWgsl, 'mesh-debug.wgsl': meshDebugWgsl, 'sh9.wgsl': sh9Wgsl,
  'environment-lighting.wgsl': environmentLightingWgsl,
};

/** Every material path, by name: each is drawn by pipelines of its `mesh (name)` shader (layouts/pipeline-shaders.ts). */
export const MATERIAL_PATHS: Readonly<Record<MaterialPathName, MaterialPath>> = { 'pbr': PBR_PATH, 'pbr-extensions': PBR_EXTENSIONS_PATH, 'mtoon': MTOON_PATH };

/**
 * Imports the WGSL `paths` defer (MaterialPath.deferredFiles): before a model's pipelines of
 * those paths are built (uploadModel calls it for the paths of the model's materials).
 */
export async function loadMaterialPaths(paths: Iterable<MaterialPathName>): Promise<void> {
  await Promise.all([...new Set(paths)].map((path) => MATERIAL_PATHS[path].deferredFiles?.load()));
}

/** The whole WGSL source of a material path's mesh pipelines (of its variant for `features`, for a path that has variants); its deferred WGSL must be loaded. */
export function meshShaderSource(path: MaterialPathName, features?: number): string {
  const p = MATERIAL_PATHS[path];
  const variant = p.variant?.(features ?? p.allFeatures);
  return pipelineShader(`mesh (${path})`, {
    ...MESH_WGSL, ...p.files, ...(p.deferredFiles?.loaded ?? {}), ...(variant ? { variant: variant.parts.join('\n') } : {}),
  });
}

/** The PBR path's mesh shader, whose vertex stages the shadow pass and the debug pipelines share. */
export const MESH_SHADER_SOURCE = meshShaderSource('pbr');

export type AlphaMode = 'OPAQUE' | 'MASK' | 'BLEND';

/** Vertex stage entry point by influences per vertex. */
export const VERTEX_ENTRY_POINT: Readonly<Record<0 | 4 | 8, string>> = { 0: 'vsRigid', 4: 'vsSkin4', 8: 'vsSkin8' };

/**
 * Entry points of shaded pipelines of lean primitives (MeshPipelineDesc.leanVertexLayouts):
 * no TANGENT, TEXCOORD_1 or COLOR_0 fetched or passed to the fragment stage.
 */
export const LEAN_VERTEX_ENTRY_POINT: Readonly<Record<0 | 4 | 8, string>> = { 0: 'vsRigidLean', 4: 'vsSkin4Lean', 8: 'vsSkin8Lean' };

/** The compute path's vertex stage: no skinning, this frame's skinned vertices. */
export const PRESKINNED_ENTRY_POINT = 'vsPreskinned';

/**
 * Adds the vertex-stage override constants of a skinning method to `into` for pipelines that
 * read the palette (`readsPalette`: skinned layouts, the skeleton): `DUAL_QUATERNION`
 * (mesh.wgsl: the palette holds DqJoint entries) for dual-quaternion and centre-of-rotation
 * pipelines, and `CENTER_OF_ROTATION` too for the latter. Rigid layouts never read the
 * palette, so they take no constant and share one pipeline across methods.
 */
export function skinningConstants(readsPalette: boolean, method: SkinningMethod | undefined, into: Record<string, number>): Record<string, number> {
  if (readsPalette && method !== undefined && usesDqPalette(method)) into.DUAL_QUATERNION = 1;
  if (readsPalette && method === 'center-of-rotation') into.CENTER_OF_ROTATION = 1;
  return into;
}

/** The method part of a pipeline key: '-' where the method changes nothing (rigid layouts). */
export function skinningKey(readsPalette: boolean, method: SkinningMethod | undefined): string {
  return readsPalette ? (method ?? 'linear') : '-';
}

/**
 * What a mesh pipeline draws: the shaded surface; its outline, for material paths that draw
 * one (MaterialPath.outlines: MToon's inverted hull, the path's `OUTLINE` override on in both
 * stages, front faces culled); or one of two debug views of it — 'weights' (surface coloured
 * by skin weights, DebugView.WEIGHTS) and 'wireframe' (the edges as a line list over the
 * surface, DebugView.WIREFRAME). Same vertex stage and skinning; the variant picks the
 * fragment entry point, overrides and fixed-function state.
 */
export type MeshVariant = 'shaded' | 'outline' | 'weights' | 'wireframe';

/** Fragment entry points of the debug variants (shaded and outline pipelines take their material path's). */
const FRAGMENT_ENTRY_POINT: Readonly<Record<'weights' | 'wireframe', string>> = { weights: 'fsWeights', wireframe: 'fsWireframe' };

/** Whether `d` shades its material (the surface or its outline), not a debug view of it. */
export function shadesMaterial(d: MeshPipelineDesc): boolean {
  const variant = d.variant ?? 'shaded';
  return variant === 'shaded' || variant === 'outline';
}

/**
 * Everything a mesh pipeline depends on. Two draws with equal keys share one pipeline;
 * materials, textures, skins and draw records are bind-group data, never pipeline state.
 */
export interface MeshPipelineDesc {
  /** `vertexLayoutKey` of the primitive's buffers (which attributes, formats, strides). */
  readonly vertexLayoutKey: string;
  readonly vertexLayouts: readonly GPUVertexBufferLayout[];
  readonly influences: 0 | 4 | 8;
  readonly topology: GPUPrimitiveTopology;
  /** Only for strip topologies of indexed primitives. */
  readonly stripIndexFormat: GPUIndexFormat | undefined;
  readonly alphaMode: AlphaMode;
  readonly doubleSided: boolean;
  /** 'cw' for draws whose world matrix mirrors (negative determinant), glTF §3.7.4. */
  readonly frontFace: GPUFrontFace;
  readonly colorFormat: GPUTextureFormat;
  /** Default 'shaded'. */
  readonly variant?: MeshVariant;
  /** How skinned layouts blend their joints; default 'linear'. Ignored (and not keyed) when `influences` is 0. */
  readonly skinning?: SkinningMethod;
  /**
   * The compute path (src/gpu/draw/preskin.ts): the vertex stage reads this frame's skinned
   * vertices (vsPreskinned) instead of skinning; give the rigid layouts and influences 0.
   */
  readonly preskinned?: boolean;
  /**
   * Whether the primitive has morph targets; default true. False compiles the vertex stage
   * without the morph code (mesh.wgsl `MORPH_TARGETS`).
   */
  readonly morphed?: boolean;
  /**
   * The primitive's layouts (`vertexLayouts`' buffers and slots) without TANGENT, TEXCOORD_1
   * and COLOR_0, when it has none of them (GpuPrimitive.leanRigidLayouts / leanSkinnedLayouts).
   * Shaded vertex-skinned pipelines then use the lean entry points, which neither fetch nor
   * interpolate those defaults; other variants and the compute path ignore it.
   */
  readonly leanVertexLayouts?: readonly GPUVertexBufferLayout[];
  /** The material's path (GpuMaterial.path, pipelines/material-path.ts); default 'pbr'. */
  readonly materialPath?: MaterialPathName;
  /**
   * The material's feature bits (GpuMaterial.features; the path's meaning), which shaded
   * pipelines compile in; default the path's `allFeatures`.
   */
  readonly materialFeatures?: number;
  /**
   * Whether shaded pipelines look the key light's shadow up (mesh.wgsl `SHADOWS`); default
   * true. The Renderer draws frames without shadows with false, frames with shadows with true.
   */
  readonly shadows?: boolean;
  /** Alpha mode BLEND that still writes depth (MToon's transparentWithZWrite); default false. */
  readonly blendedDepthWrite?: boolean;
  /**
   * Drawn into the transmission pass's target (draw/transmission-pass.ts): linear, premultiplied radiance
   * without tone mapping (mesh.wgsl `LINEAR_OUTPUT`) and one sample; give `colorFormat` TRANSMISSION_FORMAT.
   */
  readonly transmissionSource?: boolean;
}

/** The material path a pipeline is made of. */
export function materialPathOf(d: MeshPipelineDesc): MaterialPath {
  return MATERIAL_PATHS[d.materialPath ?? 'pbr'];
}

/** Whether `d` is drawn with the lean entry points (see MeshPipelineDesc.leanVertexLayouts). */
export function usesLeanSurface(d: MeshPipelineDesc): boolean {
  return d.leanVertexLayouts !== undefined && (d.variant ?? 'shaded') === 'shaded' && !d.preskinned && materialPathOf(d).leanFragmentEntry !== undefined;
}

/** The material features a pipeline compiles with: only shaded pipelines specialise for the material. */
export function materialFeaturesOf(d: MeshPipelineDesc): number {
  const path = materialPathOf(d);
  // A path with variants keeps them in debug variants too: their group 2 is the material's.
  return shadesMaterial(d) || path.variant ? (d.materialFeatures ?? path.allFeatures) : path.allFeatures;
}

/** Samples per pixel of a pipeline's targets: the transmission pass's have one. */
export function sampleCountOf(d: MeshPipelineDesc): number {
  return d.transmissionSource ? 1 : MSAA_SAMPLE_COUNT;
}

/** The `SHADOWS` a pipeline compiles with: only shaded pipelines light with shadows. */
export function shadowsOf(d: MeshPipelineDesc): boolean {
  return shadesMaterial(d) && d.shadows !== false;
}

export function meshPipelineKey(d: MeshPipelineDesc): string {
  return [
    d.variant ?? 'shaded', d.preskinned ? 'preskinned' : 'vertex-skinned', d.vertexLayoutKey, d.influences, skinningKey(d.influences > 0, d.skinning), d.topology, d.stripIndexFormat ?? '-', d.alphaMode,
    d.doubleSided ? 'double' : 'single', d.frontFace, d.colorFormat, DEPTH_FORMAT, sampleCountOf(d),
    d.morphed === false ? 'static' : 'morph', usesLeanSurface(d) ? 'lean' : 'full', `${materialPathOf(d).name}:${materialFeaturesOf(d)}`, shadowsOf(d) ? 'shadows' : 'unshadowed',
    d.blendedDepthWrite && d.alphaMode === 'BLEND' && shadesMaterial(d) ? 'blend-depth' : '-',
    d.transmissionSource ? 'linear' : 'display',
  ].join('|');
}

/**
 * The description of `variant` of a draw's shaded pipeline, with every field the variant
 * ignores set to one value, so draws that differ only there share the variant's pipeline:
 * weights are opaque; wireframe is an unculled line list (its index buffer lists edges); an
 * outline culls front faces whatever the material's sides.
 */
export function meshVariantDesc(shaded: MeshPipelineDesc, variant: MeshVariant): MeshPipelineDesc {
  switch (variant) {
    case 'shaded': return { ...shaded, variant };
    case 'outline': return { ...shaded, variant, doubleSided: false };
    case 'weights': return { ...shaded, variant, alphaMode: 'OPAQUE' };
    case 'wireframe': return {
      ...shaded, variant, topology: 'line-list', stripIndexFormat: undefined, alphaMode: 'OPAQUE', doubleSided: true, frontFace: 'ccw',
    };
  }
}

/** Target formats whose views encode sRGB in hardware; for the rest the shader encodes. */
export function isSrgbFormat(format: GPUTextureFormat): boolean {
  return format.endsWith('-srgb');
}

/** A material path's shader module, group 2 layout and pipeline layout on one device. */
interface PathPipelines {
  readonly module: GPUShaderModule;
  readonly materialLayout: GPUBindGroupLayout;
  readonly pipelineLayout: GPUPipelineLayout;
}

/** What every MeshPipelines of one device shares: made once per device (a path's part when first used). */
interface DeviceMeshPipelines {
  readonly frameLayout: GPUBindGroupLayout;
  readonly skinLayout: GPUBindGroupLayout;
  /** By path name, and variant key for a path that has variants. */
  readonly paths: Map<string, PathPipelines>;
  /** By meshPipelineKey; a failed creation is dropped, so the next request tries again. */
  readonly cache: Map<string, Promise<GPURenderPipeline>>;
}

/** Group 0's layout entries: every mesh pipeline's. */
export function frameLayoutEntries(): GPUBindGroupLayoutEntry[] {
  const FRAGMENT = GPUShaderStage.FRAGMENT;
  return [
    { binding: FrameBinding.UNIFORMS, visibility: GPUShaderStage.VERTEX | FRAGMENT, buffer: { type: 'uniform', minBindingSize: FRAME_UNIFORMS_SIZE } },
    { binding: FrameBinding.SHADOW_MAP, visibility: FRAGMENT, texture: { sampleType: 'depth' } },
    { binding: FrameBinding.SHADOW_SAMPLER, visibility: FRAGMENT, sampler: { type: 'comparison' } },
    ...environmentLayoutEntries(),
  ];
}

/** How many of `entries` are textures (sampled by the fragment stage): what maxSampledTexturesPerShaderStage counts. */
export function fragmentTextureCount(entries: readonly GPUBindGroupLayoutEntry[]): number {
  return entries.filter((e) => e.texture !== undefined && (e.visibility & GPUShaderStage.FRAGMENT) !== 0).length;
}

const deviceMeshPipelines = perDevice((device): DeviceMeshPipelines => {
  const VERTEX = GPUShaderStage.VERTEX;
  const frameLayout = device.createBindGroupLayout({ label: 'frame (group 0)', entries: frameLayoutEntries() });
  const skinLayout = device.createBindGroupLayout({
    label: 'skin, draws and morph deltas (group 1)',
    entries: [
      { binding: SkinBinding.PALETTE, visibility: VERTEX, buffer: { type: 'read-only-storage' } },
      { binding: SkinBinding.DRAWS, visibility: VERTEX, buffer: { type: 'read-only-storage', minBindingSize: DRAW_RECORD_SIZE } },
      { binding: SkinBinding.MORPH_DELTAS, visibility: VERTEX, buffer: { type: 'read-only-storage' } },
      { binding: SkinBinding.SKINNED_VERTICES, visibility: VERTEX, buffer: { type: 'read-only-storage' } },
      { binding: SkinBinding.CENTERS, visibility: VERTEX, buffer: { type: 'read-only-storage' } },
    ],
  });
  return { frameLayout, skinLayout, paths: new Map(), cache: new Map() };
});

/** `path`'s module and layouts on `device` (its variant's for `features`, for a path that has variants), made on first use. */
function pathPipelines(device: GPUDevice, shared: DeviceMeshPipelines, path: MaterialPathName, features?: number): PathPipelines {
  const p = MATERIAL_PATHS[path];
  const variant = p.variant?.(features ?? p.allFeatures);
  const name = variant ? `${path} ${variant.key}` : path;
  let made = shared.paths.get(name);
  if (!made) {
    const materialLayout = device.createBindGroupLayout({ label: `${name} material (group 2)`, entries: [...p.layoutEntries(), ...(variant?.layoutEntries() ?? [])] });
    const groups = [shared.frameLayout, shared.skinLayout, materialLayout];
    if (variant?.group3) groups.push(variant.group3(device));
    made = {
      module: device.createShaderModule({ label: `mesh (${name})`, code: meshShaderSource(path, features) }),
      materialLayout,
      pipelineLayout: device.createPipelineLayout({ label: `mesh (${name})`, bindGroupLayouts: groups }),
    };
    shared.paths.set(name, made);
  }
  return made;
}

/**
 * The mesh shader modules, the bind group layouts (0 frame, 1 skin, 2 material: one per
 * material path) and the pipeline cache, as one user (a Renderer) sees them. All of it is made
 * once per device and shared by every MeshPipelines on it: several viewers on a page share one
 * device and compile each pipeline once. Outlives models.
 */
export class MeshPipelines {
  readonly frameLayout: GPUBindGroupLayout;
  readonly skinLayout: GPUBindGroupLayout;
  /** The PBR path's compiled shader; the shadow pass (shadow-map.ts) draws with its vertex stages. */
  readonly module: GPUShaderModule;
  private readonly shared: DeviceMeshPipelines;
  private readonly cache: Map<string, Promise<GPURenderPipeline>>;
  /** Keys of the pipelines this user asked for. */
  private readonly used = new Set<string>();

  constructor(private readonly device: GPUDevice) {
    const shared = deviceMeshPipelines(device);
    this.shared = shared;
    this.frameLayout = shared.frameLayout;
    this.skinLayout = shared.skinLayout;
    this.module = pathPipelines(device, shared, 'pbr').module;
    this.cache = shared.cache;
  }

  /** Group 2's layout of material path `path` (what a material's bind group is made for), of its variant for `features` where it has variants. */
  materialLayout(path: MaterialPathName, features?: number): GPUBindGroupLayout {
    return pathPipelines(this.device, this.shared, path, features).materialLayout;
  }

  /** Distinct pipelines this user has been given (for tests and diagnostics); the device may hold more. */
  get size(): number {
    return this.used.size;
  }

  /**
   * The device's pipeline for `desc`, created (asynchronously, so the page stays responsive)
   * on first use by any user; concurrent requests share one creation.
   */
  async pipeline(desc: MeshPipelineDesc): Promise<GPURenderPipeline> {
    const key = meshPipelineKey(desc);
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.create(desc, key);
      this.cache.set(key, pending);
      const created = pending;
      created.catch(() => { if (this.cache.get(key) === created) this.cache.delete(key); });
    }
    const pipeline = await pending;
    this.used.add(key);
    return pipeline;
  }

  private create(desc: MeshPipelineDesc, key: string): Promise<GPURenderPipeline> {
    const variant = desc.variant ?? 'shaded';
    const wireframe = variant === 'wireframe';
    const outline = variant === 'outline';
    // Wireframe lines blend over the surface they outline (and do not hide each other).
    const blend = wireframe || desc.alphaMode === 'BLEND';
    const vertexConstants = skinningConstants(desc.influences > 0, desc.skinning, {});
    if (variant === 'weights') vertexConstants.WEIGHT_COLORS = 1;
    if (wireframe) vertexConstants.DEPTH_PULL = OVERLAY_DEPTH_PULL;
    if (desc.morphed === false) vertexConstants.MORPH_TARGETS = 0;
    const lean = usesLeanSurface(desc);
    const path = materialPathOf(desc);
    const { module, pipelineLayout } = pathPipelines(this.device, this.shared, path.name, materialFeaturesOf(desc));
    const materialConstants = path.constants(materialFeaturesOf(desc));
    Object.assign(vertexConstants, materialConstants.vertex);
    if (outline) vertexConstants.OUTLINE = 1;
    return this.device.createRenderPipelineAsync({
      label: `mesh ${key}`,
      layout: pipelineLayout,
      vertex: {
        module,
        entryPoint: desc.preskinned ? PRESKINNED_ENTRY_POINT : (lean ? LEAN_VERTEX_ENTRY_POINT : VERTEX_ENTRY_POINT)[desc.influences],
        buffers: (lean ? desc.leanVertexLayouts! : desc.vertexLayouts) as GPUVertexBufferLayout[],
        constants: vertexConstants,
      },
      fragment: {
        module,
        entryPoint: !shadesMaterial(desc) ? FRAGMENT_ENTRY_POINT[variant as 'weights' | 'wireframe'] : lean ? path.leanFragmentEntry! : path.fragmentEntry,
        constants: shadesMaterial(desc)
          ? {
            ENCODE_SRGB: isSrgbFormat(desc.colorFormat) ? 0 : 1, ALPHA_TEST: desc.alphaMode === 'MASK' ? 1 : 0, SHADOWS: shadowsOf(desc) ? 1 : 0,
            LINEAR_OUTPUT: desc.transmissionSource ? 1 : 0, ...materialConstants.fragment, ...(outline ? { OUTLINE: 1 } : {}),
          }
          : { ENCODE_SRGB: isSrgbFormat(desc.colorFormat) ? 0 : 1 },
        targets: [{
          format: desc.colorFormat,
          // Premultiplied "over"; the shader outputs premultiplied colour.
          blend: blend ? {
            color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
            alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
          } : undefined,
        }],
      },
      primitive: {
        topology: desc.topology,
        stripIndexFormat: desc.stripIndexFormat,
        frontFace: desc.frontFace,
        // The outline is the inverted hull: its back faces are what shows.
        cullMode: outline ? 'front' : desc.doubleSided ? 'none' : 'back',
      },
      depthStencil: {
        format: DEPTH_FORMAT,
        // Blended surfaces are sorted back to front and test against, but do not hide, what is behind
        // them; unless the material asks to (MToon's transparentWithZWrite).
        depthWriteEnabled: !blend || (desc.blendedDepthWrite === true && shadesMaterial(desc) && !wireframe),
        depthCompare: wireframe ? 'less-equal' : 'less',
      },
      multisample: { count: sampleCountOf(desc) },
    });
  }
}
