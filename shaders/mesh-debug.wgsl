// The mesh pipelines' debug variants (DebugView WEIGHTS and WIREFRAME: pipelines/mesh.ts
// MeshVariant), fragment stages over mesh.wgsl's vertex stages, in the mesh module.

// WEIGHTS: every joint gets its own hue (golden-ratio steps around the colour wheel, so
// neighbouring indices differ clearly) and a vertex shows the weighted mix of its joints'.
const RIGID_WEIGHT_COLOR: vec3f = vec3f(0.35, 0.35, 0.35);

fn jointColor(joint: u32) -> vec3f {
  let hue = fract(f32(joint) * 0.61803398875 + 0.05);
  // HSV → RGB at full saturation and value.
  let k = fract(vec3f(hue) + vec3f(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0;
  return clamp(abs(k) - 1.0, vec3f(0.0), vec3f(1.0));
}

fn weightColor(joints: vec4u, weights: vec4f) -> vec3f {
  return weights.x * jointColor(joints.x) + weights.y * jointColor(joints.y)
       + weights.z * jointColor(joints.z) + weights.w * jointColor(joints.w);
}

// The weight colour (in COLOR_0, see WEIGHT_COLORS) with a little diffuse shading from
// the key light so the shape still reads; no material, no tone mapping.
@fragment
fn fsWeights(in: VertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  // Derivatives first, in uniform control flow.
  let faceNormal = cross(dpdx(in.worldPosition), dpdy(in.worldPosition));
  var n = normalize(in.normal);
  if ((in.drawFlags & DRAW_FLAT_NORMALS) != 0u) {
    n = normalize(faceNormal);
    if (dot(n, frame.cameraPosition - in.worldPosition) < 0.0) {
      n = -n;
    }
  } else if (!frontFacing) {
    n = -n;
  }
  let shade = 0.45 + 0.55 * clamp(dot(n, frame.lightDirection), 0.0, 1.0);
  var display = clamp(in.color0.rgb * shade, vec3f(0.0), vec3f(1.0));
  if (ENCODE_SRGB) {
    display = linearToSrgb(display);
  }
  return vec4f(display, 1.0);
}

// WIREFRAME: the edges (a line-list index buffer over the same vertices) in one colour,
// blended over the shaded surface.
const WIREFRAME_COLOR: vec4f = vec4f(0.92, 0.96, 1.0, 0.55);

@fragment
fn fsWireframe() -> @location(0) vec4f {
  var display = WIREFRAME_COLOR.rgb;
  if (ENCODE_SRGB) {
    display = linearToSrgb(display);
  }
  return vec4f(display * WIREFRAME_COLOR.a, WIREFRAME_COLOR.a);
}
