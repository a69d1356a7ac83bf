/**
 * What the upload (model/upload.ts) asks of a material path to put one material on the GPU: its
 * uniforms, its feature bits and its textures' bind group entries. Each path answers in a
 * module of its own (pbr-material.ts, mtoon-material.ts); the upload caches textures and
 * samplers for all of them and makes the bind group with the path's layout.
 */
import type { Material, TextureInfo } from '../../gltf/model.ts';
import type { AlphaMode } from '../pipelines/mesh.ts';
import type { MaterialPathName } from '../pipelines/material-path.ts';

export interface GpuMaterial {
  readonly label: string;
  readonly alphaMode: AlphaMode;
  readonly doubleSided: boolean;
  /** The material path it is drawn with (MeshPipelineDesc.materialPath). */
  readonly path: MaterialPathName;
  /** Where a BLEND material is drawn among the blended ones, and whether it writes depth (MaterialUploader.blending). */
  readonly blending: BlendOrder;
  /** The path's feature bits of what it uses (MeshPipelineDesc.materialFeatures). */
  readonly features: number;
  /** The model material (or the glTF default material) it was made from. */
  readonly material: Material;
  /** Its own, or for an animated material the shared one (GpuModel.animatedMaterialUniforms). */
  readonly uniformBuffer: GPUBuffer;
  readonly bindGroup: GPUBindGroup;
}

/** The shared defaults a material binds where it has no texture of its own. */
export interface DefaultTextures {
  readonly whiteSrgb: GPUTexture;
  readonly whiteLinear: GPUTexture;
  readonly flatNormal: GPUTexture;
}

/** The upload's texture and sampler caches, lent to a path's uploader. */
export interface MaterialTextures {
  readonly device: GPUDevice;
  readonly defaults: DefaultTextures;
  /** Records a warning (by JSON path), as the upload's others. */
  warn(path: string, message: string): void;
  /** A view of `info`'s texture (decoded and uploaded once per model), or of `fallback` without one. `usedAt` names the slot in labels and warnings. */
  view(info: TextureInfo | undefined, srgb: boolean, fallback: GPUTexture, usedAt: string): Promise<GPUTextureView>;
  /** `info`'s sampler (glTF's default without one). */
  sampler(info: TextureInfo | undefined): GPUSampler;
}

/**
 * A blended material's place in the draw order: blended draws go by `queue` (ascending), then
 * back to front. MToon's render queue (three-vrm's renderOrder): 0…9 for transparentWithZWrite
 * (its renderQueueOffsetNumber), 10…19 for the others (19 + the offset); every other blended
 * material is BLENDED_QUEUE.
 */
export interface BlendOrder {
  readonly queue: number;
  /** Writes depth though blended (MeshPipelineDesc.blendedDepthWrite). */
  readonly depthWrite: boolean;
}

/** The queue of blended materials that say nothing of their order. */
export const BLENDED_QUEUE = 19;

/** What a path's uploader may ask about where its material is drawn (MaterialUploader.prepare). */
export interface MaterialUploadContext {
  readonly device: GPUDevice;
  /** Whether a clip or an expression changes the material's values per frame (its uniforms are then rewritten). */
  readonly animated: boolean;
  /** Records a warning about the material (by JSON path), as the upload's others. */
  warn(path: string, message: string): void;
}

export interface MaterialUploader {
  /** Bytes of its uniform block (group 2 binding 0 reads its start). */
  readonly uniformsSize: number;
  /**
   * Further uniform bindings inside the block: `binding` reads `size` bytes at `offset`
   * (a multiple of 256, which every device allows as a uniform offset).
   */
  readonly uniformBlocks?: readonly { readonly binding: number; readonly offset: number; readonly size: number }[];
  /**
   * The material as this path draws it on this device (what it cannot draw left out, with a
   * warning naming its JSON path `path`); the other members are given this. Default: as it is.
   */
  prepare?(material: Material, ctx: MaterialUploadContext, path: string): Material;
  /** The uniforms of `material` as the path's WGSL reads them (upload time). */
  pack(material: Material): ArrayBuffer;
  /**
   * One animated material's values (`values` at float `v`, the MaterialAnimOffset layout of
   * src/anim/material-tracks.ts) into its uniforms (`out` at float `u`, packed by `pack`),
   * allocating nothing: what KHR_animation_pointer tracks and VRM expressions move.
   */
  packAnimated(values: Float32Array, v: number, out: Float32Array, u: number): void;
  /** Its feature bits (what its pipelines compile in). */
  features(material: Material): number;
  /** Its place among blended draws (meaningful for alphaMode BLEND). */
  blending(material: Material): BlendOrder;
  /** The bind group entries after the uniforms (binding 0), in the path's layout. `path` is the material's JSON path. */
  textureEntries(material: Material, textures: MaterialTextures, path: string): Promise<GPUBindGroupEntry[]>;
}
