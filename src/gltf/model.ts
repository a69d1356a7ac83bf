import type { AccessorData } from './accessors.ts';
import type { PbrExtensions } from './pbr-extensions-model.ts';
import type { BudgetState } from './budget.ts';
import type { Interpolation, TargetPath } from './constants.ts';
import type { GltfWarning } from './errors.ts';
import type { HumanoidMap } from './humanoid.ts';
import type { MToonMaterial } from './mtoon-model.ts';
import type { TextureInfo } from './texture-info.ts';
import type { Vrm } from './vrm-model.ts';

export type { TextureInfo, TextureTransform, UvTransform } from './texture-info.ts';

/**
 * The loaded, validated, immutable model. Everything per node is stored in flat
 * typed arrays indexed by *slot*: nodes sorted so that every parent comes before
 * its children, which makes local→model one forward loop (as ozz-animation does).
 */
export interface Model {
  /** File name (or given name) of the asset. */
  readonly name: string;
  readonly nodes: readonly NodeInfo[];
  readonly hierarchy: Hierarchy;
  readonly meshes: readonly Mesh[];
  readonly skins: readonly Skin[];
  readonly animations: readonly Clip[];
  /** Index of the scene used (the `scene` property, else 0); -1 when the file has no scenes. */
  readonly scene: number;
  /** Root nodes of that scene (every parentless node when the file has no scenes). */
  readonly sceneRoots: Int32Array;
  /** 1 for each node (glTF index) reachable from the scene roots. */
  readonly inScene: Uint8Array;
  /** Every node of the scene that has a mesh, in glTF node order. */
  readonly meshNodes: readonly MeshNode[];
  readonly materials: readonly Material[];
  readonly textures: readonly Texture[];
  readonly samplers: readonly TextureSampler[];
  readonly images: readonly Image[];
  /** Problems that were repaired while loading (e.g. weights renormalised). */
  readonly warnings: readonly GltfWarning[];
  /** KHR_materials_variants: the variant names, by index; absent when the file declares none. */
  readonly variants?: readonly string[];
  /** A VRM avatar's humanoid bones by node index (extensions/vrm-humanoid.ts); absent when the file has no VRM extension. */
  readonly humanoid?: HumanoidMap;
  /** VRM 0.x / 1.0 avatar data (vrm-model.ts); absent when the file has no VRM extension. */
  readonly vrm?: Vrm;
  /**
   * The load's memory budget (budget.ts) as the load left it: what is decoded later, at
   * upload (KTX2 transcoding), is charged on top of it. Absent for models built in code.
   */
  readonly loadBudget?: BudgetState;
}

/**
 * One glTF node as loaded: its name, parent and children, mesh, skin and morph weights (its rest transform is
 * in `Hierarchy`).
 */
export interface NodeInfo {
  readonly name: string | undefined;
  /** Parent node (glTF index), -1 for a root. */
  readonly parent: number;
  readonly children: readonly number[];
  readonly mesh: number;
  readonly skin: number;
  /** Morph weights of the node (falls back to the mesh's), empty when none. */
  readonly weights: Float32Array;
}

/**
 * The node tree in slot order (every parent before its children) with each node's rest transform: what the
 * pose, local→model and the palettes run over.
 */
export interface Hierarchy {
  readonly count: number;
  /** slot → glTF node index, parents before children. */
  readonly order: Int32Array;
  /** glTF node index → slot. */
  readonly slotOf: Int32Array;
  /** slot → parent's slot, -1 for a root. Always smaller than the slot itself. */
  readonly parentSlot: Int32Array;
  /** Rest local transform by slot: T (3), R (4, x y z w), S (3). Matrix nodes hold their decomposition. */
  readonly restTranslation: Float64Array;
  readonly restRotation: Float64Array;
  readonly restScale: Float64Array;
  /** Nodes given by `matrix` and never animated use this exact matrix (16 per slot, column-major). */
  readonly restMatrix: Float64Array;
  /** 1 where `restMatrix` is used instead of T/R/S. */
  readonly useMatrix: Uint8Array;
}

/** A node of the scene that draws a mesh: the mesh, its skin (or -1) and its GPU instances, if any. */
export interface MeshNode {
  readonly node: number;
  readonly mesh: number;
  /** -1 for a rigid (unskinned) mesh. */
  readonly skin: number;
  /**
   * EXT_mesh_gpu_instancing (extensions/ext-mesh-gpu-instancing.ts): 16 per instance,
   * column-major, each instance's TRS in the node's space (world = node world · instance).
   * Absent when the node is drawn once. Instanced mesh nodes are always rigid.
   */
  readonly instances?: Float64Array;
}

/** A glTF mesh: its primitives and default morph weights. */
export interface Mesh {
  readonly name: string | undefined;
  readonly primitives: readonly Primitive[];
  /** Default morph target weights. */
  readonly weights: Float32Array;
}

/**
 * One morph target of a primitive: displacements of positions, normals and tangents (each absent when the
 * target leaves it alone).
 */
export interface MorphTarget {
  readonly positions: Float32Array | undefined;
  readonly normals: Float32Array | undefined;
  readonly tangents: Float32Array | undefined;
}

/**
 * One drawable part of a mesh, de-interleaved and validated: its vertex attributes, joints and weights,
 * indices, morph targets and material.
 */
export interface Primitive {
  readonly mode: number;
  readonly vertexCount: number;
  readonly positions: Float32Array;
  readonly normals: Float32Array | undefined;
  /** xyzw per vertex; w is the bitangent sign. */
  readonly tangents: Float32Array | undefined;
  readonly texcoords0: Float32Array | undefined;
  readonly texcoords1: Float32Array | undefined;
  /** RGBA per vertex (RGB sources get alpha 1). */
  readonly colors0: Float32Array | undefined;
  /** Uint8 indices are widened to Uint16 (WebGPU has no 8-bit index format). */
  readonly indices: Uint16Array | Uint32Array | undefined;
  readonly material: number;
  /** Influences per vertex: 0 (not skinned), 4 (JOINTS_0) or 8 (JOINTS_0 + JOINTS_1). */
  readonly influences: 0 | 4 | 8;
  /** `influences` joint indices per vertex (into the skin's `joints`). */
  readonly joints: Uint16Array | undefined;
  /** `influences` weights per vertex, dequantised and summing to 1. */
  readonly weights: Float32Array | undefined;
  /** Highest joint index any vertex uses (-1 when not skinned), checked against each skin that uses the mesh. */
  readonly maxJoint: number;
  /**
   * The skinning attributes as stored in the file, for GPU upload in native formats.
   * Weights need not sum to 1 here: the GPU divides by their sum. Only vertices with all-zero
   * weights make `weightSets` the repaired floats.
   */
  readonly jointSets: readonly AccessorData[];
  readonly weightSets: readonly AccessorData[];
  /**
   * Each vertex's centre of rotation (xyz, bind pose) for centre-of-rotation skinning, from
   * the file's `_CENTER_OF_ROTATION` attribute (center-of-rotation-attribute.ts). Absent when
   * the file has none (or a broken one): src/skin/centers-of-rotation/ computes them.
   */
  readonly centersOfRotation?: Float32Array;
  readonly targets: readonly MorphTarget[];
  /**
   * The file's 8/16-bit accessors behind POSITION, NORMAL, TANGENT and TEXCOORD_0/1
   * (KHR_mesh_quantization), for GPU upload in their own formats; the float arrays above
   * hold the same values dequantized. Absent when those attributes are all floats.
   */
  readonly quantized?: QuantizedAttributes;
  /**
   * KHR_materials_variants: per variant (index into `Model.variants`), the material this
   * primitive draws with (`material` where the file maps none). Absent without mappings.
   */
  readonly variantMaterials?: Int32Array;
}

/** Integer-stored attribute accessors of a primitive, by glTF attribute name. */
export interface QuantizedAttributes {
  readonly POSITION?: AccessorData;
  readonly NORMAL?: AccessorData;
  readonly TANGENT?: AccessorData;
  readonly TEXCOORD_0?: AccessorData;
  readonly TEXCOORD_1?: AccessorData;
}

/**
 * A glTF skin: its joints (as glTF nodes and as slots), their joint-space parents and inverse bind matrices.
 */
export interface Skin {
  readonly name: string | undefined;
  /** Joint node indices in the file's order: JOINTS_n values index this array. */
  readonly joints: Int32Array;
  /** Slot of each joint. */
  readonly jointSlots: Int32Array;
  /** For each joint, the index (in `joints`) of its nearest ancestor that is also a joint, or -1. */
  readonly jointParents: Int32Array;
  /** Joint indices sorted parent-first (by slot; a node listed twice gives two equal slots). */
  readonly jointsParentFirst: Int32Array;
  /** 16 per joint, column-major; identity when the file has none. */
  readonly inverseBindMatrices: Float64Array;
  /** Every inverse bind matrix has the bottom row 0 0 0 1, so palettes can use affine products. */
  readonly inverseBindAffine: boolean;
  readonly skeleton: number;
}

/** An animation sampler: key times and dequantised values, with what LINEAR rotation sampling precomputes. */
export interface Sampler {
  readonly interpolation: Interpolation;
  /** Key times in seconds, non-decreasing. */
  readonly times: Float32Array;
  /** Dequantised values; CUBICSPLINE stores (in-tangent, value, out-tangent) per key. */
  readonly values: Float32Array;
  /** Components per key value (3 for T/S, 4 for R, target count for weights). */
  readonly components: number;
  /**
   * LINEAR rotations only: per key interval, the angle θ between the two keys (already
   * in one hemisphere) and 1/sin θ (0 when θ is too small to divide by), so sampling
   * needs no acos or sin call.
   */
  readonly slerpAngle: Float64Array | undefined;
  readonly slerpInvSin: Float64Array | undefined;
}

/** An animation channel: the node (and slot) and property it drives, from which sampler. */
export interface Channel {
  readonly node: number;
  readonly slot: number;
  readonly path: TargetPath;
  readonly sampler: Sampler;
  /** Index into the clip's `timelines` of this channel's key times. */
  readonly timeline: number;
}

/**
 * A glTF animation, ready to sample: its channels, shared key timelines, duration, and morph, material and
 * VRM expression tracks.
 */
export interface Clip {
  readonly name: string | undefined;
  /** Latest key time over all channels (seconds). */
  readonly duration: number;
  readonly channels: readonly Channel[];
  /**
   * The distinct key-time arrays of the channels (equal contents merged). Channels
   * usually share a few, so sampling finds the key once per timeline, not per channel.
   */
  readonly timelines: readonly Float32Array[];
  /** KHR_animation_pointer material tracks (khr-animation-pointer.ts); absent when there are none. */
  readonly materialTracks?: readonly MaterialTrack[];
  /** VRM animation (.vrma) expression weights by expression name (extensions/vrmc-vrm-animation.ts); absent when none. */
  readonly expressionTracks?: readonly ExpressionTrack[];
  /** VRM animation (.vrma) look-at: the gaze as a rotation from the model's front (4 components); absent when none. */
  readonly lookAtTrack?: Sampler;
}

/** A VRM expression's weight over time: component 0 of `sampler` (VRMC_vrm_animation stores it as a node's translation x). */
export interface ExpressionTrack {
  readonly name: string;
  readonly sampler: Sampler;
}

/** One animated material value: `sampler.components` floats at `offset` of the material's MaterialAnimOffset block. */
export interface MaterialTrack {
  readonly material: number;
  readonly offset: number;
  readonly sampler: Sampler;
}

/** How a material is shaded beyond metallic-roughness (each a mesh pipeline specialisation). */
export type MaterialShading =
  /** glTF metallic-roughness (the default). */
  | 'pbr'
  /**
   * KHR_materials_pbrSpecularGlossiness converted to metal-rough with a specular-glossiness
   * texture in `metallicRoughnessTexture`: roughness = 1 − (1 − roughnessFactor) · alpha,
   * i.e. 1 − glossinessFactor · glossiness.
   */
  | 'pbr-glossiness'
  /** KHR_materials_unlit: the base colour only. */
  | 'unlit';

/**
 * A glTF material: metallic-roughness factors and textures, alpha mode, the PBR extensions it uses, and MToon
 * for VRM files.
 */
export interface Material extends PbrExtensions {
  readonly name: string | undefined;
  readonly baseColorFactor: readonly [number, number, number, number];
  readonly baseColorTexture: TextureInfo | undefined;
  readonly metallicFactor: number;
  readonly roughnessFactor: number;
  readonly metallicRoughnessTexture: TextureInfo | undefined;
  readonly normalTexture: TextureInfo | undefined;
  readonly occlusionTexture: TextureInfo | undefined;
  readonly emissiveTexture: TextureInfo | undefined;
  readonly emissiveFactor: readonly [number, number, number];
  readonly alphaMode: 'OPAQUE' | 'MASK' | 'BLEND';
  readonly alphaCutoff: number;
  readonly doubleSided: boolean;
  /** KHR_materials_emissive_strength: multiplies `emissiveFactor`; 1 when absent. */
  readonly emissiveStrength?: number;
  /** 'pbr' when absent. */
  readonly shading?: MaterialShading;
  /**
   * VRM's toon material (VRMC_materials_mtoon, or a VRM 0.x MToon converted to it): drawn with
   * the MToon path instead of `shading`, which stays the fallback (RenderSettings.mtoon off).
   */
  readonly mtoon?: MToonMaterial;
}

/** A glTF texture: its sampler and image (with the images of texture-source extensions to try first). */
export interface Texture {
  readonly sampler: number;
  /** The plain `source` (-1 when absent): the fallback of `extensionSources`. */
  readonly source: number;
  /**
   * Images of texture-source extensions (EXT_texture_webp, EXT_texture_avif), in the
   * order to try; a source the decoder refuses falls back to the next, then to `source`.
   */
  readonly extensionSources?: readonly TextureSource[];
}

/**
 * An image a texture-source extension (EXT_texture_webp, EXT_texture_avif) offers, by extension name and
 * image index.
 */
export interface TextureSource {
  readonly extension: string;
  readonly source: number;
}

/**
 * A glTF sampler: filters (WebGL enums, undefined when the file leaves them to the viewer) and wrap modes.
 */
export interface TextureSampler {
  readonly magFilter: number | undefined;
  readonly minFilter: number | undefined;
  readonly wrapS: number;
  readonly wrapT: number;
}

/** A glTF image's encoded bytes (PNG, JPEG, KTX2, WebP…), decoded only when a renderer uploads it. */
export interface Image {
  readonly name: string | undefined;
  readonly mimeType: string | undefined;
  readonly bytes: Uint8Array;
}
