/**
 * The overlay pipelines of the debug views (NORMALS, TANGENTS, SKELETON, BOUNDS): one shader
 * module built from the mesh shader plus shaders/debug.wgsl, a pipeline layout of the
 * mesh's groups 0 (frame) and 1 (palettes and draw records), and a cache by key. The
 * WEIGHTS and WIREFRAME views are mesh pipeline variants (pipelines/mesh.ts).
 */
import { BOUNDS_BOX_LAYOUT, DebugLineKind, OVERLAY_DEPTH_PULL, SKELETON_JOINT_LAYOUT } from '../layouts/debug.ts';
import { DEPTH_FORMAT, MSAA_SAMPLE_COUNT } from '../layouts/bindings.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import { perDevice } from '../device/per-device.ts';
import { isSrgbFormat, MeshPipelines, skinningConstants, skinningKey } from './mesh.ts';

const LINE_VERTEX_ENTRY_POINT: Readonly<Record<0 | 4 | 8, string>> = { 0: 'vsLinesRigid', 4: 'vsLines4', 8: 'vsLines8' };

export interface DebugLinePipelineDesc {
  readonly kind: DebugLineKind;
  /** The primitive's layout key (the line pipeline reads the same buffers, instance-stepped). */
  readonly vertexLayoutKey: string;
  /** The primitive's vertex buffer layouts with `stepMode: 'instance'` (see `instanceStepped`). */
  readonly vertexLayouts: readonly GPUVertexBufferLayout[];
  readonly influences: 0 | 4 | 8;
  /** As the surface's (MeshPipelineDesc.skinning); default 'linear'. */
  readonly skinning?: SkinningMethod;
  readonly colorFormat: GPUTextureFormat;
}

/** `layouts` with every buffer stepped per instance: one instance per mesh vertex. */
export function instanceStepped(layouts: readonly GPUVertexBufferLayout[]): GPUVertexBufferLayout[] {
  return layouts.map((l) => ({ ...l, stepMode: 'instance' }));
}

const PREMULTIPLIED_OVER: GPUBlendState = {
  color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
  alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
};

/** One per device (`debugPipelines`), next to MeshPipelines, whose bind group layouts it shares. */
export class DebugPipelines {
  private module: Promise<GPUShaderModule> | undefined;
  private readonly layout: GPUPipelineLayout;
  private readonly cache = new Map<string, Promise<GPURenderPipeline>>();

  constructor(private readonly device: GPUDevice, mesh: MeshPipelines) {
    this.layout = device.createPipelineLayout({
      label: 'mesh debug overlays',
      bindGroupLayouts: [mesh.frameLayout, mesh.skinLayout],
    });
  }

  /** Pipelines created (or being created) so far. */
  get size(): number {
    return this.cache.size;
  }

  /** NORMALS or TANGENTS lines of one primitive layout: depth-tested, not written. */
  lines(desc: DebugLinePipelineDesc): Promise<GPURenderPipeline> {
    const key = ['lines', desc.kind, desc.vertexLayoutKey, desc.influences, skinningKey(desc.influences > 0, desc.skinning), desc.colorFormat].join('|');
    return this.cached(key, (module) => ({
      label: `debug ${key}`,
      layout: this.layout,
      vertex: {
        module,
        entryPoint: LINE_VERTEX_ENTRY_POINT[desc.influences],
        buffers: desc.vertexLayouts as GPUVertexBufferLayout[],
        constants: skinningConstants(desc.influences > 0, desc.skinning, { LINE_KIND: desc.kind, DEPTH_PULL: OVERLAY_DEPTH_PULL }),
      },
      fragment: {
        module,
        entryPoint: 'fsLine',
        constants: { ENCODE_SRGB: isSrgbFormat(desc.colorFormat) ? 0 : 1 },
        targets: [{ format: desc.colorFormat }],
      },
      primitive: { topology: 'line-list' },
      depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: false, depthCompare: 'less-equal' },
      multisample: { count: MSAA_SAMPLE_COUNT },
    }));
  }

  /**
   * SKELETON bones ('bone') or joint discs ('joint'): drawn over everything, no depth test.
   * Joints are posed from the palette, so its format (`skinning`) is part of the key.
   */
  skeleton(shape: 'bone' | 'joint', colorFormat: GPUTextureFormat, skinning: SkinningMethod = 'linear'): Promise<GPURenderPipeline> {
    const key = ['skeleton', shape, skinning, colorFormat].join('|');
    return this.cached(key, (module) => ({
      label: `debug ${key}`,
      layout: this.layout,
      vertex: {
        module,
        entryPoint: shape === 'bone' ? 'vsBone' : 'vsJoint',
        buffers: [SKELETON_JOINT_LAYOUT],
        constants: skinningConstants(true, skinning, {}),
      },
      fragment: {
        module,
        entryPoint: shape === 'bone' ? 'fsBone' : 'fsJoint',
        constants: { ENCODE_SRGB: isSrgbFormat(colorFormat) ? 0 : 1 },
        targets: [{ format: colorFormat, blend: PREMULTIPLIED_OVER }],
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: false, depthCompare: 'always' },
      multisample: { count: MSAA_SAMPLE_COUNT },
    }));
  }

  /** BOUNDS: each instance's world box as 12 lines, drawn over everything (no depth test). */
  bounds(colorFormat: GPUTextureFormat): Promise<GPURenderPipeline> {
    const key = ['bounds', colorFormat].join('|');
    return this.cached(key, (module) => ({
      label: `debug ${key}`,
      layout: this.layout,
      vertex: { module, entryPoint: 'vsBounds', buffers: [BOUNDS_BOX_LAYOUT] },
      fragment: {
        module,
        entryPoint: 'fsBounds',
        constants: { ENCODE_SRGB: isSrgbFormat(colorFormat) ? 0 : 1 },
        targets: [{ format: colorFormat }],
      },
      primitive: { topology: 'line-list' },
      depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: false, depthCompare: 'always' },
      multisample: { count: MSAA_SAMPLE_COUNT },
    }));
  }

  /** The overlays' shader module: its WGSL is imported with the first overlay asked for, not with the page (a failed import is tried again). */
  private shaderModule(): Promise<GPUShaderModule> {
    this.module ??= import('./debug-wgsl.ts').then(
      ({ DEBUG_SHADER_SOURCE }) => this.device.createShaderModule({ label: 'mesh debug overlays', code: DEBUG_SHADER_SOURCE }),
      (error: unknown) => {
        this.module = undefined;
        throw error;
      },
    );
    return this.module;
  }

  private cached(key: string, describe: (module: GPUShaderModule) => GPURenderPipelineDescriptor): Promise<GPURenderPipeline> {
    let pipeline = this.cache.get(key);
    if (!pipeline) {
      pipeline = this.shaderModule().then((module) => this.device.createRenderPipelineAsync(describe(module)));
      // A failed creation is not cached: the next request tries again (and reports again).
      pipeline.catch(() => this.cache.delete(key));
      this.cache.set(key, pipeline);
    }
    return pipeline;
  }
}

/** The device's overlay pipelines (made on first use): every Renderer on the device shares them. */
export const debugPipelines = perDevice((device) => new DebugPipelines(device, new MeshPipelines(device)));
