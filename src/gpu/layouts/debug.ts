/**
 * Constants and byte layouts shared by the debug overlays (shaders/debug.wgsl) and the
 * TypeScript that feeds them. test/gpu/layouts/debug.test.ts checks every value here
 * against the shader text.
 */

/** `LINE_KIND` override of the NORMALS/TANGENTS line pipelines (shaders/debug.wgsl `LINE_*`). */
export const DebugLineKind = {
  NORMALS: 0,
  TANGENTS: 1,
} as const;
export type DebugLineKind = (typeof DebugLineKind)[keyof typeof DebugLineKind];

/**
 * Vertices per instanced segment. Overlay draws find their draw record through
 * `vertex_index / verticesPerSegment`, so they are issued with
 * `firstVertex = record × verticesPerSegment` (their vertex data is instance-stepped).
 */
export const LINE_SEGMENT_VERTICES = 2;
export const SHAPE_SEGMENT_VERTICES = 6;

/**
 * One joint of a skeleton overlay: `struct SkeletonJointInput` (shaders/debug.wgsl), read
 * as instance-stepped vertex attributes. A joint's position in its palette's space at
 * bind time is inverse(inverseBindMatrix) · origin; the vertex stage multiplies it by the
 * joint's palette matrix and the mesh node's world matrix, so the posed joint comes from
 * the same palette buffer the skinned surface uses.
 */
export const SkeletonJointOffset = {
  /** float32x3: this joint's origin at bind time, in palette space. */
  BIND_POSITION: 0,
  /** uint32: index of the joint in its skin (palette matrix = record.paletteOffset + joint). */
  JOINT: 12,
  /** float32x3: the parent joint's origin at bind time. */
  PARENT_BIND_POSITION: 16,
  /** sint32: index of the nearest ancestor that is a joint of the same skin, or -1. */
  PARENT_JOINT: 28,
} as const;
export const SKELETON_JOINT_STRIDE = 32;

/** `@location`s of `struct SkeletonJointInput`. */
export const SkeletonJointLocation = {
  BIND_POSITION: 0,
  JOINT: 1,
  PARENT_BIND_POSITION: 2,
  PARENT_JOINT: 3,
} as const;

export const SKELETON_JOINT_LAYOUT: GPUVertexBufferLayout = {
  arrayStride: SKELETON_JOINT_STRIDE,
  stepMode: 'instance',
  attributes: [
    { shaderLocation: SkeletonJointLocation.BIND_POSITION, format: 'float32x3', offset: SkeletonJointOffset.BIND_POSITION },
    { shaderLocation: SkeletonJointLocation.JOINT, format: 'uint32', offset: SkeletonJointOffset.JOINT },
    { shaderLocation: SkeletonJointLocation.PARENT_BIND_POSITION, format: 'float32x3', offset: SkeletonJointOffset.PARENT_BIND_POSITION },
    { shaderLocation: SkeletonJointLocation.PARENT_JOINT, format: 'sint32', offset: SkeletonJointOffset.PARENT_JOINT },
  ],
};

/**
 * Wireframe edges and NORMALS/TANGENTS lines are drawn this fraction of the way from each
 * vertex towards the eye (mesh.wgsl `DEPTH_PULL`): enough to win the depth test against
 * the triangles they lie on (edges, tangents), too little to show them through surfaces
 * more than 0.3% of the distance in front.
 */
export const OVERLAY_DEPTH_PULL = 0.003;

/** NORMALS/TANGENTS lines are this fraction of the model's rest radius long (unless set). */
export const DEBUG_LINE_LENGTH_FRACTION = 0.05;

/** Skeleton bone half width in pixels: this fraction of the smaller target side, at least the minimum. */
export const DEBUG_LINE_WIDTH_FRACTION = 1 / 220;
export const DEBUG_LINE_WIDTH_MIN = 1.5;

/**
 * One box of the BOUNDS overlay: `struct BoundsBoxInput` (shaders/debug.wgsl), world min
 * then max corner as float32x3 each, read per instance (InstanceCuller.boxes as they are).
 */
export const BoundsBoxLocation = {
  BOX_MIN: 0,
  BOX_MAX: 1,
} as const;
export const BOUNDS_BOX_STRIDE = 24;
/** Line-list vertices per box: 12 edges. */
export const BOUNDS_EDGE_VERTICES = 24;

export const BOUNDS_BOX_LAYOUT: GPUVertexBufferLayout = {
  arrayStride: BOUNDS_BOX_STRIDE,
  stepMode: 'instance',
  attributes: [
    { shaderLocation: BoundsBoxLocation.BOX_MIN, format: 'float32x3', offset: 0 },
    { shaderLocation: BoundsBoxLocation.BOX_MAX, format: 'float32x3', offset: 12 },
  ],
};
