import { PrimitiveMode } from '../../gltf/constants.ts';
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Material, Model, Primitive, TextureInfo } from '../../gltf/model.ts';
import { drawIndices, weldPrimitive } from '../../gltf/topology.ts';
import { ktx2UploadBudget, uploadKtx2Source } from '../textures/ktx2-texture.ts';
import { allocationLimits, checkBufferSize, GpuLimitError, maxStorageBytes, type AllocationLimits } from '../device/limits.ts';
import { createAnimatedMaterialUniforms, type AnimatedMaterialUniforms } from './material-animation.ts';
import { DEFAULT_MATERIAL } from '../layouts/material-uniforms.ts';
import type { GpuMaterial, MaterialTextures } from './material-upload.ts';
import { materialDrawing, materialPathFor } from './material-uploaders.ts';
import type { MipmapGenerator } from '../textures/mipmaps.ts';
import { packMorphDeltas, type MorphDeltaBlock } from './morph-targets.ts';
import { loadMaterialPaths, type MeshPipelines } from '../pipelines/mesh.ts';
import { buildGeometryBuffer } from './quantized-vertex.ts';
import { planVertexLayouts, vertexShapeOf, type VertexLayouts } from './vertex-layout.ts';
import {
  createImageTexture, createSolidTexture, fitImage, FLAT_NORMAL_RGBA8, samplerDescriptor, WHITE_RGBA8,
  type ImageDecoder,
} from '../textures/textures.ts';
import { decodeTextureSource, textureSourceCandidates } from '../textures/texture-sources.ts';

/**
 * A Model's meshes, materials and textures on the GPU. Upload is separate from loading
 * (the Model knows nothing of WebGPU) and from drawing (the Renderer decides what to
 * draw with which pipeline).
 *
 * Vertex buffers per primitive, at most 6 of the device's 8 slots:
 *   slot 0   the float attributes the primitive has (POSITION, NORMAL, TANGENT,
 *            TEXCOORD_0/1, COLOR_0), interleaved as the loader delivered them (floats),
 *            except normalized 8/16-bit ones (KHR_mesh_quantization), which keep their
 *            storage in unorm/snorm formats (quantized-vertex.ts)
 *   slot 1   the attributes it lacks, from one shared constant buffer with arrayStride 0
 *   then     JOINTS_0, WEIGHTS_0 (, JOINTS_1, WEIGHTS_1): the file's own arrays in their
 *            native formats (uint8x4/uint16x4, unorm8x4/unorm16x4/float32x4), unconverted.
 *            On a device with fewer vertex buffers than that (limits.ts) they share one
 *            buffer instead, interleaved per vertex in the same formats.
 *
 * Morph target deltas are not vertex attributes: every morphed primitive's block sits in
 * one storage buffer per model (`GpuModel.morphDeltas`, laid out by morph-targets.ts).
 */

/** The constant "missing attribute" values, at DefaultAttributeOffset (vertex-layout.ts). */
const DEFAULT_ATTRIBUTES = Float32Array.of(0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1);
const FLOAT_BYTES = 4;

export { jointsFormat, weightsFormat } from './vertex-layout.ts';

export function topologyOf(mode: number): GPUPrimitiveTopology {
  switch (mode) {
    case PrimitiveMode.POINTS: return 'point-list';
    case PrimitiveMode.LINES: return 'line-list';
    case PrimitiveMode.LINE_STRIP:
    case PrimitiveMode.LINE_LOOP: return 'line-strip';
    case PrimitiveMode.TRIANGLE_STRIP: return 'triangle-strip';
    default: return 'triangle-list'; // TRIANGLES, and TRIANGLE_FAN after conversion
  }
}

/** A primitive on the GPU; its layouts (VertexLayouts: slots, keys) index `vertexBuffers`. */
export interface GpuPrimitive extends VertexLayouts {
  readonly label: string;
  /**
   * The primitive its buffers hold (weldPrimitive): the model's own, or its welded copy, whose
   * `indices[v]` is the vertex that the model's vertex v became. Vertex counts and per-vertex
   * data of the GPU buffers (preskin.ts, debug views) come from here, not from the model.
   */
  readonly source: Primitive;
  /** Vertex buffer per slot (see the module comment), with the range bound from each. */
  readonly vertexBuffers: readonly GPUBuffer[];
  readonly vertexOffsets: readonly number[];
  readonly vertexSizes: readonly number[];
  readonly indexBuffer: GPUBuffer | undefined;
  readonly indexFormat: GPUIndexFormat | undefined;
  /** Indices (indexed) or vertices (non-indexed) to draw. */
  readonly drawCount: number;
  /** Vertices in the vertex buffers. */
  readonly vertexCount: number;
  /** Bytes per vertex of the primitive's own vertex buffers (the shared defaults buffer not counted). */
  readonly bytesPerVertex: number;
  readonly topology: GPUPrimitiveTopology;
  readonly influences: 0 | 4 | 8;
  readonly hasNormals: boolean;
  readonly hasTangents: boolean;
  /** Index into GpuModel.materials (the default material is the last entry). */
  readonly material: number;
  /** Centre of the POSITION bounding box, in mesh space (for back-to-front sorting). */
  readonly center: Float32Array;
  /** Half the diagonal of that box. */
  readonly radius: number;
  /** Morph targets in `GpuModel.morphDeltas` (0: none the GPU applies). */
  readonly morphTargets: number;
  /** DrawFlag.MORPH_* bits of the attributes its deltas hold (0 without morph targets). */
  readonly morphFlags: number;
  /** First float of its delta block in `GpuModel.morphDeltas`. */
  readonly morphBase: number;
}

export type { GpuMaterial } from './material-upload.ts';

export interface GpuModel {
  readonly model: Model;
  /** By mesh, then primitive. */
  readonly primitives: readonly (readonly GpuPrimitive[])[];
  /** One per model material, then the glTF default material. */
  readonly materials: readonly GpuMaterial[];
  /**
   * Every morphed primitive's delta block (morph-targets.ts), read-only storage; a few
   * zero bytes when the model has none (a storage binding cannot be empty).
   */
  readonly morphDeltas: GPUBuffer;
  /** What the upload had to change to fit the device (e.g. a texture downscaled), by glTF path. */
  readonly warnings: readonly GltfWarning[];
  /** Vertex buffer bytes per vertex over every primitive (GpuPrimitive.bytesPerVertex weighted by vertices). */
  readonly bytesPerVertex: number;
  /** The uniforms of the materials KHR_animation_pointer clips animate; absent when none are. */
  readonly animatedMaterialUniforms?: AnimatedMaterialUniforms;
  /** Frees every buffer and texture this upload created (shared resources stay). */
  destroy(): void;
}

/** Per-device resources every upload shares: created once by the Renderer. */
export interface UploadContext {
  readonly device: GPUDevice;
  readonly pipelines: MeshPipelines;
  readonly mipmaps: MipmapGenerator;
  readonly imageDecoder: ImageDecoder;
  readonly defaults: DefaultResources;
  /** What to allocate against; default the device's own limits. */
  readonly limits?: AllocationLimits;
  /** Draw MToon materials with the MToon path (default); false: their glTF fallback (RenderSettings.mtoon). */
  readonly mtoon?: boolean;
}

export interface DefaultResources {
  /** The constant attribute values (`DefaultAttributeOffset`), read with arrayStride 0. */
  readonly attributes: GPUBuffer;
  readonly whiteSrgb: GPUTexture;
  readonly whiteLinear: GPUTexture;
  readonly flatNormal: GPUTexture;
  /** glTF's default sampler: repeat, trilinear. */
  readonly sampler: GPUSampler;
  destroy(): void;
}

export function createDefaultResources(device: GPUDevice): DefaultResources {
  const attributes = createBufferWithData(device, 'default vertex attributes', DEFAULT_ATTRIBUTES, GPUBufferUsage.VERTEX);
  const whiteSrgb = createSolidTexture(device, WHITE_RGBA8, true, 'default white (sRGB)');
  const whiteLinear = createSolidTexture(device, WHITE_RGBA8, false, 'default white (linear)');
  const flatNormal = createSolidTexture(device, FLAT_NORMAL_RGBA8, false, 'default flat normal');
  const sampler = device.createSampler(samplerDescriptor(undefined, 'default sampler'));
  return {
    attributes, whiteSrgb, whiteLinear, flatNormal, sampler,
    destroy() {
      attributes.destroy();
      whiteSrgb.destroy();
      whiteLinear.destroy();
      flatNormal.destroy();
    },
  };
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** A buffer holding `data` (padded to 4 bytes), written through mappedAtCreation. */
export function createBufferWithData(device: GPUDevice, label: string, data: ArrayBufferView, usage: GPUBufferUsageFlags): GPUBuffer {
  const buffer = device.createBuffer({ label, size: Math.max(4, align4(data.byteLength)), usage, mappedAtCreation: true });
  new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  buffer.unmap();
  return buffer;
}

/** Uploads every mesh, material and texture of `model`. */
export async function uploadModel(ctx: UploadContext, model: Model, label = model.name): Promise<GpuModel> {
  const owned: { destroy(): void }[] = [];
  const limits = ctx.limits ?? allocationLimits(ctx.device);
  const warnings: GltfWarning[] = [];
  try {
    const mtoon = ctx.mtoon ?? true;
    // Both ways a material may be drawn (animated or not): the WGSL of every path it may take.
    await loadMaterialPaths(model.materials.flatMap((m) => [materialPathFor(m, mtoon, false), materialPathFor(m, mtoon, true)]));
    const animatedMaterialUniforms = createAnimatedMaterialUniforms(ctx.device, model, label, (m) => materialPathFor(m, mtoon, true));
    if (animatedMaterialUniforms) owned.push(animatedMaterialUniforms.buffer);
    const materials = await uploadMaterials(ctx, model, label, owned, limits, warnings, animatedMaterialUniforms);
    const morphs = new MorphDeltaPacker();
    const primitives = model.meshes.map((mesh, mi) => mesh.primitives.map((p, pi) => {
      const path = `meshes[${mi}].primitives[${pi}]`;
      return uploadPrimitive(ctx, limits, p, `${label} ${path}`, p.material >= 0 ? p.material : materials.length - 1, owned, morphs.add(p, path));
    }));
    const morphDeltas = morphs.upload(ctx.device, limits, `${label} morph deltas`);
    owned.push(morphDeltas);
    return {
      model, primitives, materials, morphDeltas, warnings, bytesPerVertex: meanBytesPerVertex(primitives),
      ...(animatedMaterialUniforms ? { animatedMaterialUniforms } : {}),
      destroy() {
        for (const o of owned) o.destroy();
        owned.length = 0;
      },
    };
  } catch (e) {
    for (const o of owned) o.destroy();
    throw e;
  }
}

function meanBytesPerVertex(primitives: readonly (readonly GpuPrimitive[])[]): number {
  let bytes = 0, vertices = 0;
  for (const mesh of primitives) for (const p of mesh) {
    bytes += p.bytesPerVertex * p.vertexCount;
    vertices += p.vertexCount;
  }
  return vertices > 0 ? bytes / vertices : 0;
}

/** Where a primitive's morph deltas went: its block and the float it starts at. */
interface PlacedMorphBlock {
  readonly block: MorphDeltaBlock;
  readonly base: number;
}

/** Collects the delta blocks of a model's primitives for one storage buffer. */
class MorphDeltaPacker {
  private readonly blocks: MorphDeltaBlock[] = [];
  private floats = 0;

  add(p: Primitive, path: string): PlacedMorphBlock | undefined {
    const block = packMorphDeltas(p, path);
    if (!block) return undefined;
    const placed = { block, base: this.floats };
    this.blocks.push(block);
    this.floats += block.floats.length;
    return placed;
  }

  upload(device: GPUDevice, limits: AllocationLimits, label: string): GPUBuffer {
    const bytes = this.floats * FLOAT_BYTES;
    const limit = maxStorageBytes(limits);
    if (bytes > limit) {
      throw new GpuLimitError(`${label}: ${bytes} bytes of morph target deltas exceed the device's maxStorageBufferBindingSize (${limit})`);
    }
    // Never empty: the bind group needs a buffer either way (16 bytes, one vec4 of zeros).
    const all = new Float32Array(Math.max(4, this.floats));
    let at = 0;
    for (const b of this.blocks) {
      all.set(b.floats, at);
      at += b.floats.length;
    }
    return createBufferWithData(device, label, all, GPUBufferUsage.STORAGE);
  }
}

function uploadPrimitive(
  ctx: UploadContext, limits: AllocationLimits, modelPrimitive: Primitive, label: string, material: number, owned: { destroy(): void }[], morph: PlacedMorphBlock | undefined,
): GpuPrimitive {
  const { device, defaults } = ctx;
  const p = weldPrimitive(modelPrimitive);
  const shape = vertexShapeOf(p);
  const plan = planVertexLayouts(shape, limits.maxVertexBuffers, label);

  // Slot 0: the present attributes, interleaved (quantized ones in their own formats: quantized-vertex.ts).
  const slot0 = buildGeometryBuffer(p, plan.present);
  checkBufferSize(limits, slot0.bytes.byteLength, `${label} geometry`);
  const geometry = createBufferWithData(device, `${label} geometry`, slot0.bytes, GPUBufferUsage.VERTEX);
  owned.push(geometry);

  const buffers: GPUBuffer[] = [geometry];
  const sizes: number[] = [slot0.bytes.byteLength];
  if (plan.missing.length > 0) {
    // Slot 1: every missing attribute reads the same constant for every vertex.
    buffers.push(defaults.attributes);
    sizes.push(DEFAULT_ATTRIBUTES.byteLength);
  }
  const sets = shape.skinSets.length;
  if (plan.packSkin) {
    // Too few slots for one buffer per array: all skinning attributes in one.
    const bytes = packSkinAttributes(p, sets, plan.skinnedLayouts[plan.skinnedLayouts.length - 1]);
    checkBufferSize(limits, bytes.byteLength, `${label} skinning attributes`);
    const buffer = createBufferWithData(device, `${label} skinning attributes (packed)`, bytes, GPUBufferUsage.VERTEX);
    owned.push(buffer);
    buffers.push(buffer);
    sizes.push(bytes.byteLength);
  }
  // Skinning attributes straight from the accessors.
  for (let set = 0; set < (plan.packSkin ? 0 : sets); set++) {
    const joints = p.jointSets[set];
    const weights = p.weightSets[set];
    checkBufferSize(limits, joints.array.byteLength, `${label} JOINTS_${set}`);
    checkBufferSize(limits, weights.array.byteLength, `${label} WEIGHTS_${set}`);
    const jb = createBufferWithData(device, `${label} JOINTS_${set}`, joints.array, GPUBufferUsage.VERTEX);
    const wb = createBufferWithData(device, `${label} WEIGHTS_${set}`, weights.array, GPUBufferUsage.VERTEX);
    owned.push(jb, wb);
    buffers.push(jb, wb);
    sizes.push(joints.array.byteLength, weights.array.byteLength);
  }

  const indices = drawIndices(p);
  let indexBuffer: GPUBuffer | undefined;
  let indexFormat: GPUIndexFormat | undefined;
  if (indices) {
    checkBufferSize(limits, indices.byteLength, `${label} indices`);
    indexBuffer = createBufferWithData(device, `${label} indices`, indices, GPUBufferUsage.INDEX);
    indexFormat = indices instanceof Uint32Array ? 'uint32' : 'uint16';
    owned.push(indexBuffer);
  }

  const center = new Float32Array(3);
  let radius2 = 0;
  if (p.vertexCount > 0) {
    for (let c = 0; c < 3; c++) {
      let lo = Infinity, hi = -Infinity;
      for (let v = 0; v < p.vertexCount; v++) {
        const x = p.positions[v * 3 + c];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      center[c] = (lo + hi) / 2;
      radius2 += ((hi - lo) / 2) ** 2;
    }
  }

  return {
    label,
    source: p,
    vertexBuffers: buffers,
    vertexOffsets: buffers.map(() => 0),
    vertexSizes: sizes,
    surfaceSlotCount: plan.surfaceSlotCount,
    rigidLayouts: plan.rigidLayouts,
    skinnedLayouts: plan.skinnedLayouts,
    rigidLayoutKey: plan.rigidLayoutKey,
    skinnedLayoutKey: plan.skinnedLayoutKey,
    leanRigidLayouts: plan.leanRigidLayouts,
    leanSkinnedLayouts: plan.leanSkinnedLayouts,
    indexBuffer,
    indexFormat,
    drawCount: indices ? indices.length : p.vertexCount,
    vertexCount: p.vertexCount,
    bytesPerVertex: plan.skinnedLayouts.reduce((sum, l, slot) => sum + (buffers[slot] === defaults.attributes ? 0 : l.arrayStride), 0),
    topology: topologyOf(p.mode),
    influences: p.influences,
    hasNormals: p.normals !== undefined,
    hasTangents: p.normals !== undefined && p.tangents !== undefined,
    material,
    center,
    radius: Math.sqrt(radius2),
    morphTargets: morph ? morph.block.targets : 0,
    morphFlags: morph ? morph.block.flags : 0,
    morphBase: morph ? morph.base : 0,
  };
}

/** Every skinning attribute of `p` in one vertex buffer, interleaved per vertex as `layout` (vertex-layout.ts) places them. */
function packSkinAttributes(p: Primitive, sets: number, layout: GPUVertexBufferLayout): Uint8Array {
  const arrays: Uint8Array[] = [];
  for (let set = 0; set < sets; set++) arrays.push(bytesOf(p.jointSets[set].array), bytesOf(p.weightSets[set].array));
  const attributes = [...layout.attributes];
  const stride = layout.arrayStride;
  const bytes = new Uint8Array(p.vertexCount * stride);
  arrays.forEach((a, k) => {
    const offset = attributes[k].offset;
    const size = (k + 1 < attributes.length ? attributes[k + 1].offset : stride) - offset;
    for (let v = 0; v < p.vertexCount; v++) bytes.set(a.subarray(v * size, (v + 1) * size), v * stride + offset);
  });
  return bytes;
}

/** What a sampler does (its descriptor without the label): equal keys sample alike. */
function samplerKey(d: GPUSamplerDescriptor): string {
  return `${d.addressModeU} ${d.addressModeV} ${d.magFilter} ${d.minFilter} ${d.mipmapFilter} ${d.lodMaxClamp ?? '-'}`;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

async function uploadMaterials(
  ctx: UploadContext, model: Model, label: string, owned: { destroy(): void }[], limits: AllocationLimits, warnings: GltfWarning[],
  animated: AnimatedMaterialUniforms | undefined,
): Promise<GpuMaterial[]> {
  const { device, defaults } = ctx;
  const textures = new Map<string, GPUTexture>();
  // Samplers of equal settings are one GPUSampler (a material's extension textures share one
  // binding, model/pbr-extensions-material.ts, and files often repeat a sampler per texture).
  const samplers = new Map<string, GPUSampler>([[samplerKey(samplerDescriptor(undefined, '')), defaults.sampler]]);
  const ktx2Budget = ktx2UploadBudget(model);

  const textureView = async (info: TextureInfo | undefined, srgb: boolean, fallback: GPUTexture, usedAt: string): Promise<GPUTextureView> => {
    const candidates = info ? textureSourceCandidates(model, info.index) : [];
    if (candidates.length === 0) return fallback.createView({ label: `${fallback.label} for ${usedAt}` });
    const key = `${candidates.join(',')}:${srgb ? 'srgb' : 'linear'}`;
    let texture = textures.get(key);
    if (!texture) {
      // KHR_texture_basisu: KTX2 sources are transcoded, not decoded (ktx2-texture.ts).
      const ktx2 = await uploadKtx2Source(device, model, candidates, srgb, limits.maxTextureDimension2D, label, usedAt, warnings, ktx2Budget);
      if ('texture' in ktx2) {
        textures.set(key, ktx2.texture);
        owned.push(ktx2.texture);
        return ktx2.texture.createView({ label: `${ktx2.texture.label} for ${usedAt}` });
      }
      const { image: decoded, source } = await decodeTextureSource(model, ktx2.rest, ctx.imageDecoder, label, usedAt, warnings);
      const image = model.images[source];
      const fitted = await fitImage(decoded, limits.maxTextureDimension2D, srgb);
      if (fitted !== decoded && !warnings.some((w) => w.path === `images[${source}]`)) {
        warnings.push({
          path: `images[${source}]`,
          message: `${decoded.width}×${decoded.height} exceeds the device's maxTextureDimension2D (${limits.maxTextureDimension2D}); downscaled to ${fitted.width}×${fitted.height}`,
        });
      }
      texture = createImageTexture(device, ctx.mipmaps, fitted, srgb, `${label} images[${source}]${image.name ? ` "${image.name}"` : ''} (${srgb ? 'sRGB' : 'linear'})`);
      textures.set(key, texture);
      owned.push(texture);
    }
    return texture.createView({ label: `${texture.label} for ${usedAt}` });
  };
  const sampler = (info: TextureInfo | undefined): GPUSampler => {
    const index = info ? model.textures[info.index].sampler : -1;
    if (index < 0) return defaults.sampler;
    const descriptor = samplerDescriptor(model.samplers[index], `${label} samplers[${index}]`);
    const key = samplerKey(descriptor);
    let s = samplers.get(key);
    if (!s) {
      s = device.createSampler(descriptor);
      samplers.set(key, s);
    }
    return s;
  };

  const warn = (path: string, message: string) => {
    if (!warnings.some((w) => w.path === path && w.message === message)) warnings.push({ path, message });
  };
  const materialTextures: MaterialTextures = { device, defaults, view: textureView, sampler, warn };
  const all: { material: Material; path: string }[] = model.materials.map((material, i) => ({ material, path: `materials[${i}]` }));
  all.push({ material: DEFAULT_MATERIAL, path: 'default material' });
  const out: GpuMaterial[] = [];
  for (const [mi, { material, path }] of all.entries()) {
    const matLabel = `${label} ${path}${material.name ? ` "${material.name}"` : ''}`;
    // KHR_animation_pointer: an animated material's uniforms live in the shared, rewritten buffer.
    const slot = animated ? animated.materials.indexOf(mi) : -1;
    const { path: materialPath, uploader, drawn, features, blending } = materialDrawing(material, ctx.mtoon ?? true, { device, animated: slot >= 0, warn }, path);
    let uniformBuffer: GPUBuffer;
    let base = 0;
    if (animated && slot >= 0) {
      uniformBuffer = animated.buffer;
      base = slot * animated.stride;
    } else {
      uniformBuffer = createBufferWithData(device, `${matLabel} uniforms`, new Uint8Array(uploader.pack(drawn)), GPUBufferUsage.UNIFORM);
      owned.push(uniformBuffer);
    }
    const entries: GPUBindGroupEntry[] = [
      { binding: 0, resource: { buffer: uniformBuffer, offset: base, size: uploader.uniformsSize } },
      ...(uploader.uniformBlocks ?? []).map((b) => ({ binding: b.binding, resource: { buffer: uniformBuffer, offset: base + b.offset, size: b.size } })),
      ...await uploader.textureEntries(drawn, materialTextures, path),
    ];
    out.push({
      label: matLabel,
      alphaMode: material.alphaMode,
      doubleSided: material.doubleSided,
      path: materialPath,
      features,
      blending,
      material,
      uniformBuffer,
      bindGroup: device.createBindGroup({ label: matLabel, layout: ctx.pipelines.materialLayout(materialPath, features), entries }),
    });
  }
  return out;
}
