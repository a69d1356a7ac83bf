// Debug overlays: NORMALS and TANGENTS lines and the SKELETON. Built as the mesh shader
// (skinning.wgsl + pbr.wgsl + morph.wgsl + mesh.wgsl) + this file
// (src/gpu/pipelines/debug.ts), so every morphed and skinned position, normal, tangent and
// joint here comes from the same functions (DUAL_QUATERNION included), the same draw
// records and the same palette buffer as the shaded surface: nothing is skinned on the CPU. (WEIGHTS and WIREFRAME are variants of the mesh pipeline: see mesh.wgsl.)
//
// Every overlay is an instanced segment whose data is read as instance-stepped vertex
// attributes — the primitive's own vertex buffers for lines, a per-model joint buffer
// for the skeleton — so instance_index walks the data and the draw record comes from
// vertex_index: record = vertex_index / vertices per segment (the draw's firstVertex is
// record × that; LINE_SEGMENT_VERTICES and SHAPE_SEGMENT_VERTICES in
// src/gpu/layouts/debug.ts, which test/gpu/layouts/debug.test.ts compares with this file).

// DebugLineKind.
const LINE_NORMALS: u32 = 0u;
const LINE_TANGENTS: u32 = 1u;
override LINE_KIND: u32 = 0u;

const LINE_SEGMENT_VERTICES: u32 = 2u;
const SHAPE_SEGMENT_VERTICES: u32 = 6u;

// Linear colours.
const NORMAL_LINE_COLOR: vec3f = vec3f(0.1, 0.45, 1.0);
// Tangents by handedness: w ≥ 0 red, w < 0 (mirrored UVs) yellow.
const TANGENT_LINE_COLOR: vec3f = vec3f(1.0, 0.08, 0.04);
const MIRRORED_TANGENT_LINE_COLOR: vec3f = vec3f(1.0, 0.8, 0.02);
const BONE_COLOR: vec3f = vec3f(0.95, 0.95, 0.95);
const JOINT_COLOR: vec3f = vec3f(1.0, 0.3, 0.02);
const OUTLINE_COLOR: vec3f = vec3f(0.0, 0.0, 0.0);
// Joint disc radius and bone head width, in units of frame.debugLineWidth.
const JOINT_RADIUS_SCALE: f32 = 1.9;
// Bones taper from the parent joint (full width) to the child joint.
const BONE_TIP_SCALE: f32 = 0.45;
const OUTLINE_PIXELS: f32 = 1.0;
// Room for the anti-aliased edge around every shape, pixels.
const AA_MARGIN: f32 = 1.0;

fn encodeOutput(linear: vec3f) -> vec3f {
  if (ENCODE_SRGB) {
    return linearToSrgb(linear);
  }
  return linear;
}

// ---------------------------------------------------------------- normals and tangents

struct DebugLineOutput {
  @builtin(position) clipPosition: vec4f,
  @location(0) color: vec3f,
}

// One end of a line from the skinned vertex along its world normal or tangent.
fn debugLine(local: SkinnedFrame, record: DrawRecord, tip: bool) -> DebugLineOutput {
  let world = (record.model * vec4f(local.position, 1.0)).xyz;
  var direction: vec3f;
  var color: vec3f;
  if (LINE_KIND == LINE_TANGENTS) {
    let linear = mat3x3f(record.model[0].xyz, record.model[1].xyz, record.model[2].xyz);
    direction = normalizeOrZero(linear * local.tangent.xyz);
    color = select(MIRRORED_TANGENT_LINE_COLOR, TANGENT_LINE_COLOR, local.tangent.w >= 0.0);
  } else {
    direction = normalizeOrZero(record.normalMatrix * local.normal);
    color = NORMAL_LINE_COLOR;
  }
  let end = world + direction * select(0.0, frame.debugLineLength, tip);
  var out: DebugLineOutput;
  // Pulled towards the eye like wireframe edges, so tangents are not hidden by their own triangles.
  out.clipPosition = frame.viewProjection * vec4f(mix(end, frame.cameraPosition, DEPTH_PULL), 1.0);
  out.color = encodeOutput(color);
  return out;
}

// Lines read the mesh's vertex buffers instance-stepped: instance_index is the mesh vertex.
@vertex
fn vsLinesRigid(surface: SurfaceInput, @builtin(vertex_index) vertex: u32, @builtin(instance_index) meshVertex: u32) -> DebugLineOutput {
  let record = draws[vertex / LINE_SEGMENT_VERTICES];
  return debugLine(localFrame(surface, record, meshVertex), record, vertex % LINE_SEGMENT_VERTICES == 1u);
}

@vertex
fn vsLines4(surface: SurfaceInput, skin: Influences4, @builtin(vertex_index) vertex: u32, @builtin(instance_index) meshVertex: u32) -> DebugLineOutput {
  let record = draws[vertex / LINE_SEGMENT_VERTICES];
  let local = skinVertex4(record, localFrame(surface, record, meshVertex), skin, meshVertex);
  return debugLine(local, record, vertex % LINE_SEGMENT_VERTICES == 1u);
}

@vertex
fn vsLines8(surface: SurfaceInput, skin: Influences8, @builtin(vertex_index) vertex: u32, @builtin(instance_index) meshVertex: u32) -> DebugLineOutput {
  let record = draws[vertex / LINE_SEGMENT_VERTICES];
  let local = skinVertex8(record, localFrame(surface, record, meshVertex), skin, meshVertex);
  return debugLine(local, record, vertex % LINE_SEGMENT_VERTICES == 1u);
}

@fragment
fn fsLine(in: DebugLineOutput) -> @location(0) vec4f {
  return vec4f(in.color, 1.0);
}

// ---------------------------------------------------------------- skeleton

struct SkeletonJointInput {
  @location(0) bindPosition: vec3f,
  @location(1) joint: u32,
  @location(2) parentBindPosition: vec3f,
  @location(3) parentJoint: i32,
}

struct DebugShapeOutput {
  @builtin(position) clipPosition: vec4f,
  // Pixels from the bone's centre line (x) or from the disc's centre (xy).
  @location(0) @interpolate(linear) offset: vec2f,
  // Bone half width or disc radius, pixels.
  @location(1) @interpolate(linear) size: f32,
}

// Two triangles; x: 0 at the first end, 1 at the second; y: the side.
const QUAD_CORNERS = array<vec2f, 6>(
  vec2f(0.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0),
  vec2f(0.0, -1.0), vec2f(1.0, 1.0), vec2f(0.0, 1.0),
);

// The posed joint in world space: palette entry applied to the bind position (a matrix, or
// with DUAL_QUATERNION a DqJoint through the surface's own skinFrameDq), then the mesh node.
fn jointClip(record: DrawRecord, joint: u32, bindPosition: vec3f) -> vec4f {
  var skinned = jointPalette[record.paletteOffset + joint] * vec4f(bindPosition, 1.0);
  if (DUAL_QUATERNION) {
    let j = dqJoint(record.paletteOffset + joint);
    let posed = skinFrameDq(DqBlend(j.real, j.dual, dqStretch(j)), bindPosition, vec3f(0.0, 0.0, 1.0), vec4f(1.0, 0.0, 0.0, 1.0));
    skinned = vec4f(posed.position, 1.0);
  }
  return frame.viewProjection * (record.model * skinned);
}

// Pixels from the viewport centre (y up) of a clip position in front of the eye.
fn toPixels(clip: vec4f) -> vec2f {
  return clip.xy / clip.w * 0.5 * frame.viewportSize;
}

// Back to clip space at the depth of `clip`; z 0 because the skeleton ignores depth.
fn fromPixels(pixels: vec2f, clip: vec4f) -> vec4f {
  return vec4f(pixels / (0.5 * frame.viewportSize) * clip.w, 0.0, clip.w);
}

fn culledShape() -> DebugShapeOutput {
  var out: DebugShapeOutput;
  out.clipPosition = vec4f(2.0, 2.0, 0.0, 1.0);
  out.offset = vec2f(0.0);
  out.size = 0.0;
  return out;
}

// A tapered quad from the parent joint to this one, constant width in pixels.
@vertex
fn vsBone(joint: SkeletonJointInput, @builtin(vertex_index) vertex: u32) -> DebugShapeOutput {
  if (joint.parentJoint < 0) {
    return culledShape();
  }
  let record = draws[vertex / SHAPE_SEGMENT_VERTICES];
  let head = jointClip(record, u32(joint.parentJoint), joint.parentBindPosition);
  let tail = jointClip(record, joint.joint, joint.bindPosition);
  if (head.w <= 0.0 || tail.w <= 0.0) {
    return culledShape();
  }
  let headPixels = toPixels(head);
  let tailPixels = toPixels(tail);
  let span = tailPixels - headPixels;
  let spanLength = sqrt(dot(span, span));
  let along = select(vec2f(1.0, 0.0), span / spanLength, spanLength > 1e-3);
  let across = vec2f(-along.y, along.x);
  let corner = QUAD_CORNERS[vertex % SHAPE_SEGMENT_VERTICES];
  let atTail = corner.x > 0.5;
  let halfWidth = frame.debugLineWidth * select(1.0, BONE_TIP_SCALE, atTail);
  let side = corner.y * (halfWidth + AA_MARGIN);
  let pixels = select(headPixels, tailPixels, atTail) + across * side;
  var out: DebugShapeOutput;
  out.clipPosition = fromPixels(pixels, select(head, tail, atTail));
  out.offset = vec2f(side, 0.0);
  out.size = halfWidth;
  return out;
}

// A disc at the joint.
@vertex
fn vsJoint(joint: SkeletonJointInput, @builtin(vertex_index) vertex: u32) -> DebugShapeOutput {
  let record = draws[vertex / SHAPE_SEGMENT_VERTICES];
  let center = jointClip(record, joint.joint, joint.bindPosition);
  if (center.w <= 0.0) {
    return culledShape();
  }
  let corner = QUAD_CORNERS[vertex % SHAPE_SEGMENT_VERTICES];
  let radius = frame.debugLineWidth * JOINT_RADIUS_SCALE;
  let offset = vec2f(corner.x * 2.0 - 1.0, corner.y) * (radius + AA_MARGIN);
  var out: DebugShapeOutput;
  out.clipPosition = fromPixels(toPixels(center) + offset, center);
  out.offset = offset;
  out.size = radius;
  return out;
}

// Fill, a dark outline inside the edge, anti-aliased coverage; premultiplied.
fn shade(fill: vec3f, distance: f32, size: f32) -> vec4f {
  let coverage = clamp(size + 0.5 - distance, 0.0, 1.0);
  let outline = clamp(distance - (size - min(OUTLINE_PIXELS, size * 0.5)) + 0.5, 0.0, 1.0);
  let color = encodeOutput(mix(fill, OUTLINE_COLOR, outline));
  return vec4f(color * coverage, coverage);
}

@fragment
fn fsBone(in: DebugShapeOutput) -> @location(0) vec4f {
  return shade(BONE_COLOR, abs(in.offset.x), in.size);
}

@fragment
fn fsJoint(in: DebugShapeOutput) -> @location(0) vec4f {
  return shade(JOINT_COLOR, length(in.offset), in.size);
}

// ---------------------------------------------------------------- bounds

// BOUNDS: the 12 edges of each instance's world-space culling box (src/gpu/draw/cpu-culling.ts) as
// a line list, one instance per box from an instance-stepped buffer of min/max corners
// (BOUNDS_BOX_LAYOUT in src/gpu/layouts/debug.ts). Edge e = vertex_index / 2 runs along
// axis e / 4; its other two corner bits are e % 4, its end vertex_index % 2.
const BOUNDS_EDGE_VERTICES: u32 = 24u;
const BOUNDS_COLOR: vec3f = vec3f(1.0, 0.75, 0.05);

struct BoundsBoxInput {
  @location(0) boxMin: vec3f,
  @location(1) boxMax: vec3f,
}

@vertex
fn vsBounds(box: BoundsBoxInput, @builtin(vertex_index) vertex: u32) -> @builtin(position) vec4f {
  let edge = (vertex % BOUNDS_EDGE_VERTICES) / 2u;
  let axis = edge / 4u;
  let k = edge % 4u;
  // Spread k's two bits over the axes other than `axis`, then set `axis`'s bit by the end.
  var bits = select(select(k, (k & 1u) | ((k & 2u) << 1u), axis == 1u), k << 1u, axis == 0u);
  bits |= (vertex & 1u) << axis;
  let corner = select(box.boxMin, box.boxMax, vec3<bool>((bits & 1u) != 0u, (bits & 2u) != 0u, (bits & 4u) != 0u));
  return frame.viewProjection * vec4f(corner, 1.0);
}

@fragment
fn fsBounds() -> @location(0) vec4f {
  return vec4f(encodeOutput(BOUNDS_COLOR), 1.0);
}
