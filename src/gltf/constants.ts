/** glTF 2.0 enums by name (values from the glTF 2.0 specification, §3.6 and §5). */

export const ComponentType = {
  BYTE: 5120,
  UNSIGNED_BYTE: 5121,
  SHORT: 5122,
  UNSIGNED_SHORT: 5123,
  UNSIGNED_INT: 5125,
  FLOAT: 5126,
} as const;
export type ComponentType = (typeof ComponentType)[keyof typeof ComponentType];

export const COMPONENT_BYTE_SIZE: Readonly<Record<number, number>> = {
  [ComponentType.BYTE]: 1,
  [ComponentType.UNSIGNED_BYTE]: 1,
  [ComponentType.SHORT]: 2,
  [ComponentType.UNSIGNED_SHORT]: 2,
  [ComponentType.UNSIGNED_INT]: 4,
  [ComponentType.FLOAT]: 4,
};

export const BufferTarget = {
  ARRAY_BUFFER: 34962,
  ELEMENT_ARRAY_BUFFER: 34963,
} as const;

/** Number of components of each accessor `type`. */
export const TYPE_COMPONENTS: Readonly<Record<string, number>> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
};

export const PrimitiveMode = {
  POINTS: 0,
  LINES: 1,
  LINE_LOOP: 2,
  LINE_STRIP: 3,
  TRIANGLES: 4,
  TRIANGLE_STRIP: 5,
  TRIANGLE_FAN: 6,
} as const;

/** glTF animation sampler interpolation, as the loader stores it (`Sampler.interpolation`). */
export const Interpolation = {
  LINEAR: 0,
  STEP: 1,
  CUBICSPLINE: 2,
} as const;
/** A sampler's interpolation: 0 LINEAR, 1 STEP, 2 CUBICSPLINE. */
export type Interpolation = (typeof Interpolation)[keyof typeof Interpolation];

/** What an animation channel drives, as the loader stores it (`Channel.path`). */
export const TargetPath = {
  TRANSLATION: 0,
  ROTATION: 1,
  SCALE: 2,
  WEIGHTS: 3,
} as const;
/** A channel's target: 0 translation, 1 rotation, 2 scale, 3 morph weights. */
export type TargetPath = (typeof TargetPath)[keyof typeof TargetPath];

export const SamplerFilter = {
  NEAREST: 9728,
  LINEAR: 9729,
  NEAREST_MIPMAP_NEAREST: 9984,
  LINEAR_MIPMAP_NEAREST: 9985,
  NEAREST_MIPMAP_LINEAR: 9986,
  LINEAR_MIPMAP_LINEAR: 9987,
} as const;

export const SamplerWrap = {
  CLAMP_TO_EDGE: 33071,
  MIRRORED_REPEAT: 33648,
  REPEAT: 10497,
} as const;

export const GLB_MAGIC = 0x46546c67; // "glTF" little-endian
export const GLB_CHUNK_JSON = 0x4e4f534a; // "JSON"
export const GLB_CHUNK_BIN = 0x004e4942; // "BIN\0"
