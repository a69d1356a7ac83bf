/**
 * The directional key light's shadow map (RenderSettings.shadows).
 *
 * One depth-only pass per frame, before the lit pass, from an orthographic light camera
 * fitted to the shadow casters' bounds. It draws every opaque or masked triangle draw
 * with the mesh shader's own vertex stages (vsRigid / vsSkin4 / vsSkin8, or vsPreskinned
 * for the compute path): the same morph, skinning and camera-relative model matrix as the
 * lit pass, with a second FrameUniforms whose `viewProjection` is the light's. No fragment
 * stage. The lit pass then samples the map with 3×3 PCF taps (mesh.wgsl keyLightVisibility).
 *
 * Fitting: at load, every skin joint gets a reach — the farthest any vertex it influences
 * sits from it (|inverseBind · p|, plus the largest morph displacement), and every rigid
 * primitive a bounding sphere. Per frame the casters' box is the joints' world positions
 * grown by their reach (times the joint's largest axis scale) and the rigid spheres; no
 * vertex is touched. The light's box is that box's bounding sphere, its radius rounded up
 * to steps of 2^¼ and its centre snapped to whole texels in light space, so the map only
 * shimmers when a step changes.
 */
import type { ModelInstance } from '../../anim/instance.ts';
import type { Model } from '../../gltf/model.ts';
import { weldPrimitive } from '../../gltf/topology.ts';
import { length3, maxAxisScale, multiplyMat4 } from '../../math/trs.ts';
import { lookAtView, orthographicProjection } from '../../math/view-projection.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import { FRAME_UNIFORMS_SIZE, FrameUniformsData } from '../layouts/frame-uniforms.ts';
import { INDIRECT_ARGS_BYTES } from '../layouts/cull.ts';
import type { GpuPrimitive } from '../model/upload.ts';
import { BindGroup, FrameBinding } from '../layouts/bindings.ts';
import { perDevice } from '../device/per-device.ts';
import { meshPipelineKey, MeshPipelines, skinningConstants, VERTEX_ENTRY_POINT, type MeshPipelineDesc } from '../pipelines/mesh.ts';

export const SHADOW_MAP_FORMAT: GPUTextureFormat = 'depth32float';
export const DEFAULT_SHADOW_MAP_SIZE = 2048;
/** Texels the receiver moves along its normal before the lookup. */
const NORMAL_OFFSET_TEXELS = 1.5;
/** Receiver depth bias, in texels' worth of depth (the light box is as deep as it is wide). */
const RECEIVER_BIAS_TEXELS = 1;
/** Rasteriser bias of the casters (constant units, and per unit of depth slope). */
const CASTER_DEPTH_BIAS = 2;
const CASTER_SLOPE_BIAS = 1.5;
/** The light's radius is rounded up to a power of this (fewer resolution changes while animating). */
const RADIUS_STEP = Math.SQRT2 ** 0.5;

/** What the shadow pass needs of one of the Renderer's draws. */
export interface ShadowDraw {
  readonly primitive: GpuPrimitive;
  readonly desc: MeshPipelineDesc;
  readonly vertexSlots: number;
  readonly nodeSlot: number;
}

/** Load-time reach of a model's shadow casters (see the module comment). */
export interface ShadowCasterBounds {
  /** Slots of every skinned mesh node's joints, back to back. */
  readonly jointSlots: Int32Array;
  /** Per entry of `jointSlots`: the farthest an influenced vertex sits from the joint (joint units). */
  readonly jointReach: Float32Array;
  /** Slots of the mesh nodes of rigid primitives. */
  readonly rigidSlots: Int32Array;
  /** Per rigid primitive: centre xyz and radius in its mesh node's space. */
  readonly rigidSpheres: Float32Array;
}

/** Builds the casters' reach of `model` (load time, allocates). */
export function createShadowCasterBounds(model: Model): ShadowCasterBounds {
  const jointSlots: number[] = [];
  const jointReach: number[] = [];
  const rigidSlots: number[] = [];
  const rigidSpheres: number[] = [];
  for (const mn of model.meshNodes) {
    const slot = model.hierarchy.slotOf[mn.node];
    const skin = mn.skin >= 0 ? model.skins[mn.skin] : undefined;
    const base = jointReach.length;
    if (skin) {
      for (let j = 0; j < skin.joints.length; j++) {
        jointSlots.push(skin.jointSlots[j]);
        jointReach.push(-1);
      }
    }
    for (const modelPrim of model.meshes[mn.mesh].primitives) {
      // Each distinct vertex once (the upload's weld): the same reach and spheres.
      const prim = weldPrimitive(modelPrim);
      let morph = 0;
      for (const t of prim.targets) {
        let largest = 0;
        const d = t.positions;
        if (d) for (let v = 0; v < prim.vertexCount; v++) largest = Math.max(largest, Math.hypot(d[v * 3], d[v * 3 + 1], d[v * 3 + 2]));
        morph += largest;
      }
      const p = prim.positions;
      if (skin && prim.influences > 0 && prim.joints && prim.weights) {
        const ibm = skin.inverseBindMatrices;
        for (let v = 0; v < prim.vertexCount; v++) {
          const x = p[v * 3], y = p[v * 3 + 1], z = p[v * 3 + 2];
          for (let k = 0; k < prim.influences; k++) {
            if (!(prim.weights[v * prim.influences + k] > 0)) continue;
            const j = prim.joints[v * prim.influences + k];
            const o = j * 16;
            const qx = ibm[o] * x + ibm[o + 4] * y + ibm[o + 8] * z + ibm[o + 12];
            const qy = ibm[o + 1] * x + ibm[o + 5] * y + ibm[o + 9] * z + ibm[o + 13];
            const qz = ibm[o + 2] * x + ibm[o + 6] * y + ibm[o + 10] * z + ibm[o + 14];
            // The morph displacement goes through the inverse bind matrix too; its scale is
            // covered by the largest column length.
            const scale = Math.max(Math.hypot(ibm[o], ibm[o + 1], ibm[o + 2]), Math.hypot(ibm[o + 4], ibm[o + 5], ibm[o + 6]), Math.hypot(ibm[o + 8], ibm[o + 9], ibm[o + 10]));
            jointReach[base + j] = Math.max(jointReach[base + j], Math.hypot(qx, qy, qz) + morph * scale);
          }
        }
      } else if (prim.vertexCount > 0) {
        const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
        for (let v = 0; v < prim.vertexCount; v++) {
          for (let c = 0; c < 3; c++) {
            lo[c] = Math.min(lo[c], p[v * 3 + c]);
            hi[c] = Math.max(hi[c], p[v * 3 + c]);
          }
        }
        rigidSlots.push(slot);
        const sphere = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2, Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2 + morph];
        rigidSpheres.push(...(mn.instances ? instancesSphere(sphere, mn.instances) : sphere));
      }
    }
  }
  return {
    jointSlots: Int32Array.from(jointSlots), jointReach: Float32Array.from(jointReach),
    rigidSlots: Int32Array.from(rigidSlots), rigidSpheres: Float32Array.from(rigidSpheres),
  };
}

/**
 * A sphere (centre xyz, radius) through every EXT_mesh_gpu_instancing instance matrix,
 * enclosed in one sphere in the node's space: around the centre of the instances' boxes,
 * out to the farthest instance sphere. Load time.
 */
function instancesSphere(sphere: readonly number[], instances: Float64Array): number[] {
  const count = instances.length / 16;
  const placed = new Float64Array(count * 4);
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let k = 0; k < count; k++) {
    const o = k * 16;
    for (let r = 0; r < 3; r++) {
      const c = instances[o + r] * sphere[0] + instances[o + 4 + r] * sphere[1] + instances[o + 8 + r] * sphere[2] + instances[o + 12 + r];
      placed[k * 4 + r] = c;
      lo[r] = Math.min(lo[r], c);
      hi[r] = Math.max(hi[r], c);
    }
    placed[k * 4 + 3] = sphere[3] * maxAxisScale(instances, o);
  }
  const centre = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
  let radius = 0;
  for (let k = 0; k < count; k++) {
    const q = k * 4;
    radius = Math.max(radius, Math.hypot(placed[q] - centre[0], placed[q + 1] - centre[1], placed[q + 2] - centre[2]) + placed[q + 3]);
  }
  return [centre[0], centre[1], centre[2], radius];
}

const point = new Float64Array(3);

/** `point` = (placement ·) node matrix's translation, or of (x, y, z) through it, minus `eye`. */
function placePoint(m: ArrayLike<number>, o: number, x: number, y: number, z: number, placement: ArrayLike<number> | undefined, po: number, eye: ArrayLike<number>): void {
  const wx = m[o] * x + m[o + 4] * y + m[o + 8] * z + m[o + 12];
  const wy = m[o + 1] * x + m[o + 5] * y + m[o + 9] * z + m[o + 13];
  const wz = m[o + 2] * x + m[o + 6] * y + m[o + 10] * z + m[o + 14];
  if (placement) {
    for (let r = 0; r < 3; r++) point[r] = placement[po + r] * wx + placement[po + 4 + r] * wy + placement[po + 8 + r] * wz + placement[po + 12 + r] - eye[r];
  } else {
    point[0] = wx - eye[0];
    point[1] = wy - eye[1];
    point[2] = wz - eye[2];
  }
}

/** Grows the box to hold the sphere around `point`. */
function growBox(outMin: Float64Array, outMax: Float64Array, radius: number): void {
  for (let c = 0; c < 3; c++) {
    outMin[c] = Math.min(outMin[c], point[c] - radius);
    outMax[c] = Math.max(outMax[c], point[c] + radius);
  }
}

/**
 * The camera-relative box (outMin, outMax) holding every caster of `count` instances:
 * joints grown by their reach, rigid primitives' spheres. Returns false when there is
 * nothing. Allocates nothing.
 */
export function shadowCasterBox(
  bounds: ShadowCasterBounds, instances: readonly ModelInstance[], count: number,
  placements: ArrayLike<number> | undefined, eye: ArrayLike<number>, outMin: Float64Array, outMax: Float64Array,
): boolean {
  outMin.fill(Infinity);
  outMax.fill(-Infinity);
  for (let k = 0; k < count; k++) {
    const m = instances[k].nodeMatrices;
    const po = k * 16;
    const placementScale = placements ? maxAxisScale(placements, po) : 1;
    for (let j = 0; j < bounds.jointSlots.length; j++) {
      const reach = bounds.jointReach[j];
      if (reach < 0) continue;
      const o = bounds.jointSlots[j] * 16;
      placePoint(m, o, 0, 0, 0, placements, po, eye);
      growBox(outMin, outMax, reach * maxAxisScale(m, o) * placementScale);
    }
    for (let r = 0; r < bounds.rigidSlots.length; r++) {
      const o = bounds.rigidSlots[r] * 16;
      const s = bounds.rigidSpheres;
      placePoint(m, o, s[r * 4], s[r * 4 + 1], s[r * 4 + 2], placements, po, eye);
      growBox(outMin, outMax, s[r * 4 + 3] * maxAxisScale(m, o) * placementScale);
    }
  }
  return outMin[0] <= outMax[0];
}

const UP_Y = Float32Array.of(0, 1, 0);
const UP_Z = Float32Array.of(0, 0, 1);
const ORIGIN = new Float32Array(3);

/**
 * The light's camera-relative view-projection for casters within the sphere (centre,
 * radius) lit from direction `towardsLight` (unit), into `dst` (16 floats); the sphere's
 * radius rounded up to a power of RADIUS_STEP and its centre snapped to whole texels of a
 * `size`² map. Returns the texel size in world units. Uses `scratch` (32 floats).
 */
export function fitLight(
  center: ArrayLike<number>, radius: number, towardsLight: Float32Array, size: number, dst: Float32Array, scratch: Float32Array,
): number {
  const r = RADIUS_STEP ** Math.ceil(Math.log(Math.max(radius, 1e-6)) / Math.log(RADIUS_STEP));
  const view = scratch.subarray(0, 16);
  const projection = scratch.subarray(16, 32);
  // Looking along −towardsLight, the light at the origin (the ortho box places it).
  lookAtView(towardsLight, ORIGIN, Math.abs(towardsLight[1]) > 0.99 ? UP_Z : UP_Y, view);
  view[12] = 0;
  view[13] = 0;
  view[14] = 0;
  const texel = (2 * r) / size;
  const cx = Math.round((view[0] * center[0] + view[4] * center[1] + view[8] * center[2]) / texel) * texel;
  const cy = Math.round((view[1] * center[0] + view[5] * center[1] + view[9] * center[2]) / texel) * texel;
  const cz = view[2] * center[0] + view[6] * center[1] + view[10] * center[2];
  // View-space z of the sphere runs cz − r … cz + r; near/far are distances along −z.
  orthographicProjection(cx - r, cx + r, cy - r, cy + r, -cz - r, -cz + r, projection);
  multiplyMat4(projection, view, dst);
  return texel;
}

/**
 * The shadow pass's pipelines, one cache per device (every Renderer on it shares them, as
 * they share the mesh pipelines whose vertex stages these reuse).
 */
export class ShadowCasterPipelines {
  /** Group 0 of the shadow pass: its own FrameUniforms, read by the vertex stage alone. */
  readonly frameLayout: GPUBindGroupLayout;
  private readonly pipelineLayout: GPUPipelineLayout;
  private readonly module: GPUShaderModule;
  private readonly cache = new Map<string, Promise<GPURenderPipeline>>();

  constructor(private readonly device: GPUDevice) {
    const mesh = new MeshPipelines(device);
    this.module = mesh.module;
    this.frameLayout = device.createBindGroupLayout({
      label: 'shadow frame (group 0)',
      entries: [{ binding: FrameBinding.UNIFORMS, visibility: GPUShaderStage.VERTEX, buffer: { type: 'uniform', minBindingSize: FRAME_UNIFORMS_SIZE } }],
    });
    this.pipelineLayout = device.createPipelineLayout({
      label: 'shadow casters',
      bindGroupLayouts: [this.frameLayout, mesh.skinLayout],
    });
  }

  /**
   * The depth-only pipeline of a draw, or null for draws that cast no shadow (blended
   * materials; points and lines). `vertexEntry` overrides the draw's vertex stage (the
   * compute path's vsPreskinned with its own buffer layouts).
   */
  pipeline(desc: MeshPipelineDesc, skinning: SkinningMethod, vertexEntry?: string, vertexLayouts?: readonly GPUVertexBufferLayout[]): Promise<GPURenderPipeline> | null {
    if (desc.alphaMode === 'BLEND' || !desc.topology.startsWith('triangle')) return null;
    const entryPoint = vertexEntry ?? VERTEX_ENTRY_POINT[desc.influences];
    const readsPalette = desc.influences > 0 && vertexEntry === undefined;
    const key = `shadow|${entryPoint}|${meshPipelineKey({ ...desc, skinning: readsPalette ? skinning : undefined, alphaMode: 'OPAQUE', doubleSided: true, frontFace: 'ccw', colorFormat: 'r8unorm', variant: 'shaded' })}|${vertexLayouts ? 'own-layouts' : ''}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.device.createRenderPipelineAsync({
        label: key,
        layout: this.pipelineLayout,
        vertex: {
          module: this.module,
          entryPoint,
          buffers: (vertexLayouts ?? desc.vertexLayouts) as GPUVertexBufferLayout[],
          constants: skinningConstants(readsPalette, skinning, {}),
        },
        primitive: { topology: desc.topology, stripIndexFormat: desc.stripIndexFormat, cullMode: 'none' },
        depthStencil: {
          format: SHADOW_MAP_FORMAT,
          depthWriteEnabled: true,
          depthCompare: 'less',
          depthBias: CASTER_DEPTH_BIAS,
          depthBiasSlopeScale: CASTER_SLOPE_BIAS,
        },
      });
      this.cache.set(key, p);
      p.catch(() => this.cache.delete(key));
    }
    return p;
  }
}

/** The device's shadow caster pipelines (made on first use). */
export const shadowCasterPipelines = perDevice((device) => new ShadowCasterPipelines(device));

/**
 * A shadow map: one per Renderer; outlives models. The map texture is created when shadows
 * are first drawn (and again when the size changes); the pipelines are the device's
 * (ShadowCasterPipelines).
 */
export class ShadowMap {
  /** The shadow pass's frame uniforms: `viewProjection` is the light's. */
  private readonly frameData = new FrameUniformsData();
  private readonly frameBuffer: GPUBuffer;
  private readonly frameBindGroup: GPUBindGroup;
  readonly sampler: GPUSampler;
  /** Bound while there is no map (shadows off): a 1×1 depth texture. */
  private readonly placeholder: GPUTexture;
  private readonly placeholderView: GPUTextureView;
  private texture: GPUTexture | undefined;
  private mapView: GPUTextureView | undefined;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly boxMin = new Float64Array(3);
  private readonly boxMax = new Float64Array(3);
  private readonly center = new Float64Array(3);
  private readonly scratch = new Float32Array(32);

  constructor(private readonly device: GPUDevice, private readonly label: string) {
    this.frameBuffer = device.createBuffer({
      label: `${label} shadow frame uniforms`,
      size: FRAME_UNIFORMS_SIZE,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.frameBindGroup = device.createBindGroup({
      label: `${label} shadow frame`,
      layout: shadowCasterPipelines(device).frameLayout,
      entries: [{ binding: FrameBinding.UNIFORMS, resource: { buffer: this.frameBuffer } }],
    });
    this.sampler = device.createSampler({
      label: `${label} shadow comparison sampler`,
      compare: 'less-equal',
      magFilter: 'linear',
      minFilter: 'linear',
      addressModeU: 'clamp-to-edge',
      addressModeV: 'clamp-to-edge',
    });
    this.placeholder = device.createTexture({
      label: `${label} shadow map placeholder 1×1`,
      size: [1, 1],
      format: SHADOW_MAP_FORMAT,
      usage: GPUTextureUsage.TEXTURE_BINDING,
    });
    this.placeholderView = this.placeholder.createView({ label: `${label} shadow map placeholder view` });
    this.depthAttachment = {
      view: this.placeholderView,
      depthClearValue: 1,
      depthLoadOp: 'clear',
      depthStoreOp: 'store',
    };
    this.passDescriptor = { label: `${label} shadow pass`, colorAttachments: [], depthStencilAttachment: this.depthAttachment };
  }

  /** What the lit pass binds: the map, or the placeholder while there is none. */
  get view(): GPUTextureView {
    return this.mapView ?? this.placeholderView;
  }

  /** The map's size in texels (0 before the first shadowed frame). */
  get size(): number {
    return this.texture?.width ?? 0;
  }

  /** The shadow map texture, if created (for tests and debugging). */
  get mapTexture(): GPUTexture | undefined {
    return this.texture;
  }

  /** Makes the map `size`² (recreating it when the size changes). */
  private ensureMap(size: number): void {
    if (this.texture && this.texture.width === size) return;
    this.texture?.destroy();
    this.texture = this.device.createTexture({
      label: `${this.label} shadow map ${size}²`,
      size: [size, size],
      format: SHADOW_MAP_FORMAT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING,
    });
    this.mapView = this.texture.createView({ label: `${this.label} shadow map view` });
    this.depthAttachment.view = this.mapView;
  }

  /**
   * Fits the light to the casters of this frame and fills the lit pass's shadow fields of
   * `frame` (and this pass's own uniforms). Returns false (shadowStrength 0) when there is
   * nothing to cast a shadow. Allocates nothing once the map exists.
   */
  fit(
    bounds: ShadowCasterBounds, instances: readonly ModelInstance[], count: number, placements: ArrayLike<number> | undefined,
    eye: ArrayLike<number>, size: number, frame: FrameUniformsData,
  ): boolean {
    frame.shadowStrength[0] = 0;
    if (!shadowCasterBox(bounds, instances, count, placements, eye, this.boxMin, this.boxMax)) return false;
    this.ensureMap(size);
    const c = this.center;
    for (let i = 0; i < 3; i++) c[i] = (this.boxMin[i] + this.boxMax[i]) / 2;
    const radius = length3(this.boxMax[0] - this.boxMin[0], this.boxMax[1] - this.boxMin[1], this.boxMax[2] - this.boxMin[2]) / 2;
    const texel = fitLight(c, radius, frame.lightDirection, size, frame.lightViewProjection, this.scratch);
    frame.shadowStrength[0] = 1;
    frame.shadowNormalOffset[0] = NORMAL_OFFSET_TEXELS * texel;
    // The depth range is the light box's width (size texels): one texel of depth is 1 / size.
    frame.shadowDepthBias[0] = RECEIVER_BIAS_TEXELS / size;
    frame.shadowTexelSize[0] = 1 / size;
    this.frameData.viewProjection.set(frame.lightViewProjection);
    this.device.queue.writeBuffer(this.frameBuffer, 0, this.frameData.buffer);
    return true;
  }

  /** Bytes `fit` writes to the GPU when it returns true (RenderStats.bytesUploaded). */
  get uniformBytes(): number {
    return this.frameData.buffer.byteLength;
  }

  /**
   * Encodes the shadow pass: every draw with a pipeline, all instances per call, with the
   * lit pass's skin bind group (palettes, records, morph deltas). `order` lists draw
   * indices; `pipelines[i]` is draw i's (null: casts none). `runs` (ModelDraws.solidRuns):
   * per entry of `order` that starts a call, how many consecutive draws it covers.
   * `indirect` (GPU culling, draw/culling-pass.ts): draw i's instance count and first record come
   * from its arguments there, at i × INDIRECT_ARGS_BYTES (runs are then 1).
   */
  encode(
    encoder: GPUCommandEncoder, draws: readonly ShadowDraw[], order: Int32Array, pipelines: readonly (GPURenderPipeline | null | undefined)[],
    skinBindGroup: GPUBindGroup, count: number, vertexSlots?: readonly number[], runs?: Int32Array, indirect?: GPUBuffer,
  ): number {
    const pass = encoder.beginRenderPass(this.passDescriptor);
    pass.setBindGroup(BindGroup.FRAME, this.frameBindGroup);
    pass.setBindGroup(BindGroup.SKIN, skinBindGroup);
    let bound: GPURenderPipeline | undefined;
    let calls = 0;
    for (let s = 0, step = 1; s < order.length; s += step) {
      step = runs ? runs[s] : 1;
      const index = order[s];
      const pipeline = pipelines[index];
      if (!pipeline) continue;
      if (pipeline !== bound) {
        pass.setPipeline(pipeline);
        bound = pipeline;
      }
      const d = draws[index];
      const p = d.primitive;
      const slots = vertexSlots ? vertexSlots[index] : d.vertexSlots;
      for (let v = 0; v < slots; v++) pass.setVertexBuffer(v, p.vertexBuffers[v], p.vertexOffsets[v], p.vertexSizes[v]);
      if (indirect) {
        if (p.indexBuffer) {
          pass.setIndexBuffer(p.indexBuffer, p.indexFormat!);
          pass.drawIndexedIndirect(indirect, index * INDIRECT_ARGS_BYTES);
        } else {
          pass.drawIndirect(indirect, index * INDIRECT_ARGS_BYTES);
        }
      } else if (p.indexBuffer) {
        pass.setIndexBuffer(p.indexBuffer, p.indexFormat!);
        pass.drawIndexed(p.drawCount, count * step, 0, 0, index * count);
      } else {
        pass.draw(p.drawCount, count * step, 0, index * count);
      }
      calls++;
    }
    pass.end();
    return calls;
  }

  destroy(): void {
    this.texture?.destroy();
    this.texture = undefined;
    this.mapView = undefined;
    this.placeholder.destroy();
    this.frameBuffer.destroy();
  }
}
