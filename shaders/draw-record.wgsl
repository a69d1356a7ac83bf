// One draw's record, shared by every pipeline that reads the draw records (prepended to
// shaders/mesh.wgsl by src/gpu/pipelines/mesh.ts and to shaders/preskin.wgsl by src/gpu/draw/preskin.ts;
// morph.wgsl reads it too). Its layout is src/gpu/layouts/draw-record.ts and its flag bits DrawFlag in
// src/gpu/layouts/bindings.ts; test/gpu/layouts/bindings.test.ts compares them.

// DrawFlag in src/gpu/layouts/bindings.ts.
const DRAW_EXACT_NORMALS: u32 = 1u;
const DRAW_FLAT_NORMALS: u32 = 2u;
const DRAW_HAS_TANGENTS: u32 = 4u;
const DRAW_MORPH_POSITIONS: u32 = 8u;
const DRAW_MORPH_NORMALS: u32 = 16u;
const DRAW_MORPH_TANGENTS: u32 = 32u;

struct DrawRecord {
  model: mat4x4f,
  normalMatrix: mat3x3f,
  paletteOffset: u32,
  flags: u32,
  morphBase: u32,
  morphTargetCount: u32,
  morphWeights0: vec4f,
  morphWeights1: vec4f,
  morphTargets: vec4u,
  // First vertex of this draw and instance in skinnedVertices (compute path, src/gpu/draw/preskin.ts); 0 for rigid draws.
  skinnedBase: u32,
  // First vertex of the primitive in the model's centres of rotation (`centers`, 3 floats
  // each: src/gpu/model/center-buffer.ts); read only by CENTER_OF_ROTATION pipelines.
  centerBase: u32,
}
