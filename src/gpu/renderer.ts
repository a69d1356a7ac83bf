import type { ModelInstance } from '../anim/instance.ts';
import type { Model } from '../gltf/model.ts';
import type { Camera } from './camera.ts';
import { DRAW_RECORD_WORDS, DrawRecordArray, DrawRecordWord, MAT3_COLUMN_WORDS } from './draw-record.ts';
import { FrameUniformsData } from './frame-uniforms.ts';
import { createDefaultResources, uploadModel, type DefaultResources, type GpuMaterial, type GpuModel, type GpuPrimitive } from './gpu-model.ts';
import { BindGroup, DEPTH_FORMAT, DrawFlag, FrameBinding, MSAA_SAMPLE_COUNT, PALETTE_MATRIX_BYTES, SkinBinding, ToneMapping } from './layouts.ts';
import { MipmapGenerator } from './mipmaps.ts';
import { isSrgbFormat, MeshPipelines } from './pipelines.ts';
import { paletteHasNonUniformScale, type SkinnedNormalMode } from './skin-normals.ts';
import { browserImageDecoder, type ImageDecoder } from './textures.ts';
import { mat4 } from 'wgpu-matrix';
import { multiplyMat4 } from '../math/trs.ts';

export interface RendererOptions {
  /**
   * Format of the views rendered into. An `-srgb` format lets the hardware encode (and
   * blend and resolve in linear light); for a plain `…unorm` format the shader encodes.
   * For a canvas use `configureCanvas(...).viewFormat`.
   */
  readonly format: GPUTextureFormat;
  /** Decodes glTF images; default `createImageBitmap` (browser). */
  readonly imageDecoder?: ImageDecoder;
  readonly label?: string;
}

/** Lighting and output settings; change them between frames. Colours are linear RGB. */
export interface RenderSettings {
  /** Multiplies the scene's linear radiance before tone mapping. */
  exposure: number;
  toneMapping: ToneMapping;
  /** Unit vector towards the key light, in view space (x right, y up, z towards the viewer) or world space. */
  readonly lightDirection: Float32Array;
  lightSpace: 'view' | 'world';
  readonly lightColor: Float32Array;
  lightIntensity: number;
  /** Hemispherical ambient: radiance from above (+Y) and below. */
  readonly skyColor: Float32Array;
  readonly groundColor: Float32Array;
  /** Background, display-referred (sRGB-encoded) RGBA with straight alpha. */
  readonly clearColor: Float32Array;
  /** See SkinnedNormalMode; 'exact' matches the CPU reference. */
  normals: SkinnedNormalMode;
}

export function defaultRenderSettings(): RenderSettings {
  return {
    exposure: 1,
    toneMapping: ToneMapping.PBR_NEUTRAL,
    lightDirection: Float32Array.of(0.45, 0.75, 0.5),
    lightSpace: 'view',
    lightColor: Float32Array.of(1, 0.98, 0.95),
    lightIntensity: 3,
    skyColor: Float32Array.of(0.42, 0.45, 0.5),
    groundColor: Float32Array.of(0.16, 0.14, 0.12),
    clearColor: Float32Array.of(0.16, 0.17, 0.19, 1),
    normals: 'exact',
  };
}

/** One draw: a primitive of a mesh node. Its index is its draw record and its firstInstance. */
interface Draw {
  readonly meshNode: number;
  /** Hierarchy slot of the mesh node (its world matrix in instance.nodeMatrices). */
  readonly nodeSlot: number;
  readonly primitive: GpuPrimitive;
  readonly material: GpuMaterial;
  readonly pipeline: GPURenderPipeline;
  readonly vertexSlots: number;
  readonly skinned: boolean;
  readonly staticFlags: number;
}

/** Everything sized by the current model. */
interface Scene {
  readonly model: Model;
  readonly gpu: GpuModel;
  readonly draws: readonly Draw[];
  /** Opaque and masked draws, grouped by pipeline then material (fixed order). */
  readonly solidOrder: Int32Array;
  /** Blended draws; re-sorted back to front every frame. */
  readonly blendOrder: Int32Array;
  readonly blendDepth: Float32Array;
  readonly records: DrawRecordArray;
  readonly drawBuffer: GPUBuffer;
  readonly paletteBuffer: GPUBuffer;
  readonly paletteBytes: number;
  readonly skinBindGroup: GPUBindGroup;
  /** Per mesh node: 1 when its palette needs exact normals this frame. */
  readonly exactNormals: Uint8Array;
}

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

const NORMAL_DETERMINANT_EPSILON = 1e-30;

/**
 * Draws one model instance per frame: 4× MSAA, depth, resolved into any texture.
 *
 * GPU data by update rate: group 0 the frame uniforms (one writeBuffer per frame),
 * group 1 the palette of every skinned mesh node back to back (one writeBuffer) and one
 * draw record per draw (one writeBuffer), group 2 per material (written once at upload).
 * `render` allocates nothing of its own: descriptors are preallocated and reused; the
 * command encoder, pass and (for a new target) its view are the only new objects.
 */
export class Renderer {
  readonly settings: RenderSettings = defaultRenderSettings();
  readonly format: GPUTextureFormat;
  /** Whether `format` encodes sRGB in hardware (else the shader does). */
  private readonly srgbTarget: boolean;
  private readonly label: string;
  private readonly pipelines: MeshPipelines;
  private readonly mipmaps: MipmapGenerator;
  private readonly defaults: DefaultResources;
  private readonly imageDecoder: ImageDecoder;
  private readonly frameData = new FrameUniformsData();
  private readonly frameBuffer: GPUBuffer;
  private readonly frameBindGroup: GPUBindGroup;
  private scene: Scene | undefined;

  // Render targets, recreated only when the output size changes.
  private msaaTexture: GPUTexture | undefined;
  private msaaView: GPUTextureView | undefined;
  private depthTexture: GPUTexture | undefined;
  private depthView: GPUTextureView | undefined;
  private lastTarget: GPUTexture | undefined;
  private lastTargetView: GPUTextureView | undefined;

  // Preallocated per-frame descriptors.
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor;
  private readonly targetViewDescriptor: GPUTextureViewDescriptor;
  private readonly commandBuffers: GPUCommandBuffer[] = [];
  private readonly clearValue = { r: 0, g: 0, b: 0, a: 1 };
  private readonly worldLight = new Float32Array(3);

  constructor(private readonly device: GPUDevice, options: RendererOptions) {
    this.format = options.format;
    this.srgbTarget = isSrgbFormat(options.format);
    this.label = options.label ?? 'renderer';
    this.imageDecoder = options.imageDecoder ?? browserImageDecoder;
    this.pipelines = new MeshPipelines(device);
    this.mipmaps = new MipmapGenerator(device);
    this.defaults = createDefaultResources(device);
    this.frameBuffer = device.createBuffer({
      label: `${this.label} frame uniforms`,
      size: this.frameData.buffer.byteLength,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.frameBindGroup = device.createBindGroup({
      label: `${this.label} frame`,
      layout: this.pipelines.frameLayout,
      entries: [{ binding: FrameBinding.UNIFORMS, resource: { buffer: this.frameBuffer } }],
    });
    this.colorAttachment = {
      view: undefined as unknown as GPUTextureView, // set every frame
      resolveTarget: undefined,
      clearValue: this.clearValue,
      loadOp: 'clear',
      storeOp: 'discard',
    };
    this.depthAttachment = {
      view: undefined as unknown as GPUTextureView,
      depthClearValue: 1,
      depthLoadOp: 'clear',
      depthStoreOp: 'discard',
    };
    this.passDescriptor = {
      label: `${this.label} pass`,
      colorAttachments: [this.colorAttachment],
      depthStencilAttachment: this.depthAttachment,
    };
    this.encoderDescriptor = { label: `${this.label} frame` };
    this.targetViewDescriptor = { label: `${this.label} target view`, format: this.format };
    this.commandBuffers.length = 1;
  }

  /** The model being drawn, if any. */
  get model(): Model | undefined {
    return this.scene?.model;
  }

  /** Pipelines created so far on this renderer (they are kept across models). */
  get pipelineCount(): number {
    return this.pipelines.size;
  }

  /**
   * Uploads `model` (buffers, textures, materials), creates the pipelines its draws need
   * and makes it the model `render` draws; frees the previous one.
   */
  async setModel(model: Model): Promise<void> {
    const gpu = await uploadModel({
      device: this.device, pipelines: this.pipelines, mipmaps: this.mipmaps,
      imageDecoder: this.imageDecoder, defaults: this.defaults,
    }, model);
    let scene: Scene;
    try {
      scene = await this.buildScene(model, gpu);
    } catch (e) {
      gpu.destroy();
      throw e;
    }
    this.releaseScene();
    this.scene = scene;
  }

  private async buildScene(model: Model, gpu: GpuModel): Promise<Scene> {
    const draws: Draw[] = [];
    const restWorld = restWorldMatrices(model);
    for (let i = 0; i < model.meshNodes.length; i++) {
      const mn = model.meshNodes[i];
      const nodeSlot = model.hierarchy.slotOf[mn.node];
      // glTF §3.7.4: a mirroring world transform flips the winding. Decided at rest.
      const mirrored = determinant3(restWorld, nodeSlot * 16) < 0;
      for (const primitive of gpu.primitives[mn.mesh]) {
        const skinned = mn.skin >= 0 && primitive.influences > 0;
        const material = gpu.materials[primitive.material];
        const pipeline = await this.pipelines.pipeline({
          vertexLayoutKey: skinned ? primitive.skinnedLayoutKey : primitive.rigidLayoutKey,
          vertexLayouts: skinned ? primitive.skinnedLayouts : primitive.rigidLayouts,
          influences: skinned ? primitive.influences : 0,
          topology: primitive.topology,
          stripIndexFormat: primitive.topology.endsWith('strip') ? primitive.indexFormat : undefined,
          alphaMode: material.alphaMode,
          doubleSided: material.doubleSided,
          frontFace: mirrored ? 'cw' : 'ccw',
          colorFormat: this.format,
        });
        draws.push({
          meshNode: i,
          nodeSlot,
          primitive,
          material,
          pipeline,
          vertexSlots: skinned ? primitive.vertexBuffers.length : primitive.surfaceSlotCount,
          skinned,
          staticFlags: (primitive.hasNormals ? 0 : DrawFlag.FLAT_NORMALS) | (primitive.hasTangents ? DrawFlag.HAS_TANGENTS : 0),
        });
      }
    }
    const pipelineIds = new Map<GPURenderPipeline, number>();
    const materialIds = new Map<GpuMaterial, number>();
    for (const d of draws) {
      if (!pipelineIds.has(d.pipeline)) pipelineIds.set(d.pipeline, pipelineIds.size);
      if (!materialIds.has(d.material)) materialIds.set(d.material, materialIds.size);
    }
    const solid: number[] = [];
    const blend: number[] = [];
    draws.forEach((d, i) => (d.material.alphaMode === 'BLEND' ? blend : solid).push(i));
    // Fewest state changes: group by pipeline, then by material.
    solid.sort((a, b) => (pipelineIds.get(draws[a].pipeline)! - pipelineIds.get(draws[b].pipeline)!)
      || (materialIds.get(draws[a].material)! - materialIds.get(draws[b].material)!) || a - b);

    let paletteMatrices = 0;
    for (const mn of model.meshNodes) if (mn.skin >= 0) paletteMatrices += model.skins[mn.skin].joints.length;
    const records = new DrawRecordArray(draws.length);
    const drawBuffer = this.device.createBuffer({
      label: `${this.label} ${model.name} draw records`,
      size: records.buffer.byteLength,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    // A storage binding cannot be empty: a model without skins still gets one matrix.
    const paletteBytes = paletteMatrices * PALETTE_MATRIX_BYTES;
    const paletteBuffer = this.device.createBuffer({
      label: `${this.label} ${model.name} joint palettes`,
      size: Math.max(PALETTE_MATRIX_BYTES, paletteBytes),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    const skinBindGroup = this.device.createBindGroup({
      label: `${this.label} ${model.name} palettes and draws`,
      layout: this.pipelines.skinLayout,
      entries: [
        { binding: SkinBinding.PALETTE, resource: { buffer: paletteBuffer } },
        { binding: SkinBinding.DRAWS, resource: { buffer: drawBuffer } },
      ],
    });
    return {
      model, gpu, draws,
      solidOrder: Int32Array.from(solid),
      blendOrder: Int32Array.from(blend),
      blendDepth: new Float32Array(draws.length),
      records, drawBuffer, paletteBuffer, paletteBytes, skinBindGroup,
      exactNormals: new Uint8Array(model.meshNodes.length),
    };
  }

  /**
   * Draws `instance` (of the current model) as seen by `camera` into `target`, which
   * must have RENDER_ATTACHMENT usage and `format` (or list it in its viewFormats).
   */
  render(target: GPUTexture, camera: Camera, instance: ModelInstance): void {
    const scene = this.scene;
    if (scene && instance.model !== scene.model) {
      throw new Error(`Renderer.render: the instance is of model "${instance.model.name}" but the renderer holds "${scene.model.name}"`);
    }
    this.ensureAttachments(target);
    camera.update(target.width / target.height);
    this.writeFrameUniforms(camera);
    const queue = this.device.queue;
    queue.writeBuffer(this.frameBuffer, 0, this.frameData.buffer);

    if (target !== this.lastTarget) {
      this.lastTarget = target;
      this.lastTargetView = target.createView(this.targetViewDescriptor);
    }
    const clear = this.settings.clearColor;
    const srgb = this.srgbTarget;
    // The clear value is stored as is; an sRGB view stores it encoded, so give it linear values.
    this.clearValue.r = (srgb ? srgbToLinear(clear[0]) : clear[0]) * clear[3];
    this.clearValue.g = (srgb ? srgbToLinear(clear[1]) : clear[1]) * clear[3];
    this.clearValue.b = (srgb ? srgbToLinear(clear[2]) : clear[2]) * clear[3];
    this.clearValue.a = clear[3];
    this.colorAttachment.view = this.msaaView!;
    this.colorAttachment.resolveTarget = this.lastTargetView;
    this.depthAttachment.view = this.depthView!;

    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    const pass = encoder.beginRenderPass(this.passDescriptor);
    if (scene && scene.draws.length > 0) {
      this.writeDrawRecords(scene, instance);
      queue.writeBuffer(scene.drawBuffer, 0, scene.records.buffer);
      if (scene.paletteBytes > 0) queue.writeBuffer(scene.paletteBuffer, 0, instance.palette.buffer, instance.palette.byteOffset, scene.paletteBytes);
      this.sortBlended(scene, instance, camera);
      pass.setBindGroup(BindGroup.FRAME, this.frameBindGroup);
      pass.setBindGroup(BindGroup.SKIN, scene.skinBindGroup);
      let pipeline: GPURenderPipeline | undefined;
      let material: GpuMaterial | undefined;
      for (let pass2 = 0; pass2 < 2; pass2++) {
        const order = pass2 === 0 ? scene.solidOrder : scene.blendOrder;
        for (let k = 0; k < order.length; k++) {
          const index = order[k];
          const d = scene.draws[index];
          if (d.pipeline !== pipeline) {
            pipeline = d.pipeline;
            pass.setPipeline(pipeline);
          }
          if (d.material !== material) {
            material = d.material;
            pass.setBindGroup(BindGroup.MATERIAL, material.bindGroup);
          }
          const p = d.primitive;
          for (let s = 0; s < d.vertexSlots; s++) pass.setVertexBuffer(s, p.vertexBuffers[s], p.vertexOffsets[s], p.vertexSizes[s]);
          if (p.indexBuffer) {
            pass.setIndexBuffer(p.indexBuffer, p.indexFormat!);
            pass.drawIndexed(p.drawCount, 1, 0, 0, index);
          } else {
            pass.draw(p.drawCount, 1, 0, index);
          }
        }
      }
    }
    pass.end();
    this.commandBuffers[0] = encoder.finish();
    queue.submit(this.commandBuffers);
  }

  private ensureAttachments(target: GPUTexture): void {
    const { width, height } = target;
    if (this.msaaTexture && this.msaaTexture.width === width && this.msaaTexture.height === height) return;
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = this.device.createTexture({
      label: `${this.label} MSAA colour ${width}×${height}`,
      size: [width, height],
      format: this.format,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.depthTexture = this.device.createTexture({
      label: `${this.label} depth ${width}×${height}`,
      size: [width, height],
      format: DEPTH_FORMAT,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.msaaView = this.msaaTexture.createView({ label: `${this.label} MSAA colour view` });
    this.depthView = this.depthTexture.createView({ label: `${this.label} depth view` });
  }

  private writeFrameUniforms(camera: Camera): void {
    const f = this.frameData;
    const s = this.settings;
    f.view.set(camera.view);
    f.projection.set(camera.projection);
    mat4.multiply(camera.projection, camera.view, f.viewProjection);
    f.cameraPosition.set(camera.position);
    f.exposure[0] = s.exposure;
    f.toneMapping[0] = s.toneMapping;
    const l = s.lightDirection;
    const w = this.worldLight;
    if (s.lightSpace === 'view') {
      // View → world for a direction: the transpose of the view matrix's rotation.
      const v = camera.view;
      w[0] = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
      w[1] = v[4] * l[0] + v[5] * l[1] + v[6] * l[2];
      w[2] = v[8] * l[0] + v[9] * l[1] + v[10] * l[2];
    } else {
      w[0] = l[0]; w[1] = l[1]; w[2] = l[2];
    }
    const len = Math.hypot(w[0], w[1], w[2]) || 1;
    f.lightDirection[0] = w[0] / len;
    f.lightDirection[1] = w[1] / len;
    f.lightDirection[2] = w[2] / len;
    for (let c = 0; c < 3; c++) f.lightColor[c] = s.lightColor[c] * s.lightIntensity;
    f.skyColor.set(s.skyColor);
    f.groundColor.set(s.groundColor);
  }

  private writeDrawRecords(scene: Scene, instance: ModelInstance): void {
    const { model, records, exactNormals } = scene;
    const m = instance.nodeMatrices;
    const exactAlways = this.settings.normals === 'exact';
    for (let i = 0; i < model.meshNodes.length; i++) {
      const offset = instance.paletteOffsets[i];
      exactNormals[i] = exactAlways || (offset >= 0
        && paletteHasNonUniformScale(instance.palette, offset, model.skins[model.meshNodes[i].skin].joints.length)) ? 1 : 0;
    }
    const f32 = records.f32;
    const u32 = records.u32;
    for (let i = 0; i < scene.draws.length; i++) {
      const d = scene.draws[i];
      const base = i * DRAW_RECORD_WORDS;
      const o = d.nodeSlot * 16;
      const mo = base + DrawRecordWord.MODEL;
      for (let k = 0; k < 16; k++) f32[mo + k] = m[o + k];
      // Normal matrix = M⁻ᵀ = cofactor(M) / det; columns b×c, c×a, a×b of the 3×3 (a, b, c its columns).
      const a0 = m[o], a1 = m[o + 1], a2 = m[o + 2];
      const b0 = m[o + 4], b1 = m[o + 5], b2 = m[o + 6];
      const c0 = m[o + 8], c1 = m[o + 9], c2 = m[o + 10];
      const x0 = b1 * c2 - b2 * c1, x1 = b2 * c0 - b0 * c2, x2 = b0 * c1 - b1 * c0;
      const det = a0 * x0 + a1 * x1 + a2 * x2;
      const inv = Math.abs(det) > NORMAL_DETERMINANT_EPSILON ? 1 / det : 1;
      const no = base + DrawRecordWord.NORMAL_MATRIX;
      f32[no] = x0 * inv; f32[no + 1] = x1 * inv; f32[no + 2] = x2 * inv;
      f32[no + MAT3_COLUMN_WORDS] = (c1 * a2 - c2 * a1) * inv;
      f32[no + MAT3_COLUMN_WORDS + 1] = (c2 * a0 - c0 * a2) * inv;
      f32[no + MAT3_COLUMN_WORDS + 2] = (c0 * a1 - c1 * a0) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS] = (a1 * b2 - a2 * b1) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS + 1] = (a2 * b0 - a0 * b2) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS + 2] = (a0 * b1 - a1 * b0) * inv;
      const paletteOffset = instance.paletteOffsets[d.meshNode];
      u32[base + DrawRecordWord.PALETTE_OFFSET] = d.skinned && paletteOffset >= 0 ? paletteOffset : 0;
      u32[base + DrawRecordWord.FLAGS] = d.staticFlags | (d.skinned && exactNormals[d.meshNode] ? DrawFlag.EXACT_NORMALS : 0);
    }
  }

  /** Back to front by view-space depth of each draw's bounds centre; insertion sort, nearly sorted from the last frame. */
  private sortBlended(scene: Scene, instance: ModelInstance, camera: Camera): void {
    const order = scene.blendOrder;
    if (order.length < 2) return;
    const depth = scene.blendDepth;
    const m = instance.nodeMatrices;
    const v = camera.view;
    for (let k = 0; k < order.length; k++) {
      const d = scene.draws[order[k]];
      const c = d.primitive.center;
      const o = d.nodeSlot * 16;
      const x = m[o] * c[0] + m[o + 4] * c[1] + m[o + 8] * c[2] + m[o + 12];
      const y = m[o + 1] * c[0] + m[o + 5] * c[1] + m[o + 9] * c[2] + m[o + 13];
      const z = m[o + 2] * c[0] + m[o + 6] * c[1] + m[o + 10] * c[2] + m[o + 14];
      // View-space z: more negative is farther away.
      depth[order[k]] = v[2] * x + v[6] * y + v[10] * z + v[14];
    }
    for (let k = 1; k < order.length; k++) {
      const index = order[k];
      const z = depth[index];
      let j = k - 1;
      while (j >= 0 && depth[order[j]] > z) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = index;
    }
  }

  private releaseScene(): void {
    const scene = this.scene;
    if (!scene) return;
    scene.gpu.destroy();
    scene.drawBuffer.destroy();
    scene.paletteBuffer.destroy();
    this.scene = undefined;
  }

  /** Frees every GPU object this renderer created. The device stays alive. */
  destroy(): void {
    this.releaseScene();
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = undefined;
    this.depthTexture = undefined;
    this.lastTarget = undefined;
    this.lastTargetView = undefined;
    this.frameBuffer.destroy();
    this.defaults.destroy();
  }
}

/** World matrices of the rest pose, by slot (load time). */
function restWorldMatrices(model: Model): Float64Array {
  const h = model.hierarchy;
  const out = new Float64Array(h.count * 16);
  for (let slot = 0; slot < h.count; slot++) {
    const parent = h.parentSlot[slot];
    if (parent < 0) {
      out.set(h.restMatrix.subarray(slot * 16, slot * 16 + 16), slot * 16);
    } else {
      multiplyMat4(out, h.restMatrix, out, parent * 16, slot * 16, slot * 16);
    }
  }
  return out;
}

function determinant3(m: Float64Array, o: number): number {
  return m[o] * (m[o + 5] * m[o + 10] - m[o + 6] * m[o + 9])
    - m[o + 4] * (m[o + 1] * m[o + 10] - m[o + 2] * m[o + 9])
    + m[o + 8] * (m[o + 1] * m[o + 6] - m[o + 2] * m[o + 5]);
}

