/**
 * The glTF 2.0 JSON that `GltfBuilder` writes, as loose types: enough structure to catch
 * typos in fixtures and the built-in models, `[key: string]: unknown` for the rest. The
 * loader does not use them: it reads untrusted JSON field by field (json.ts).
 */

export interface GltfNodeJson {
  name?: string;
  children?: number[];
  mesh?: number;
  skin?: number;
  camera?: number;
  matrix?: number[];
  translation?: number[];
  rotation?: number[];
  scale?: number[];
  weights?: number[];
  [key: string]: unknown;
}

export interface GltfPrimitiveJson {
  attributes: Record<string, number>;
  indices?: number;
  material?: number;
  mode?: number;
  targets?: Record<string, number>[];
  [key: string]: unknown;
}

export interface GltfMeshJson {
  name?: string;
  primitives: GltfPrimitiveJson[];
  weights?: number[];
  [key: string]: unknown;
}

export interface GltfSkinJson {
  name?: string;
  joints: number[];
  inverseBindMatrices?: number;
  skeleton?: number;
  [key: string]: unknown;
}

export type AnimationPath = 'translation' | 'rotation' | 'scale' | 'weights';
export type InterpolationName = 'LINEAR' | 'STEP' | 'CUBICSPLINE';

export interface GltfAnimationSamplerJson {
  input: number;
  output: number;
  interpolation?: InterpolationName;
  [key: string]: unknown;
}

export interface GltfAnimationChannelJson {
  sampler: number;
  target: { node?: number; path: AnimationPath; [key: string]: unknown };
  [key: string]: unknown;
}

export interface GltfAnimationJson {
  name?: string;
  samplers: GltfAnimationSamplerJson[];
  channels: GltfAnimationChannelJson[];
  [key: string]: unknown;
}

export interface GltfTextureInfoJson {
  index: number;
  texCoord?: number;
  [key: string]: unknown;
}

export interface GltfMaterialJson {
  name?: string;
  pbrMetallicRoughness?: {
    baseColorFactor?: number[];
    baseColorTexture?: GltfTextureInfoJson;
    metallicFactor?: number;
    roughnessFactor?: number;
    metallicRoughnessTexture?: GltfTextureInfoJson;
    [key: string]: unknown;
  };
  normalTexture?: GltfTextureInfoJson & { scale?: number };
  occlusionTexture?: GltfTextureInfoJson & { strength?: number };
  emissiveTexture?: GltfTextureInfoJson;
  emissiveFactor?: number[];
  alphaMode?: 'OPAQUE' | 'MASK' | 'BLEND';
  alphaCutoff?: number;
  doubleSided?: boolean;
  [key: string]: unknown;
}

export interface GltfSceneJson {
  name?: string;
  nodes?: number[];
  [key: string]: unknown;
}

export interface GltfSparseJson {
  count: number;
  indices: { bufferView: number; byteOffset?: number; componentType: number };
  values: { bufferView: number; byteOffset?: number };
}

export interface GltfAccessorJson {
  bufferView?: number;
  byteOffset?: number;
  componentType: number;
  normalized?: boolean;
  count: number;
  type: string;
  max?: number[];
  min?: number[];
  sparse?: GltfSparseJson;
  name?: string;
  [key: string]: unknown;
}

export interface GltfBufferViewJson {
  buffer: number;
  byteOffset?: number;
  byteLength: number;
  byteStride?: number;
  target?: number;
  name?: string;
  [key: string]: unknown;
}

export interface GltfBufferJson {
  byteLength: number;
  uri?: string;
  [key: string]: unknown;
}

export interface GltfImageJson {
  name?: string;
  uri?: string;
  mimeType?: string;
  bufferView?: number;
  [key: string]: unknown;
}

export interface GltfJson {
  asset: { version: string; generator?: string; minVersion?: string; copyright?: string; [key: string]: unknown };
  scene?: number;
  extensionsUsed: string[];
  extensionsRequired: string[];
  scenes: GltfSceneJson[];
  nodes: GltfNodeJson[];
  meshes: GltfMeshJson[];
  skins: GltfSkinJson[];
  animations: GltfAnimationJson[];
  materials: GltfMaterialJson[];
  textures: Record<string, unknown>[];
  images: GltfImageJson[];
  samplers: Record<string, unknown>[];
  accessors: GltfAccessorJson[];
  bufferViews: GltfBufferViewJson[];
  /** Only present in output: the builder's single buffer. */
  buffers?: GltfBufferJson[];
  [key: string]: unknown;
}
